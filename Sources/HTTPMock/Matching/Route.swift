/// What one registration matches. Registrations with equal keys share one FIFO queue.
struct RouteKey: Hashable, Sendable {
    /// `nil` matches any method.
    var method: HTTPMethod?
    /// Normalised host, with `:port` when the registration named one.
    var host: String
    /// Normalised path.
    var path: String
    /// `nil` matches any query.
    var query: QueryRequirement?

    /// The bucket of the exact-route index this key lives in.
    var indexKey: String { Self.indexKey(host: host, path: path) }

    static func indexKey(host: String, path: String) -> String { host + " " + path }

    /// How many request constraints besides host and path the route has: a named port, a
    /// method, a query. Among routes that match the same request, more constraints win (then
    /// the earlier registration).
    var constraintCount: Int {
        (host.contains(":") ? 1 : 0) + (method == nil ? 0 : 1) + (query == nil ? 0 : 1)
    }

    func matches(_ request: MockRequest) -> Bool {
        if let method, method != request.method { return false }
        if let query, !query.matches(request.query) { return false }
        return true
    }
}

extension RouteKey: CustomStringConvertible {
    /// `GET api.example.com/user?q=swift`, `ANY api.example.com/user`.
    var description: String {
        "\(method?.rawValue ?? "ANY") \(host)\(path)\(query?.description ?? "")"
    }
}

/// A registered route and its queue of responses.
struct RouteEntry: Sendable {
    let key: RouteKey
    /// Registration order: breaks ties deterministically.
    let order: Int
    var queue: ResponseQueue
}

/// FIFO queue of responses, each served as often as its `Lifetime` says.
struct ResponseQueue: Sendable {
    private var entries: [(response: MockResponse, remaining: Int?)] = []
    private var head = 0

    var isEmpty: Bool { head == entries.count }

    mutating func append(_ response: MockResponse) {
        entries.append((response, response.lifetime.uses))
    }

    /// The next response, consuming one use of it.
    mutating func pop() -> MockResponse? {
        guard head < entries.count else { return nil }
        let response = entries[head].response
        if let remaining = entries[head].remaining {
            if remaining <= 1 {
                head += 1
                if head > 32, head * 2 > entries.count {
                    entries.removeFirst(head)
                    head = 0
                }
            } else {
                entries[head].remaining = remaining - 1
            }
        }
        return response
    }

    /// Responses not yet served (a `.multiple` response counts once).
    var pendingCount: Int { entries.count - head }

    /// Whether a pending response is `.eternal`, so anything appended is unreachable.
    var endsWithEternal: Bool { entries[head...].contains { $0.remaining == nil } }
}

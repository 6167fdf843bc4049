import Foundation

/// An instance's policies, as one value so the transport reads them with the route lookup.
struct InstanceSettings: Sendable {
    var defaultDomain = "example.com"
    var unmockedPolicy = UnmockedPolicy.notFound
    var timeout: TimeInterval = 15
    var defaultDelay: TimeInterval = 0
}

/// What the transport must do with one request, decided in one critical section.
struct Resolution: Sendable {
    enum Answer: Sendable {
        case matched(route: String, response: MockResponse)
        case unmatched(UnmockedPolicy)
    }

    let answer: Answer
    let settings: InstanceSettings
}

/// One instance's store: routes and their queues, the journal and the policies, behind one
/// lock. Knows nothing of `URLProtocol`; the transport asks it to ``resolve(_:)`` a request.
final class Registry: Sendable {
    struct State: Sendable {
        var settings = InstanceSettings()
        /// Every route, in registration order.
        var routes: [RouteEntry] = []
        /// `host path` → positions in `routes`: lookup cost does not grow with the number of routes.
        var exactIndex: [String: [Int]] = [:]
        /// Route key → position in `routes`, so re-registering a key appends to its queue.
        var positionsByKey: [RouteKey: Int] = [:]
        var nextOrder = 0
        var journal: [RecordedRequest] = []

        mutating func rebuildIndexes() {
            exactIndex = [:]
            positionsByKey = [:]
            for (position, entry) in routes.enumerated() {
                exactIndex[entry.key.indexKey, default: []].append(position)
                positionsByKey[entry.key] = position
            }
        }
    }

    let state = Locked(State())

    /// Appends `responses` to the queue of `key`, creating the route if needed.
    /// - Returns: whether the queue already ended with an `.eternal` response, which makes
    ///   the new responses unreachable.
    @discardableResult
    func register(_ key: RouteKey, responses: [MockResponse]) -> Bool {
        state.withLock { state in
            let position: Int
            if let existing = state.positionsByKey[key] {
                position = existing
            } else {
                position = state.routes.count
                state.routes.append(RouteEntry(key: key, order: state.nextOrder, queue: ResponseQueue()))
                state.nextOrder += 1
                state.positionsByKey[key] = position
                state.exactIndex[key.indexKey, default: []].append(position)
            }
            let wasEternal = state.routes[position].queue.endsWithEternal
            for response in responses {
                state.routes[position].queue.append(response)
            }
            return wasEternal
        }
    }

    /// Finds the best route for `request`, pops its next response and journals the request:
    /// one atomic step, so two concurrent requests never get the same `.single` response.
    func resolve(_ request: MockRequest) -> Resolution {
        let date = Date()
        return state.withLock { state in
            var best: Int?
            func consider(_ bucket: String) {
                guard let positions = state.exactIndex[bucket] else { return }
                for position in positions {
                    let entry = state.routes[position]
                    guard !entry.queue.isEmpty, entry.key.matches(request) else { continue }
                    if let current = best {
                        let challenger = entry.key.constraintCount
                        let incumbent = state.routes[current].key.constraintCount
                        if challenger > incumbent || (challenger == incumbent && entry.order < state.routes[current].order) {
                            best = position
                        }
                    } else {
                        best = position
                    }
                }
            }
            consider(RouteKey.indexKey(host: request.normalizedHost, path: request.normalizedPath))
            if let port = request.port {
                consider(RouteKey.indexKey(host: "\(request.normalizedHost):\(port)", path: request.normalizedPath))
            }

            if let position = best, let response = state.routes[position].queue.pop() {
                let route = state.routes[position].key.description
                state.journal.append(RecordedRequest(request: request, isMatched: true, route: route, outcome: response.outcome, date: date))
                return Resolution(answer: .matched(route: route, response: response), settings: state.settings)
            }
            let policy = state.settings.unmockedPolicy
            state.journal.append(RecordedRequest(request: request, isMatched: false, route: nil, outcome: policy.outcome, date: date))
            return Resolution(answer: .unmatched(policy), settings: state.settings)
        }
    }

    /// Journals a request that the transport answered without a lookup (an unsupported task).
    func recordUnserved(_ request: MockRequest, error: any Error) {
        let entry = RecordedRequest(request: request, isMatched: false, route: nil, outcome: (nil, error), date: Date())
        state.withLock { $0.journal.append(entry) }
    }

    var journal: [RecordedRequest] { state.withLock { $0.journal } }

    var settings: InstanceSettings {
        get { state.withLock { $0.settings } }
    }

    func updateSettings(_ body: (inout InstanceSettings) -> Void) {
        state.withLock { body(&$0.settings) }
    }

    /// Removes every route, queued response and journal entry; keeps the policies.
    func clear() {
        state.withLock { state in
            state.routes = []
            state.journal = []
            state.rebuildIndexes()
        }
    }

    /// Removes the routes registered for `host` (any port) and the journal entries of requests to it.
    func clear(host: String) {
        let host = RouteHost.normalize(host)
        state.withLock { state in
            state.routes.removeAll { $0.key.host == host || $0.key.host.hasPrefix(host + ":") }
            state.journal.removeAll { $0.request.normalizedHost == host }
            state.rebuildIndexes()
        }
    }
}

extension MockResponse {
    /// What the journal records for serving this response.
    var outcome: (statusCode: Int?, error: (any Error)?) {
        switch payload {
        case .http(let http): return (http.status.code, nil)
        case .failure(let error): return (nil, error)
        case .invalid(let message, _): return (nil, HTTPMockError(.invalidRegistration, message))
        }
    }
}

extension UnmockedPolicy {
    /// What the journal records for an unmatched request under this policy.
    var outcome: (statusCode: Int?, error: (any Error)?) {
        switch kind {
        case .notFound: return (404, nil)
        case .mock(let response): return response.outcome
        case .fail(let code): return (nil, URLError(code))
        }
    }
}

extension RecordedRequest {
    init(request: MockRequest, isMatched: Bool, route: String?, outcome: (statusCode: Int?, error: (any Error)?), date: Date) {
        self.init(request: request, isMatched: isMatched, route: route, statusCode: outcome.statusCode, error: outcome.error, date: date)
    }
}

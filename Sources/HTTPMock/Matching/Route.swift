/// What one registration matches. Registrations with equal keys share one FIFO queue.
struct RouteKey: Hashable, Sendable {
    var host: HostPattern
    var path: PathPattern
    /// `nil` matches any method.
    var method: HTTPMethod?
    var predicate: RequestPredicate? = nil
    /// Everything else the route requires of a request, in one matcher set: the DSL's `query:`,
    /// `headers:` and `body:` lowered into it, or a front end's URL rules and matchers; compiled
    /// once. `nil`: nothing more.
    var conditions: RequestConditions? = nil
    /// The scenario state the route needs; checked under the registry's lock, with the pop.
    var scenario: ScenarioState? = nil
    /// WireMock's `priority` (1 highest), compared before specificity; `nil` counts as 5,
    /// WireMock's default.
    var priority: Int? = nil
    /// A name that replaces the generated description (a WireMock mapping's summary).
    var label: String? = nil

    /// Whether host and path are both literal: such routes live in the exact index.
    var isExact: Bool { host.isLiteral && path.isLiteral }

    /// What the DSL declared (`query:`, `headers:`, `body:`), for descriptions.
    var declared: RequestConditions.Declared? { conditions?.declared }

    /// How many request constraints besides host and path the route has (a named port, a
    /// method, a query, headers, a body matcher, a predicate, a scenario state, each other
    /// condition).
    var constraintCount: Int {
        (host.port == nil ? 0 : 1) + (method == nil ? 0 : 1) + (predicate == nil ? 0 : 1)
            + (scenario == nil ? 0 : 1) + (conditions?.count ?? 0)
    }

    var specificity: Specificity {
        Specificity(
            isExact: isExact,
            wildcardWeight: host.wildcardWeight + path.wildcardWeight,
            literalCharacters: host.literalCharacterCount + path.literalCharacterCount,
            constraints: constraintCount)
    }

    /// Whether everything but host and path matches (the index has matched those; the path
    /// captured `parameters`). `facts` reads each part of the body at most once per request,
    /// however many routes ask.
    func matchesConstraints(_ request: MockRequest, parameters: [String: String], facts: inout RequestFacts) -> Bool {
        if let method, method != request.method { return false }
        if let conditions, !conditions.matches(request, parameters: parameters, facts: &facts) { return false }
        if let predicate, !predicate.test(request) { return false }
        return true
    }
}

extension RouteKey: CustomStringConvertible {
    /// `GET api.example.com/users/:id?q=swift [headers: x-env: test] [body: .json(…)] [where]`.
    var description: String {
        if let label { return label }
        var text = "\(method?.rawValue ?? "ANY") \(host)\(path)\(declared?.query?.description ?? "")"
        if let headers = declared?.headers { text += " [headers: \(headers)]" }
        if let body = declared?.body { text += " [body: \(body)]" }
        if predicate != nil { text += " [where]" }
        if let scenario { text += " [when \(scenario)]" }
        return text
    }
}

/// How specific a route is; the most specific matching route with a response answers.
///
/// 1. exact host and path beat any pattern;
/// 2. then fewer wildcards (`*` and `:name` weigh 1, `**` weighs 2, host and path added);
/// 3. then more literal characters (host and path);
/// 4. then more constraints (port, method, query, headers, body, predicate);
/// 5. then the earlier registration.
struct Specificity: Hashable, Sendable {
    var isExact: Bool
    var wildcardWeight: Int
    var literalCharacters: Int
    var constraints: Int

    /// Whether `self` wins over `other` before registration order is consulted; `nil` on a tie.
    func beats(_ other: Specificity) -> Bool? {
        if isExact != other.isExact { return isExact }
        if wildcardWeight != other.wildcardWeight { return wildcardWeight < other.wildcardWeight }
        if literalCharacters != other.literalCharacters { return literalCharacters > other.literalCharacters }
        if constraints != other.constraints { return constraints > other.constraints }
        return nil
    }
}

/// A registered route: its key, precedence and registration order. A class, immutable: lookups
/// read routes from a snapshot, and reading one should not copy its key.
final class Route: Sendable {
    let key: RouteKey
    let specificity: Specificity
    /// Registration order: breaks ties deterministically.
    let order: Int
    /// Where the route was first registered, for reports.
    let location: SourceLocation?
    /// `key.description`, computed once: the journal records it for every request.
    let name: String
    /// Whether matching it may run user code or parse a body (a predicate, a body matcher):
    /// such matching runs outside the registry's lock. Read for every candidate of every request.
    let runsUserCode: Bool
    /// A WireMock mapping: among such routes of equal priority the newest answers, whatever
    /// their specificity (WireMock's order: priority, then the most recently added).
    let newestFirst: Bool

    init(key: RouteKey, specificity: Specificity, order: Int, location: SourceLocation? = nil, newestFirst: Bool = false) {
        self.key = key
        self.specificity = specificity
        self.order = order
        self.location = location
        self.newestFirst = newestFirst
        self.name = key.description
        self.runsUserCode = key.predicate != nil || key.conditions?.isExpensive == true
    }

    /// ``RouteKey/matchesConstraints(_:parameters:facts:)`` of ``key``, read in place: called as
    /// `route.key.matchesConstraints(…)` from a lookup, the key was copied for every candidate.
    func matchesConstraints(_ request: MockRequest, parameters: [String: String], facts: inout RequestFacts) -> Bool {
        key.matchesConstraints(request, parameters: parameters, facts: &facts)
    }

    /// Whether `self` takes precedence over `other`.
    func precedes(_ other: Route) -> Bool {
        if key.priority != other.key.priority, (key.priority ?? 5) != (other.key.priority ?? 5) {
            return (key.priority ?? 5) < (other.key.priority ?? 5)
        }
        if newestFirst, other.newestFirst { return order > other.order }
        return specificity.beats(other.specificity) ?? (order < other.order)
    }
}

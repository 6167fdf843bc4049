import Foundation

/// What a route requires beyond host, path and method, whichever front end declared it: a URL
/// rule on the URL as the client wrote it (WireMock's `url`, `urlPath`, `urlPattern`,
/// `urlPathPattern`) and value matchers on named parts of the request (headers, query
/// parameters, cookies, form fields, path parameters, host, scheme, port, client address, body,
/// multipart parts). The DSL's `query:`, `headers:` and `body:` are lowered into the same
/// conditions (``init(declared:)``). Compiled once when the route is registered; immutable.
/// Conditions lowered from the DSL compare by what was declared (equal registrations share a
/// queue); a front end's compare by identity (each registration its own).
///
/// The route index narrows candidates by the route's path pattern — for a URL rule, the
/// literal prefix of its path, and a piece of a literal every match contains (``LiteralGate``)
/// — and these conditions decide among them.
package final class RequestConditions: Sendable, Hashable {
    /// A rule on the URL as the client sent it (percent-encoding kept).
    package enum URLRule: Sendable, CustomStringConvertible {
        /// Path and query, exactly (WireMock's `url`).
        case url(String)
        /// The path, exactly (`urlPath`).
        case path(String)
        /// Path and query match wholly (`urlPattern`).
        case urlPattern(TextRegex)
        /// The path matches wholly (`urlPathPattern`).
        case pathPattern(TextRegex)

        package var description: String {
            switch self {
            case .url(let text): return "url \(text)"
            case .path(let text): return "urlPath \(text)"
            case .urlPattern(let regex): return "urlPattern \(regex.pattern)"
            case .pathPattern(let regex): return "urlPathPattern \(regex.pattern)"
            }
        }
    }

    /// A part of the request one matcher reads.
    package enum Field: Sendable, Hashable, CustomStringConvertible {
        case header(String)
        /// Query parameters decoded as forms encode them (`+` is a space), as WireMock reads them.
        case query(String)
        case cookie(String)
        /// A field of an `application/x-www-form-urlencoded` body.
        case form(String)
        /// A `:name` segment of the route's path (WireMock's `pathParameters` with `urlPathTemplate`).
        case pathParameter(String)
        /// The host the client named (its `Host` header, without the port).
        case host
        case scheme
        case port
        /// The client's address (the server's peer; `127.0.0.1` in process).
        case clientAddress
        case body
        /// A query parameter as the DSL's `query:` reads it (`+` stays `+`, as `URLComponents`
        /// decodes it), every value in order.
        case declaredQuery(String)
        /// The name of every query parameter, once each, in order (the DSL's `.exact`).
        case queryNames
        /// A header as the DSL's `headers:` reads it: the whole value, or with `listed` (an
        /// expected list of values) its comma-separated values.
        case declaredHeader(String, listed: Bool)
        /// The body as the DSL's `body:` reads it (a ``BodyMatcher``).
        case declaredBody

        package var description: String {
            switch self {
            case .header(let name): return "header \(name)"
            case .query(let name): return "query parameter \(name)"
            case .cookie(let name): return "cookie \(name)"
            case .form(let name): return "form parameter \(name)"
            case .pathParameter(let name): return "path parameter \(name)"
            case .host: return "host"
            case .scheme: return "scheme"
            case .port: return "port"
            case .clientAddress: return "client address"
            case .body, .declaredBody: return "body"
            case .declaredQuery(let name): return "query \(name)"
            case .queryNames: return "query"
            case .declaredHeader(let name, _): return "headers \(name)"
            }
        }

        /// The part of a near-miss report a condition lowered from the DSL belongs to (its lines
        /// are grouped there, in the DSL's words); `nil` for a front end's condition, reported on
        /// its own.
        var declaredSection: RouteMiss.Section? {
            switch self {
            case .declaredQuery, .queryNames: return .query
            case .declaredHeader: return .headers
            case .declaredBody: return .body
            default: return nil
            }
        }
    }

    /// A field and what it must satisfy.
    package struct Condition: Sendable {
        let field: Field
        let matcher: MultiValueMatcher
        /// A name for reports (`bodyPatterns[0]`, `headers.Accept`); the field's own otherwise.
        let label: String?

        package init(_ field: Field, _ matcher: MultiValueMatcher, label: String? = nil) {
            self.field = field
            self.matcher = matcher
            self.label = label
        }
    }

    /// What the DSL declared (`query:`, `headers:`, `body:`), when these conditions were
    /// lowered from it: what they compare by, and how a route describes them.
    struct Declared: Hashable, Sendable {
        var query: QueryRequirement?
        var headers: HeaderRequirement?
        var body: BodyMatcher?
    }

    package let url: URLRule?
    let conditions: [Condition]
    let declared: Declared?
    /// How many things the route checks, for specificity: each section lowered from the DSL
    /// counts once (as the DSL's query, headers and body always did).
    let count: Int
    let multipart: [MultipartCondition]
    /// The route's path pattern when it captures parameters (WireMock's `urlPathTemplate`), for
    /// checks made outside a route lookup (the admin API's `requests/find`).
    private let parameterPattern: PathPattern?
    /// Whether matching may parse a body, read XML or backtrack: then it runs outside the
    /// registry's lock and off the event loop.
    let isExpensive: Bool
    /// The regular expressions on the URL and the conditions with one, for the per-request
    /// cost check.
    private let urlRegex: TextRegex?
    private let regexConditions: [Condition]

    /// - Parameter parameterPattern: the route's path when it holds `:name` segments.
    package convenience init(
        url: URLRule?, conditions: [Condition], multipart: [MultipartCondition] = [], parameterPattern: String? = nil
    ) {
        self.init(url: url, conditions: conditions, multipart: multipart, parameterPattern: parameterPattern, declared: nil)
    }

    /// The DSL's `query:`, `headers:` and `body:` as conditions: a query parameter each (sorted
    /// by name), the names under `.exact`, a header each (sorted by lowercased name), the body.
    convenience init(declared: Declared) {
        var conditions: [Condition] = []
        if let query = declared.query {
            for (name, value) in query.values.sorted(by: { $0.key < $1.key }) {
                conditions.append(Condition(.declaredQuery(name), .declared(value, needsPresence: false)))
            }
            if query.matching == .exact { conditions.append(Condition(.queryNames, .oneOf(Set(query.values.keys)))) }
        }
        for (name, value) in (declared.headers?.values ?? [:]).sorted(by: { $0.key < $1.key }) {
            conditions.append(Condition(.declaredHeader(name, listed: value.isList), .declared(value, needsPresence: true)))
        }
        if let body = declared.body { conditions.append(Condition(.declaredBody, .body(body))) }
        self.init(url: nil, conditions: conditions, multipart: [], parameterPattern: nil, declared: declared)
    }

    private init(
        url: URLRule?, conditions: [Condition], multipart: [MultipartCondition], parameterPattern: String?, declared: Declared?
    ) {
        self.url = url
        self.declared = declared
        // What the DSL declared counts once per part, even a part that lowers to no condition
        // (`query: [:]` under `.contains`), as it did before it was lowered.
        self.count =
            declared.map { ($0.query == nil ? 0 : 1) + ($0.headers == nil ? 0 : 1) + ($0.body == nil ? 0 : 1) }
            ?? (url == nil ? 0 : 1) + multipart.count + conditions.count
        self.parameterPattern = parameterPattern.flatMap { try? PathPattern.parse($0) }
        self.conditions = conditions
        self.multipart = multipart
        var urlRegex: TextRegex?
        switch url {
        case .urlPattern(let regex)?, .pathPattern(let regex)?: urlRegex = regex
        default: break
        }
        self.urlRegex = urlRegex
        self.regexConditions = conditions.filter { $0.matcher.hasRegex }
        self.isExpensive =
            !multipart.isEmpty || (urlRegex.map { !$0.isLinear } ?? false)
            || conditions.contains { $0.field == .body || $0.field == .declaredBody || $0.matcher.isExpensive }
    }

    package static func == (lhs: RequestConditions, rhs: RequestConditions) -> Bool {
        if let declared = lhs.declared { return declared == rhs.declared }
        return lhs === rhs
    }

    package func hash(into hasher: inout Hasher) {
        if let declared { hasher.combine(declared) } else { hasher.combine(ObjectIdentifier(self)) }
    }

    /// Regular expressions cheaper than this (steps) run inline, under the registry's lock, on
    /// the event loop; a dearer one sends the request to the matching queue.
    static let inlineStepLimit = 50_000

    /// Whether matching `request` may cost more than a few microseconds.
    func needsSlowPath(for request: MockRequest) -> Bool {
        if isExpensive { return true }
        if let urlRegex,
            urlRegex.cost(forLength: request.target.rawPath.utf8.count + (request.target.rawQuery?.utf8.count ?? 0) + 1)
                > Self.inlineStepLimit
        {
            return true
        }
        for condition in regexConditions {
            let length: Int
            switch condition.field {
            case .header(let name): length = request.headers[name]?.utf8.count ?? 0
            default: length = (request.target.rawQuery?.utf8.count ?? 0) + request.target.rawPath.utf8.count
            }
            if condition.matcher.regexCost(forLength: length) > Self.inlineStepLimit { return true }
        }
        return false
    }

    /// Checks that `path` is a route path HTTPMock reads (`/users/:id/**`).
    static func validateRoutePath(_ path: String) throws(PatternError) {
        _ = try PathPattern.parse(path)
    }

    /// Whether `request` meets every condition, its path parameters taken from the route's
    /// pattern (a check outside a lookup: the admin API's `requests/find`).
    package func matches(_ request: MockRequest) -> Bool {
        var facts = RequestFacts()
        let parameters = parameterPattern.flatMap { $0.match(request.pathSegments) } ?? request.pathParameters
        if parameterPattern != nil, parameterPattern?.match(request.pathSegments) == nil { return false }
        return matches(request, parameters: parameters, facts: &facts)
    }

    /// The path parameters of `request` under the route's pattern.
    package func pathParameters(of request: MockRequest) -> [String: String] {
        parameterPattern.flatMap { $0.match(request.pathSegments) } ?? request.pathParameters
    }

    /// Whether `request` (its path matched with `parameters`) meets every condition.
    func matches(_ request: MockRequest, parameters: [String: String], facts: inout RequestFacts) -> Bool {
        if let url, !Self.matches(url, request) { return false }
        for condition in conditions where !holds(condition, request, parameters, &facts) {
            return false
        }
        for pattern in multipart where !pattern.matches(facts.multipartParts(of: request)) {
            return false
        }
        return true
    }

    static func matches(_ rule: URLRule, _ request: MockRequest) -> Bool { evaluate(rule, request) == .match }

    static func evaluate(_ rule: URLRule, _ request: MockRequest) -> TextRegex.Evaluation {
        switch rule {
        case .url(let expected): return request.target.rawPathAndQuery == expected ? .match : .noMatch
        case .path(let expected): return request.target.rawPath == expected ? .match : .noMatch
        case .urlPattern(let regex): return regex.evaluate(request.target.rawPathAndQuery)
        case .pathPattern(let regex): return regex.evaluate(request.target.rawPath)
        }
    }

    /// Whether `request` meets `condition`.
    func holds(_ condition: Condition, _ request: MockRequest, _ parameters: [String: String], _ facts: inout RequestFacts) -> Bool {
        if case .body(let body) = condition.matcher {
            return body.matches(request, json: { facts.json(of: request) }, body: facts.body(of: request))
        }
        return condition.matcher.matches(values(of: condition.field, request, parameters, &facts))
    }

    /// The values `field` has in `request`: none when absent, one per occurrence otherwise.
    func values(of field: Field, _ request: MockRequest, _ parameters: [String: String], _ facts: inout RequestFacts) -> FieldValues {
        switch field {
        case .header(let name): return .values(request.headers[name].map { [$0] } ?? [])
        case .query(let name): return .values(facts.formDecodedQuery(of: request)[name] ?? [])
        case .cookie(let name):
            // A cookie the request does not send satisfies only `absent` (WireMock 2.35).
            guard let values = facts.cookies(of: request)[name] else { return .missingCookie }
            return .values(values)
        case .form(let name): return .values(facts.form(of: request)[name] ?? [])
        case .pathParameter(let name): return .values(parameters[name].map { [$0] } ?? request.pathParameters[name].map { [$0] } ?? [])
        case .host: return .values([request.clientHost])
        case .scheme: return .values([request.clientScheme])
        case .port: return .values(request.clientPort.map { [String($0)] } ?? [])
        case .clientAddress: return .values([request.clientAddress ?? "127.0.0.1"])
        case .body, .declaredBody: return .body(facts.body(of: request))
        case .declaredQuery(let name): return .values(facts.declaredQuery(of: request).values(for: name))
        case .queryNames: return .values(facts.declaredQuery(of: request).keys)
        case .declaredHeader(let name, let listed):
            guard let value = request.headers[name] else { return .values([]) }
            return .values(listed ? value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : [value])
        }
    }
}

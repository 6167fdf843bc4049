/// One route as any front end declares it, before validation: the DSL and `addResponses`, mock
/// trees, HAR archives, static files, Voodoo's files and WireMock's mappings all produce these,
/// and ``Registration`` is the single place that turns them into routes, so no front end can
/// register a route another could not, or skip a check.
package struct RouteSpec: Sendable {
    package var path: String
    /// `nil`: the instance's `defaultDomain` at registration time.
    package var host: String?
    package var method: HTTPMethod?
    var query: [String: QueryValue]? = nil
    var matching: QueryMatching = .exact
    var headers: [String: QueryValue]? = nil
    var body: BodyMatcher? = nil
    /// A front end's further conditions (WireMock's URL rules and matchers), compiled once.
    package var conditions: RequestConditions? = nil
    /// A test of the request beyond the conditions (user code: it runs outside the registry's
    /// lock).
    package var predicate: (@Sendable (MockRequest) -> Bool)? = nil
    /// Why a request fails `predicate`, for near-miss reports (a front end's own wording);
    /// `nil`: "the predicate returned false".
    package var predicateExplanation: (@Sendable (MockRequest) -> String?)? = nil
    /// The scenario state the route needs (`when:`, WireMock's `requiredScenarioState`).
    package var scenario: ScenarioState? = nil
    /// WireMock's `priority` (1 highest); `nil` counts as 5.
    package var priority: Int? = nil
    /// The route's name in reports and the journal instead of the generated one (a WireMock
    /// mapping's summary).
    package var label: String? = nil
    package var responses: [MockResponse]
    /// The registration call site, or the file (and line) that declared the route.
    var location: SourceLocation
    /// A route a front end adds for its own purposes (Voodoo's GraphQL limits): never listed as
    /// a near miss, since the user declared no such route.
    package var isInternal = false
    /// How the route joins the routes already registered.
    package var placement = Placement.sharesEqualRoute

    /// How a registered spec joins the registry.
    package enum Placement: Sendable, Equatable {
        /// A spec equal to a registered route (same host, path, method, query, headers, body,
        /// scenario; no predicate or front-end conditions, which are never equal) appends its
        /// responses to that route's queue: the DSL, `addResponses`, trees and archives.
        case sharesEqualRoute
        /// Registered only when no equal route is; otherwise nothing is registered and
        /// ``Registration/registerOrThrow(_:on:defaultDomain:errors:replacing:)`` reports it
        /// (static files: a second root would queue behind the first, unreachable).
        case onlyIfNew
        /// Always a route of its own, with an identity (its registration order) the front end
        /// keeps to replace or remove it (a WireMock mapping). With `newestFirst`, among such
        /// routes of equal priority the newest answers whatever their specificity (WireMock's
        /// order); otherwise specificity decides, as for other routes.
        case own(newestFirst: Bool)
    }
}

extension RouteSpec {
    /// A spec another target of this package declares (Voodoo's files, WireMock's mappings);
    /// `file` and `line` say where (line 0: nowhere in a file, e.g. posted to the admin API),
    /// `fileID` how reports print the file (the path relative to the folder loaded).
    package init(
        path: String, host: String?, method: HTTPMethod?, responses: [MockResponse], file: String, fileID: String? = nil,
        line: Int
    ) {
        self.init(
            path: path, host: host, method: method, responses: responses,
            location: SourceLocation(fileID: fileID ?? file, filePath: file, line: line, column: line > 0 ? 1 : 0))
    }
}

/// Validates a batch of specs and registers all of them or none: the one way routes enter a
/// registry. Two entry points differ only in how problems surface: ``register(_:on:defaultDomain:)``
/// reports each at its location (a test failure or a warning), ``registerOrThrow(_:on:defaultDomain:errors:replacing:)``
/// throws every error in one message.
enum Registration {
    struct Problem: Sendable {
        var message: String
        var location: SourceLocation
        var severity: Reporter.Severity
    }

    /// How ``registerOrThrow(_:on:defaultDomain:errors:replacing:)`` words its error.
    struct ErrorStyle: Sendable {
        var code: HTTPMockError.Code
        /// What was being done (`loadMocks`, `loadHAR(/path)`), the message's first words.
        var operation: String

        static let mockTree = ErrorStyle(code: .mockTree, operation: "loadMocks")
    }

    /// Registers `specs` on `registry` if none has an error, reporting every problem
    /// (errors and warnings) at its location.
    /// - Returns: the problems found; registration happened iff none is an error.
    @discardableResult
    static func register(_ specs: [RouteSpec], on registry: Registry, defaultDomain: String) -> [Problem] {
        var (keyed, problems) = validateAll(specs, defaultDomain: defaultDomain)
        if !problems.contains(where: { $0.severity == .error }) {
            problems += place(keyed, on: registry, replacing: []).warnings
        }
        for problem in problems {
            Reporter.report(problem.message, severity: problem.severity, at: problem.location)
        }
        return problems
    }

    /// Validates every spec and registers them all, after removing the routes whose
    /// registration orders `replacing` lists (in the same critical section: a concurrent
    /// request sees the old routes or the new ones), or throws with every error in one
    /// message, registering and removing none. Warnings are reported, not thrown.
    /// - Returns: each spec's route identity (its registration order), in order; `nil` for a
    ///   spec that registered no route (no responses, or ``RouteSpec/Placement/onlyIfNew`` and
    ///   an equal route exists).
    @discardableResult
    static func registerOrThrow(
        _ specs: [RouteSpec], on registry: Registry, defaultDomain: String, errors style: ErrorStyle = .mockTree,
        replacing: Set<Int> = []
    ) throws(HTTPMockError) -> [Int?] {
        let (keyed, problems) = validateAll(specs, defaultDomain: defaultDomain)
        let errors = problems.filter { $0.severity == .error }.map { problem in
            (problem.location.filePath.isEmpty ? problem.location.fileID : problem.location.filePath) + ": " + problem.message
        }
        guard errors.isEmpty else {
            throw HTTPMockError(style.code, "\(style.operation): nothing was registered:\n" + errors.joined(separator: "\n"))
        }
        let (orders, warnings) = place(keyed, on: registry, replacing: replacing)
        for warning in problems + warnings {
            Reporter.warn(warning.message, at: warning.location)
        }
        return orders
    }

    /// Every spec's key (nil when invalid) and every problem, in order. A large batch (a WireMock
    /// root of 10,000 mappings, an archive) is validated on every core.
    private static func validateAll(_ specs: [RouteSpec], defaultDomain: String) -> ([(RouteKey?, RouteSpec)], [Problem]) {
        let validated = Concurrently.map(specs, context: HostPatternCache()) { (hosts: inout HostPatternCache, spec: RouteSpec) in
            let (key, problems) = validate(spec, defaultDomain: defaultDomain, hosts: &hosts)
            return (key, spec, problems)
        }
        return (validated.map { ($0.0, $0.1) }, validated.flatMap { $0.2 })
    }

    /// Places every valid spec with responses (an own route also without) in one critical
    /// section; returns each spec's identity and the warnings placing found.
    private static func place(
        _ keyed: [(RouteKey?, RouteSpec)], on registry: Registry, replacing: Set<Int>
    ) -> (orders: [Int?], warnings: [Problem]) {
        var additions: [Registry.Addition] = []
        var locations: [SourceLocation] = []
        var positions: [Int?] = []
        for (key, spec) in keyed {
            // An empty response list is a warning and creates no route (as bstien/HTTPMock does),
            // except a route of its own, whose identity the front end keeps.
            guard let key, !spec.responses.isEmpty || spec.placement != .sharesEqualRoute else {
                positions.append(nil)
                continue
            }
            positions.append(additions.count)
            locations.append(spec.location)
            additions.append(
                Registry.Addition(
                    key: key, responses: spec.responses.map { $0.prepared().bound(to: registry.store) }, location: spec.location,
                    placement: spec.placement))
        }
        let placed = registry.register(additions, replacing: replacing)
        var warnings: [Problem] = []
        for ((addition, location), outcome) in zip(zip(additions, locations), placed) where outcome.wasEternal {
            warnings.append(
                Problem(
                    message: "\(addition.key): responses added behind an .eternal response of an earlier registration are never served",
                    location: location, severity: .warning))
        }
        return (positions.map { $0.flatMap { placed[$0].order } }, warnings)
    }

    /// Host patterns already parsed in one batch: an archive or a mock tree names the same few
    /// hosts thousands of times.
    typealias HostPatternCache = [String: Result<HostPattern, PatternError>]

    static func validate(
        _ spec: RouteSpec, defaultDomain: String, hosts: inout HostPatternCache
    ) -> (RouteKey?, [Problem]) {
        var problems: [Problem] = []
        func fail(_ message: String, at location: SourceLocation? = nil) {
            problems.append(Problem(message: message, location: location ?? spec.location, severity: .error))
        }
        func warning(_ message: String) {
            problems.append(Problem(message: message, location: spec.location, severity: .warning))
        }

        let rawHost = spec.host ?? defaultDomain
        var host: HostPattern?
        var path: PathPattern?
        // Only messages use the name: computed when a problem is found, not for every route
        // (it is a fifth of loading a 10,000-entry archive otherwise).
        var routeName: String {
            "\(spec.method?.rawValue ?? "ANY") \(RouteHost.normalize(rawHost))\(RoutePath.join(RoutePath.rawSegments(spec.path)))"
        }

        if rawHost.containsBytes(of: "/") {
            fail("\(routeName): host \"\(rawHost)\" must be a host name like \"api.example.com\", not a URL; put the path in forPath:")
        } else {
            let parsed = hosts[rawHost] ?? Result { () throws(PatternError) in try HostPattern.parse(rawHost) }
            hosts[rawHost] = parsed
            switch parsed {
            case .success(let pattern): host = pattern
            case .failure(let error): fail("\(routeName): \(error.message)")
            }
        }
        if spec.path.containsBytes(of: "://") {
            fail("\(routeName): path \"\(spec.path)\" is a URL; pass the host as host: and only the path as forPath:")
        } else if spec.path.utf8.contains(UInt8(ascii: "?")) {
            fail("\(routeName): path \"\(spec.path)\" contains a query; pass query parameters as query: [\"key\": \"value\"]")
        } else if spec.path.utf8.contains(UInt8(ascii: "#")) {
            fail("\(routeName): path \"\(spec.path)\" contains a fragment (#), which is never sent to a server")
        } else {
            do { path = try PathPattern.parse(spec.path) } catch { fail("\(routeName): \(error.message)") }
        }
        if let method = spec.method, !method.isValidToken {
            fail("\(routeName): \"\(method.rawValue)\" is not a valid HTTP method name")
        }
        if let query = spec.query, query.keys.contains("") {
            fail("\(routeName): a query key is empty")
        }
        if let headers = spec.headers {
            if headers.keys.contains(where: { $0.isEmpty }) { fail("\(routeName): a header name is empty") }
            let lowercased = Dictionary(grouping: headers.keys, by: { $0.lowercased() })
            for (_, names) in lowercased where names.count > 1 {
                fail("\(routeName): headers \(names.sorted().joined(separator: " and ")) are the same header (names are case-insensitive)")
            }
        }
        if case .invalid(let message, let location)? = spec.body?.rule {
            fail("\(message) (\(routeName))", at: location)
        }
        if let scenario = spec.scenario {
            if scenario.scenario.isEmpty { fail("\(routeName): when: ScenarioState has an empty scenario name") }
            if scenario.state.isEmpty { fail("\(routeName): when: ScenarioState(\"\(scenario.scenario)\", \"\") has an empty state") }
        }
        if spec.responses.isEmpty, spec.placement == .sharesEqualRoute {
            warning("\(routeName): no responses were given, so no route was registered")
        }

        for (index, response) in spec.responses.enumerated() {
            var position: String { "\(routeName), response \(index + 1) of \(spec.responses.count)" }
            if case .invalid(let message, let location) = response.payload {
                fail("\(message) (\(position))", at: location)
            }
            for problem in response.sendingProblems {
                fail("\(position): \(problem)")
            }
            if let uses = response.lifetime.uses, uses < 1 {
                fail("\(position): lifetime .multiple(\(uses)) must serve at least one request")
            }
            if let problem = response.delivery.problem {
                fail("\(position): \(problem)")
            }
            if let transition = response.transition, transition.scenario.isEmpty || transition.state.isEmpty {
                fail(
                    "\(position): transitioning(\"\(transition.scenario)\", to: \"\(transition.state)\") needs a non-empty scenario name and state"
                )
            }
            if response.lifetime == .eternal, index < spec.responses.count - 1 {
                warning("\(position) is .eternal, so the \(spec.responses.count - 1 - index) response(s) after it are never served")
            }
        }

        // The DSL's query, headers and body are lowered into the one matcher set; a spec holds
        // them or a front end's compiled conditions, never both.
        let declared = RequestConditions.Declared(
            query: spec.query.map { QueryRequirement(values: $0, matching: spec.matching) },
            headers: spec.headers.map(HeaderRequirement.init), body: spec.body)
        let hasDeclared = declared.query != nil || declared.headers != nil || declared.body != nil
        if hasDeclared, spec.conditions != nil {
            fail("\(routeName): a route takes query:, headers: and body: or a front end's conditions, not both")
        }
        guard !problems.contains(where: { $0.severity == .error }), let host, let path else { return (nil, problems) }
        let key = RouteKey(
            host: host, path: path, method: spec.method,
            predicate: spec.predicate.map { test in
                var predicate = RequestPredicate(test)
                predicate.explanation = spec.predicateExplanation
                predicate.isInternal = spec.isInternal
                return predicate
            },
            conditions: hasDeclared ? RequestConditions(declared: declared) : spec.conditions,
            scenario: spec.scenario, priority: spec.priority, label: spec.label)
        return (key, problems)
    }
}

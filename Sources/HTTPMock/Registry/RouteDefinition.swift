/// One route as a user declared it, before validation. Both registration APIs produce these,
/// and ``Registration`` is the single place that turns them into routes, so the imperative
/// API and the DSL cannot disagree.
struct RouteDefinition: Sendable {
    var path: String
    /// `nil`: the instance's `defaultDomain` at registration time.
    var host: String?
    var method: HTTPMethod?
    var query: [String: QueryValue]?
    var matching: QueryMatching
    var headers: [String: QueryValue]?
    var body: BodyMatcher?
    var predicate: (@Sendable (MockRequest) -> Bool)?
    /// The scenario state the route needs (`when:`).
    var scenario: ScenarioState? = nil
    var responses: [MockResponse]
    /// The registration call site.
    var location: SourceLocation
    /// Why a request fails `predicate`, for near-miss reports (a front end's own wording);
    /// `nil`: "the predicate returned false".
    var predicateExplanation: (@Sendable (MockRequest) -> String?)? = nil
    /// A route a front end adds for its own purposes (Voodoo's GraphQL limits): never listed as
    /// a near miss, since the user declared no such route.
    var isInternal = false
}

/// Validates a batch of definitions and registers all of them or none.
enum Registration {
    struct Problem: Sendable {
        var message: String
        var location: SourceLocation
        var severity: Reporter.Severity
    }

    /// Registers `definitions` on `registry` if none has an error, reporting every problem
    /// (errors and warnings) at its location.
    /// - Returns: the problems found; registration happened iff none is an error.
    @discardableResult
    static func register(_ definitions: [RouteDefinition], on registry: Registry, defaultDomain: String) -> [Problem] {
        var problems: [Problem] = []
        var keyed: [(RouteKey, RouteDefinition)] = []
        var hosts = HostPatternCache()
        for definition in definitions {
            let (key, found) = validate(definition, defaultDomain: defaultDomain, hosts: &hosts)
            problems += found
            // An empty response list is a warning and creates no route (as bstien/HTTPMock does).
            if let key, !definition.responses.isEmpty { keyed.append((key, definition)) }
        }
        let hasErrors = problems.contains { $0.severity == .error }
        if !hasErrors {
            // One critical section for the whole batch: a concurrent request sees all or none.
            let wasEternal = registry.register(
                keyed.map { key, definition in
                    Registry.Addition(
                        key: key, responses: definition.responses.map { $0.prepared().bound(to: registry.store) },
                        location: definition.location)
                })
            for ((key, definition), wasEternal) in zip(keyed, wasEternal) {
                if wasEternal {
                    problems.append(
                        Problem(
                            message: "\(key): responses added behind an .eternal response of an earlier registration are never served",
                            location: definition.location, severity: .warning))
                }
            }
        }
        for problem in problems {
            Reporter.report(problem.message, severity: problem.severity, at: problem.location)
        }
        return problems
    }

    /// Validates every definition and registers them all, or throws (registering none) with
    /// every error in one message. Warnings are reported, not thrown.
    static func registerOrThrow(
        _ definitions: [RouteDefinition], on registry: Registry, defaultDomain: String,
        code: HTTPMockError.Code = .mockTree, operation: String = "loadMocks"
    ) throws(HTTPMockError) {
        var keyed: [(RouteKey, RouteDefinition)] = []
        var errors: [String] = []
        var warnings: [Problem] = []
        var hosts = HostPatternCache()
        for definition in definitions {
            let (key, problems) = validate(definition, defaultDomain: defaultDomain, hosts: &hosts)
            for problem in problems {
                if problem.severity == .error {
                    errors.append("\(problem.location.filePath): \(problem.message)")
                } else {
                    warnings.append(problem)
                }
            }
            if let key { keyed.append((key, definition)) }
        }
        guard errors.isEmpty else {
            throw HTTPMockError(code, "\(operation): nothing was registered:\n" + errors.joined(separator: "\n"))
        }
        registry.register(
            keyed.map { key, definition in
                Registry.Addition(
                    key: key, responses: definition.responses.map { $0.prepared().bound(to: registry.store) },
                    location: definition.location)
            })
        for warning in warnings {
            Reporter.warn(warning.message, at: warning.location)
        }
    }

    /// Host patterns already parsed in one batch: an archive or a mock tree names the same few
    /// hosts thousands of times.
    typealias HostPatternCache = [String: Result<HostPattern, PatternError>]

    static func validate(_ definition: RouteDefinition, defaultDomain: String) -> (RouteKey?, [Problem]) {
        var hosts = HostPatternCache()
        return validate(definition, defaultDomain: defaultDomain, hosts: &hosts)
    }

    static func validate(
        _ definition: RouteDefinition, defaultDomain: String, hosts: inout HostPatternCache
    ) -> (RouteKey?, [Problem]) {
        var problems: [Problem] = []
        func fail(_ message: String, at location: SourceLocation? = nil) {
            problems.append(Problem(message: message, location: location ?? definition.location, severity: .error))
        }
        func warning(_ message: String) {
            problems.append(Problem(message: message, location: definition.location, severity: .warning))
        }

        let rawHost = definition.host ?? defaultDomain
        var host: HostPattern?
        var path: PathPattern?
        // Only messages use the name: computed when a problem is found, not for every route
        // (it is a fifth of loading a 10,000-entry archive otherwise).
        var routeName: String {
            "\(definition.method?.rawValue ?? "ANY") \(RouteHost.normalize(rawHost))\(RoutePath.join(RoutePath.rawSegments(definition.path)))"
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
        if definition.path.containsBytes(of: "://") {
            fail("\(routeName): path \"\(definition.path)\" is a URL; pass the host as host: and only the path as forPath:")
        } else if definition.path.utf8.contains(UInt8(ascii: "?")) {
            fail("\(routeName): path \"\(definition.path)\" contains a query; pass query parameters as query: [\"key\": \"value\"]")
        } else if definition.path.utf8.contains(UInt8(ascii: "#")) {
            fail("\(routeName): path \"\(definition.path)\" contains a fragment (#), which is never sent to a server")
        } else {
            do { path = try PathPattern.parse(definition.path) } catch { fail("\(routeName): \(error.message)") }
        }
        if let method = definition.method, !method.isValidToken {
            fail("\(routeName): \"\(method.rawValue)\" is not a valid HTTP method name")
        }
        if let query = definition.query, query.keys.contains("") {
            fail("\(routeName): a query key is empty")
        }
        if let headers = definition.headers {
            if headers.keys.contains(where: { $0.isEmpty }) { fail("\(routeName): a header name is empty") }
            let lowercased = Dictionary(grouping: headers.keys, by: { $0.lowercased() })
            for (_, names) in lowercased where names.count > 1 {
                fail("\(routeName): headers \(names.sorted().joined(separator: " and ")) are the same header (names are case-insensitive)")
            }
        }
        if case .invalid(let message, let location)? = definition.body?.rule {
            fail("\(message) (\(routeName))", at: location)
        }
        if let scenario = definition.scenario {
            if scenario.scenario.isEmpty { fail("\(routeName): when: ScenarioState has an empty scenario name") }
            if scenario.state.isEmpty { fail("\(routeName): when: ScenarioState(\"\(scenario.scenario)\", \"\") has an empty state") }
        }
        if definition.responses.isEmpty {
            warning("\(routeName): no responses were given, so no route was registered")
        }

        for (index, response) in definition.responses.enumerated() {
            var position: String { "\(routeName), response \(index + 1) of \(definition.responses.count)" }
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
            if response.lifetime == .eternal, index < definition.responses.count - 1 {
                warning("\(position) is .eternal, so the \(definition.responses.count - 1 - index) response(s) after it are never served")
            }
        }

        guard !problems.contains(where: { $0.severity == .error }), let host, let path else { return (nil, problems) }
        let key = RouteKey(
            host: host, path: path, method: definition.method,
            query: definition.query.map { QueryRequirement(values: $0, matching: definition.matching) },
            headers: definition.headers.map(HeaderRequirement.init),
            body: definition.body,
            predicate: definition.predicate.map { test in
                var predicate = RequestPredicate(test)
                predicate.explanation = definition.predicateExplanation
                predicate.isInternal = definition.isInternal
                return predicate
            },
            scenario: definition.scenario)
        return (key, problems)
    }
}

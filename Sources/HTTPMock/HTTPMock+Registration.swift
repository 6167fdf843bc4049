extension HTTPMock {
    /// Queues `responses` for requests to `path` on `host`.
    ///
    /// ```swift
    /// mock.addResponses(forPath: "/user", host: "api.example.com", method: .get,
    ///                   query: ["q": "swift"], matching: .contains,
    ///                   responses: [.encodable(user), .empty(status: .notFound)])
    /// ```
    ///
    /// Responses are served first in, first out, each as often as its ``Lifetime`` says. When
    /// several routes match, the most specific one that still has a response answers
    /// (<doc:Matching> has the precedence rules).
    /// Registering the same route again appends to its queue. A mistake (a malformed host or
    /// path, an invalid status, a response that could not be built) is reported as a test
    /// failure at this call site (or the response factory's) and nothing is registered.
    ///
    /// - Parameters:
    ///   - path: The request path. `/a/`, `a` and `/a` are the same path. A segment may be `*`
    ///     (any one segment), `**` (any number, including none) or `:name` (any one segment,
    ///     captured into ``MockRequest/pathParameters``), or hold a `*` inside (`*.json`).
    ///   - host: The host, compared case-insensitively; `nil` means ``defaultDomain``. A label
    ///     may be `*` (one label) or `**` (one or more), or hold a `*` inside (`api-*`). Name a
    ///     port (`localhost:8080`) to match only that port; otherwise any port matches. IPv6
    ///     addresses go in brackets (`[::1]:8080`).
    ///   - method: The method; `nil` matches any method.
    ///   - query: Query parameters the request must carry; `nil` matches any query. A
    ///     `[String: String]` variable is accepted too.
    ///   - matching: `.exact` (the default): exactly these keys; `.contains`: at least these.
    ///   - headers: Request headers that must be present (names case-insensitive, `.any` for
    ///     presence); other headers are ignored. A `[String: String]` variable is accepted too.
    ///   - body: What the request body must hold. See ``BodyMatcher``.
    ///   - predicate: Any other condition. Runs outside HTTPMock's lock, so it may call back
    ///     into the instance. Each registration with a predicate is its own route.
    ///   - scenario: The scenario state the route needs (``ScenarioState``); while the scenario
    ///     is in another state the route is not a candidate. `nil`: any state.
    ///   - responses: The responses to queue, in order.
    ///   - fileID: The call site, for error reports; leave the default.
    ///   - filePath: The call site, for error reports; leave the default.
    ///   - line: The call site, for error reports; leave the default.
    ///   - column: The call site, for error reports; leave the default.
    public func addResponses(
        forPath path: String,
        host: String? = nil,
        method: HTTPMethod? = nil,
        query: [String: MatchValue]? = nil,
        matching: QueryMatching = .exact,
        headers: [String: MatchValue]? = nil,
        body: BodyMatcher? = nil,
        where predicate: (@Sendable (MockRequest) -> Bool)? = nil,
        when scenario: ScenarioState? = nil,
        responses: [MockResponse],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let definition = RouteSpec(
            path: path, host: host, method: method, query: query, matching: matching,
            headers: headers, body: body, predicate: predicate, scenario: scenario, responses: responses,
            location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        Registration.register([definition], on: registry, defaultDomain: defaultDomain)
    }

    /// Queues the responses the builder lists for requests to `path` on `host`.
    ///
    /// ```swift
    /// mock.addResponses(forPath: "/user", host: "api.example.com") {
    ///     MockResponse.encodable(user)
    ///     MockResponse.empty(status: .notFound)
    /// }
    /// ```
    ///
    /// Same rules as ``addResponses(forPath:host:method:query:matching:headers:body:where:when:responses:fileID:filePath:line:column:)-(_,_,_,[String:MatchValue]?,_,[String:MatchValue]?,_,_,_,_,_,_,_,_)``.
    public func addResponses(
        forPath path: String,
        host: String? = nil,
        method: HTTPMethod? = nil,
        query: [String: MatchValue]? = nil,
        matching: QueryMatching = .exact,
        headers: [String: MatchValue]? = nil,
        body: BodyMatcher? = nil,
        where predicate: (@Sendable (MockRequest) -> Bool)? = nil,
        when scenario: ScenarioState? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @MockResponseBuilder responses: () -> [MockResponse]
    ) {
        addResponses(
            forPath: path, host: host, method: method, query: query, matching: matching,
            headers: headers, body: body, where: predicate, when: scenario,
            responses: responses(), fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

// `query:` and `headers:` given as `[String: String]` values (variables, not only literals).
extension HTTPMock {
    /// `addResponses(forPath:host:method:query:matching:headers:body:where:when:responses:fileID:filePath:line:column:)`
    /// with the query from a `[String: String]` value.
    @_disfavoredOverload
    public func addResponses(
        forPath path: String, host: String? = nil, method: HTTPMethod? = nil,
        query: [String: String], matching: QueryMatching = .exact, headers: [String: MatchValue]? = nil,
        body: BodyMatcher? = nil, where predicate: (@Sendable (MockRequest) -> Bool)? = nil,
        when scenario: ScenarioState? = nil,
        responses: [MockResponse],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        addResponses(
            forPath: path, host: host, method: method, query: query.matchValues, matching: matching,
            headers: headers, body: body, where: predicate, when: scenario, responses: responses,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// `addResponses(forPath:host:method:query:matching:headers:body:where:when:responses:fileID:filePath:line:column:)`
    /// with the headers from a `[String: String]` value.
    @_disfavoredOverload
    public func addResponses(
        forPath path: String, host: String? = nil, method: HTTPMethod? = nil,
        query: [String: MatchValue]? = nil, matching: QueryMatching = .exact, headers: [String: String],
        body: BodyMatcher? = nil, where predicate: (@Sendable (MockRequest) -> Bool)? = nil,
        when scenario: ScenarioState? = nil,
        responses: [MockResponse],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        addResponses(
            forPath: path, host: host, method: method, query: query, matching: matching,
            headers: headers.matchValues, body: body, where: predicate, when: scenario, responses: responses,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// `addResponses(forPath:host:method:query:matching:headers:body:where:when:responses:fileID:filePath:line:column:)`
    /// with the query and the headers from `[String: String]` values.
    @_disfavoredOverload
    public func addResponses(
        forPath path: String, host: String? = nil, method: HTTPMethod? = nil,
        query: [String: String], matching: QueryMatching = .exact, headers: [String: String],
        body: BodyMatcher? = nil, where predicate: (@Sendable (MockRequest) -> Bool)? = nil,
        when scenario: ScenarioState? = nil,
        responses: [MockResponse],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        addResponses(
            forPath: path, host: host, method: method, query: query.matchValues, matching: matching,
            headers: headers.matchValues, body: body, where: predicate, when: scenario, responses: responses,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// The builder variant, with the query from a `[String: String]` value.
    @_disfavoredOverload
    public func addResponses(
        forPath path: String, host: String? = nil, method: HTTPMethod? = nil,
        query: [String: String], matching: QueryMatching = .exact, headers: [String: MatchValue]? = nil,
        body: BodyMatcher? = nil, where predicate: (@Sendable (MockRequest) -> Bool)? = nil,
        when scenario: ScenarioState? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @MockResponseBuilder responses: () -> [MockResponse]
    ) {
        addResponses(
            forPath: path, host: host, method: method, query: query.matchValues, matching: matching,
            headers: headers, body: body, where: predicate, when: scenario, responses: responses(),
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// The builder variant, with the headers from a `[String: String]` value.
    @_disfavoredOverload
    public func addResponses(
        forPath path: String, host: String? = nil, method: HTTPMethod? = nil,
        query: [String: MatchValue]? = nil, matching: QueryMatching = .exact, headers: [String: String],
        body: BodyMatcher? = nil, where predicate: (@Sendable (MockRequest) -> Bool)? = nil,
        when scenario: ScenarioState? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @MockResponseBuilder responses: () -> [MockResponse]
    ) {
        addResponses(
            forPath: path, host: host, method: method, query: query, matching: matching,
            headers: headers.matchValues, body: body, where: predicate, when: scenario, responses: responses(),
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// The builder variant, with the query and the headers from `[String: String]` values.
    @_disfavoredOverload
    public func addResponses(
        forPath path: String, host: String? = nil, method: HTTPMethod? = nil,
        query: [String: String], matching: QueryMatching = .exact, headers: [String: String],
        body: BodyMatcher? = nil, where predicate: (@Sendable (MockRequest) -> Bool)? = nil,
        when scenario: ScenarioState? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @MockResponseBuilder responses: () -> [MockResponse]
    ) {
        addResponses(
            forPath: path, host: host, method: method, query: query.matchValues, matching: matching,
            headers: headers.matchValues, body: body, where: predicate, when: scenario, responses: responses(),
            fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

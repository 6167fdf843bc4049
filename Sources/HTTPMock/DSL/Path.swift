/// A path in a `registerResponses { … }` tree; its body holds the responses queued for it,
/// `Headers` blocks and nested `Path` blocks (whose paths are appended to this one).
///
/// ```swift
/// Path("/admin") {
///     Headers(["X-Env": "AdminOnly"], cascade: false)   // this path's responses only
///     MockResponse.empty(status: .unauthorized)
///     Path("/audit") { MockResponse.encodable(audit) }   // GET /admin/audit
/// }
/// Path("/search", query: ["q": "swift", "page": "1"]) { … }
/// Path("/users", method: .post) { MockResponse.empty(status: .created) }
/// ```
///
/// `method`, `query`, `matching`, `headers`, `body`, `where` and `when` belong to this path alone;
/// nested paths do not inherit them. The path may hold patterns: `*` (also inside a segment: `*.json`), `**`, `:name`.
public struct Path: Sendable {
    let path: String
    let method: HTTPMethod?
    let query: [String: MatchValue]?
    let matching: QueryMatching
    let headers: [String: MatchValue]?
    let body: BodyMatcher?
    let predicate: (@Sendable (MockRequest) -> Bool)?
    let scenario: ScenarioState?
    let components: [RouteComponent]
    let location: SourceLocation

    /// - Parameters:
    ///   - path: This segment of the path; `/a/`, `a` and `/a` are the same.
    ///   - method: The method; `nil` (the default) matches any method.
    ///   - query: Query parameters the request must carry; `nil` matches any query. A
    ///     `[String: String]` variable is accepted too.
    ///   - matching: `.exact` (the default) or `.contains`.
    ///   - headers: Request headers that must be present (names case-insensitive, `.any` for
    ///     presence). A `[String: String]` variable is accepted too.
    ///   - body: What the request body must hold. See ``BodyMatcher``.
    ///   - predicate: Any other condition on the request.
    ///   - scenario: The scenario state this path's responses need (``ScenarioState``).
    ///   - content: Responses, `Headers` and nested `Path` blocks.
    ///   - fileID: The call site, for error reports; leave the default.
    ///   - filePath: The call site, for error reports; leave the default.
    ///   - line: The call site, for error reports; leave the default.
    ///   - column: The call site, for error reports; leave the default.
    public init(
        _ path: String,
        method: HTTPMethod? = nil,
        query: [String: MatchValue]? = nil,
        matching: QueryMatching = .exact,
        headers: [String: MatchValue]? = nil,
        body: BodyMatcher? = nil,
        where predicate: (@Sendable (MockRequest) -> Bool)? = nil,
        when scenario: ScenarioState? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @PathBuilder _ content: () -> [RouteComponent]
    ) {
        self.path = path
        self.method = method
        self.query = query
        self.matching = matching
        self.headers = headers
        self.body = body
        self.predicate = predicate
        self.scenario = scenario
        self.components = content()
        self.location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

// `query:` and `headers:` given as `[String: String]` values (variables, not only literals),
// and bstien/HTTPMock's `queryItems:`/`queryMatching:` labels.
extension Path {
    /// `init(_:method:query:matching:headers:body:where:when:fileID:filePath:line:column:_:)` with
    /// the query from a `[String: String]` value.
    @_disfavoredOverload
    public init(
        _ path: String, method: HTTPMethod? = nil, query: [String: String], matching: QueryMatching = .exact,
        headers: [String: MatchValue]? = nil, body: BodyMatcher? = nil,
        where predicate: (@Sendable (MockRequest) -> Bool)? = nil,
        when scenario: ScenarioState? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @PathBuilder _ content: () -> [RouteComponent]
    ) {
        self.init(
            path, method: method, query: query.matchValues, matching: matching, headers: headers, body: body,
            where: predicate, when: scenario, fileID: fileID, filePath: filePath, line: line, column: column, content)
    }

    /// `init(_:method:query:matching:headers:body:where:when:fileID:filePath:line:column:_:)` with
    /// the headers from a `[String: String]` value.
    @_disfavoredOverload
    public init(
        _ path: String, method: HTTPMethod? = nil, query: [String: MatchValue]? = nil, matching: QueryMatching = .exact,
        headers: [String: String], body: BodyMatcher? = nil,
        where predicate: (@Sendable (MockRequest) -> Bool)? = nil,
        when scenario: ScenarioState? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @PathBuilder _ content: () -> [RouteComponent]
    ) {
        self.init(
            path, method: method, query: query, matching: matching, headers: headers.matchValues, body: body,
            where: predicate, when: scenario, fileID: fileID, filePath: filePath, line: line, column: column, content)
    }

    /// `init(_:method:query:matching:headers:body:where:when:fileID:filePath:line:column:_:)` with
    /// the query and the headers from `[String: String]` values.
    @_disfavoredOverload
    public init(
        _ path: String, method: HTTPMethod? = nil, query: [String: String], matching: QueryMatching = .exact,
        headers: [String: String], body: BodyMatcher? = nil,
        where predicate: (@Sendable (MockRequest) -> Bool)? = nil,
        when scenario: ScenarioState? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @PathBuilder _ content: () -> [RouteComponent]
    ) {
        self.init(
            path, method: method, query: query.matchValues, matching: matching, headers: headers.matchValues,
            body: body, where: predicate, when: scenario, fileID: fileID, filePath: filePath, line: line, column: column, content)
    }

    /// bstien/HTTPMock's spelling.
    @available(*, deprecated, renamed: "init(_:query:matching:_:)")
    public init(
        _ path: String, queryItems: [String: String]?, queryMatching: QueryMatching = .exact,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @PathBuilder _ content: () -> [RouteComponent]
    ) {
        self.init(
            path, query: queryItems?.matchValues, matching: queryMatching,
            fileID: fileID, filePath: filePath, line: line, column: column, content)
    }

    /// bstien/HTTPMock's spelling.
    @available(*, deprecated, renamed: "init(_:matching:_:)")
    public init(
        _ path: String, queryMatching: QueryMatching,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @PathBuilder _ content: () -> [RouteComponent]
    ) {
        self.init(
            path, query: nil, matching: queryMatching,
            fileID: fileID, filePath: filePath, line: line, column: column, content)
    }
}

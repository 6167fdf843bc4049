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
/// `method`, `query`, `matching`, `headers`, `body` and `where` belong to this path alone;
/// nested paths do not inherit them. The path may hold patterns: `*`, `**`, `:name`.
public struct Path: Sendable {
    let path: String
    let method: HTTPMethod?
    let query: [String: MatchValue]?
    let matching: QueryMatching
    let headers: [String: MatchValue]?
    let body: BodyMatcher?
    let predicate: (@Sendable (MockRequest) -> Bool)?
    let components: [RouteComponent]
    let location: SourceLocation

    /// - Parameters:
    ///   - path: This segment of the path; `/a/`, `a` and `/a` are the same.
    ///   - method: The method; `nil` (the default) matches any method.
    ///   - query: Query parameters the request must carry; `nil` matches any query.
    ///   - matching: `.exact` (the default) or `.contains`.
    ///   - headers: Request headers that must be present (names case-insensitive, `.any` for presence).
    ///   - body: What the request body must hold. See ``BodyMatcher``.
    ///   - predicate: Any other condition on the request.
    ///   - content: Responses, `Headers` and nested `Path` blocks.
    public init(
        _ path: String,
        method: HTTPMethod? = nil,
        query: [String: MatchValue]? = nil,
        matching: QueryMatching = .exact,
        headers: [String: MatchValue]? = nil,
        body: BodyMatcher? = nil,
        where predicate: (@Sendable (MockRequest) -> Bool)? = nil,
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
        self.components = content()
        self.location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

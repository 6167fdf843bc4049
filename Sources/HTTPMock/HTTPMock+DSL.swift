extension HTTPMock {
    /// Registers a tree of hosts, paths, headers and responses on this instance.
    ///
    /// ```swift
    /// mock.registerResponses {
    ///     Host("api.example.com") {
    ///         Headers(["X-Env": "Test"], cascade: true)
    ///         Path("/profile") { MockResponse.encodable(profile) }
    ///         Path("/admin") {
    ///             Headers(["X-Env": "AdminOnly"], cascade: false)
    ///             MockResponse.empty(status: .unauthorized)
    ///             Path("/audit") { MockResponse.encodable(audit) }   // /admin/audit
    ///         }
    ///         Path("/search", query: ["q": "swift", "page": "1"], matching: .exact) { … }
    ///         Path("/users", method: .post) { MockResponse.empty(status: .created) }
    ///     }
    /// }
    /// ```
    ///
    /// Each `Path` with responses becomes one route, exactly as
    /// ``addResponses(forPath:host:method:query:matching:headers:body:where:when:responses:fileID:filePath:line:column:)-(_,_,_,[String:MatchValue]?,_,[String:MatchValue]?,_,_,_,_,_,_,_,_)``
    /// would register it (same queues, same precedence). A `Path` at the top level uses
    /// ``defaultDomain``. Builders accept `if`, `switch`, `for` and `#available`.
    /// The whole tree is validated first: if any part of it has a mistake, every mistake is
    /// reported at its `Path` (or response factory) and nothing from the tree is registered.
    public func registerResponses(
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @RegistrationBuilder _ content: () -> [RouteComponent]
    ) {
        Registration.register(Flattening.definitions(from: content()), on: registry, defaultDomain: defaultDomain)
    }

    /// Registers a tree of hosts, paths, headers and responses on ``shared``.
    /// See ``registerResponses(fileID:filePath:line:column:_:)``.
    public static func registerResponses(
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @RegistrationBuilder _ content: () -> [RouteComponent]
    ) {
        shared.registerResponses(fileID: fileID, filePath: filePath, line: line, column: column, content)
    }
}

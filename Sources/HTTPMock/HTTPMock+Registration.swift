extension HTTPMock {
    /// Queues `responses` for requests to `path` on `host`.
    ///
    /// ```swift
    /// mock.addResponses(forPath: "/user", host: "api.example.com", method: .get,
    ///                   query: ["q": "swift"], matching: .contains,
    ///                   responses: [.encodable(user), .empty(status: .notFound)])
    /// ```
    ///
    /// Responses are served first in, first out, each as often as its ``Lifetime`` says.
    /// Registering the same route again appends to its queue. A mistake (a malformed host or
    /// path, an invalid status, a response that could not be built) is reported as a test
    /// failure at this call site (or the response factory's) and nothing is registered.
    ///
    /// - Parameters:
    ///   - path: The request path. `/a/`, `a` and `/a` are the same path.
    ///   - host: The host, compared case-insensitively; `nil` means ``defaultDomain``. Name a
    ///     port (`localhost:8080`) to match only that port; otherwise any port matches.
    ///   - method: The method; `nil` matches any method.
    ///   - query: Query parameters the request must carry; `nil` matches any query.
    ///   - matching: `.exact` (the default): exactly these keys; `.contains`: at least these.
    ///   - responses: The responses to queue, in order.
    public func addResponses(
        forPath path: String,
        host: String? = nil,
        method: HTTPMethod? = nil,
        query: [String: QueryValue]? = nil,
        matching: QueryMatching = .exact,
        responses: [MockResponse],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let definition = RouteDefinition(
            path: path, host: host, method: method, query: query, matching: matching, responses: responses,
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
    /// Same rules as ``addResponses(forPath:host:method:query:matching:responses:fileID:filePath:line:column:)``.
    public func addResponses(
        forPath path: String,
        host: String? = nil,
        method: HTTPMethod? = nil,
        query: [String: QueryValue]? = nil,
        matching: QueryMatching = .exact,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @MockResponseBuilder responses: () -> [MockResponse]
    ) {
        addResponses(forPath: path, host: host, method: method, query: query, matching: matching,
                     responses: responses(), fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

import Foundation

// bstien/HTTPMock's instance API (October 2025), so code written against it compiles
// unchanged. Each deprecated spelling says what to write instead; the Migrating article
// (Docs/HTTPMock.docc/Migrating.md) maps them.

extension HTTPMock {
    /// The session `.passthrough` requests (by ``unmockedPolicy`` or by
    /// ``MockResponse/passthrough(lifetime:delivery:)``) are sent with: the one given to
    /// ``init(passthroughSession:fileID:filePath:line:column:)``, else a plain ephemeral session
    /// without HTTPMock.
    public var passthroughSession: URLSession { registry.passthroughSession }

    /// bstien/HTTPMock's `addResponses(forPath:host:queryItems:queryMatching:responses:)`.
    @available(*, deprecated, renamed: "addResponses(forPath:host:query:matching:responses:)")
    public func addResponses(
        forPath path: String,
        host: String? = nil,
        queryItems: [String: String]?,
        queryMatching: QueryMatching = .exact,
        responses: [MockResponse],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        addResponses(
            forPath: path, host: host, query: queryItems?.matchValues, matching: queryMatching,
            responses: responses, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// bstien/HTTPMock's `addResponses(forPath:host:queryMatching:responses:)`.
    @available(*, deprecated, renamed: "addResponses(forPath:host:matching:responses:)")
    public func addResponses(
        forPath path: String,
        host: String? = nil,
        queryMatching: QueryMatching,
        responses: [MockResponse],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        addResponses(
            forPath: path, host: host, query: nil, matching: queryMatching,
            responses: responses, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// bstien/HTTPMock's `registerResponses(host:) { Path … }`: the paths (and responses for `/`)
    /// of one host.
    @available(*, deprecated, message: "wrap the paths in a Host: registerResponses { Host(\"api.example.com\") { Path(…) { … } } }")
    public func registerResponses(
        host: String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @PathBuilder _ content: () -> [RouteComponent]
    ) {
        let components = content()
        let root = Path("/", fileID: fileID, filePath: filePath, line: line, column: column) { components }
        let tree = Host(host, fileID: fileID, filePath: filePath, line: line, column: column) { root }
        Registration.register(
            Flattening.definitions(from: [RouteComponent(kind: .host(tree))]),
            on: registry, defaultDomain: defaultDomain)
    }

    /// bstien/HTTPMock's convenience for a request through ``urlSession``.
    @available(*, deprecated, message: "call urlSession.data(for: request)")
    public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await urlSession.data(for: request)
    }
}

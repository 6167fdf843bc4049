import Foundation

extension HTTPMock {
    /// Serves the files of `directory` below the path `path`, like a static web server:
    /// `GET /static/a/b.png` answers with `directory/a/b.png`.
    ///
    /// ```swift
    /// try mock.serveFiles(from: fixturesURL.appendingPathComponent("public"), at: "/static")
    /// let (data, _) = try await mock.urlSession.data(from: URL(string: "https://example.com/static/img/logo.png")!)
    /// ```
    ///
    /// Files are looked up when each request arrives (a file added later is served), streamed
    /// like ``MockResponse/file(url:status:headers:lifetime:delivery:fileID:filePath:line:column:)-(_,_,HTTPHeaders,_,_,_,_,_,_)``
    /// bodies, with the `Content-Type` of their extension. A path with no file (or a folder)
    /// gets `404`. A path that would leave the directory — a `..` or `.` segment, encoded or
    /// not, an encoded `/`, a symbolic link to something outside — gets `403` and never a file
    /// outside `directory`. It is one route, `GET <host><path>/**`, answering any number of
    /// requests: the journal records it, a more specific route registered for a path below
    /// wins, and near-miss reports list it like any other.
    ///
    /// - Parameters:
    ///   - directory: The directory to serve.
    ///   - path: The path prefix (literal, no patterns); `/` serves the directory at the root.
    ///   - host: The host; `nil` means ``defaultDomain``, `"**"` any host.
    ///   - fileID: The call site, for error reports; leave the default.
    ///   - filePath: The call site, for error reports; leave the default.
    ///   - line: The call site, for error reports; leave the default.
    ///   - column: The call site, for error reports; leave the default.
    /// - Throws: ``HTTPMockError`` (`.invalidRegistration`) if `directory` is not a readable
    ///   directory, `path` is not a literal path or files are already served at `path` on
    ///   `host`; nothing is registered then.
    public func serveFiles(
        from directory: URL, at path: String = "/", host: String? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws {
        try serveFiles(from: [directory], at: path, host: host, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Serves several directories at one path: the first that holds the requested file answers
    /// (like a repeated `--file-dir`).
    ///
    /// ```swift
    /// try mock.serveFiles(from: [overrides, defaults], at: "/static")
    /// ```
    ///
    /// Otherwise as the single-directory `serveFiles(from:at:host:)`;
    /// a path that leaves any of the directories gets `403`.
    ///
    /// - Parameters:
    ///   - directories: The directories, searched in order; at least one.
    ///   - path: The path prefix (literal, no patterns).
    ///   - host: The host; `nil` means ``defaultDomain``, `"**"` any host.
    ///   - fileID: The call site, for error reports; leave the default.
    ///   - filePath: The call site, for error reports; leave the default.
    ///   - line: The call site, for error reports; leave the default.
    ///   - column: The call site, for error reports; leave the default.
    /// - Throws: ``HTTPMockError`` (`.invalidRegistration`), registering nothing.
    public func serveFiles(
        from directories: [URL], at path: String = "/", host: String? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let roots = try StaticFileRoot.roots(of: directories, caller: "serveFiles")
        let prefix = RoutePath.rawSegments(path)
        if let pattern = try? PathPattern.parse(path), !pattern.isLiteral {
            throw HTTPMockError(.invalidRegistration, "serveFiles: at: \"\(path)\" must be a literal path (no *, ** or :name)")
        }
        let files = StaticFileRoot(roots: roots, prefixCount: prefix.count)
        let response = MockResponse.dynamic(lifetime: .eternal) { request in files.response(for: request) }
        var spec = RouteSpec(
            path: RoutePath.join(prefix + ["**"]), host: host, method: .get, responses: [response], location: location)
        // Registered again, the route would queue this behind the first (eternal) one, unreachable.
        spec.placement = .onlyIfNew
        let orders = try Registration.registerOrThrow(
            [spec], on: registry, defaultDomain: defaultDomain, errors: .init(code: .invalidRegistration, operation: "serveFiles"))
        guard orders.first.flatMap({ $0 }) != nil else {
            throw HTTPMockError(
                .invalidRegistration,
                "serveFiles: GET \(RouteHost.normalize(host ?? defaultDomain))\(spec.path) is already registered; pass every directory in one call: serveFiles(from: [first, second], at: \"\(path)\")"
            )
        }
    }
}

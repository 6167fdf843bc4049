#if Server
import Foundation
import HTTPMock

extension HTTPMock {
    /// Registers the endpoints of Voodoo's YAML configuration files: a file, or every `*.yml`
    /// and `*.yaml` file below a folder.
    ///
    /// Every endpoint becomes a route in this instance's registry (journal, near misses,
    /// `verify()`, store), answering for as long as the instance lives. Bodies render with
    /// Mustache, seeing every `store` key at the top level, `mockServer` and the endpoint's
    /// `templateData` besides the names of `MockResponse.template(_:contentType:status:headers:lifetime:delivery:)`.
    /// JavaScript responses (`javascript:`, `javascriptFile:`) need the package trait
    /// `JavaScript`; their `cache` is this instance's `store`. Voodoo's admin routes
    /// `POST /_admin/shutdown` and `PUT /_admin/delay/:seconds` (`defaultDelay`) come along.
    /// Loading is all or nothing: a mistake in the YAML throws an `HTTPMockError` naming the
    /// file, line and key, and registers nothing. A script that does not compile (or defines no
    /// `response` function) is not such a mistake, as in Voodoo: its endpoint answers 500 with
    /// the message, the rest is registered, and the message is recorded as a test failure at
    /// this call site. See the Voodoo guide.
    ///
    /// ```swift
    /// try mock.loadVoodoo(from: configURL, templateDirectory: templatesURL)
    /// let server = try await mock.startServer()
    /// ```
    ///
    /// - Parameters:
    ///   - url: A YAML file, or a folder read recursively (hidden files skipped, sorted).
    ///   - templateDirectory: Where `template:` bodies and `{{> partials}}` are found (Voodoo's
    ///     `--template-dir`); nothing outside it is read.
    ///   - fileDirectories: Where relative `file:` bodies are looked for after the YAML file's
    ///     folder (Voodoo's `--file-dir`).
    ///   - host: The host the routes answer for; `nil`: any host.
    ///   - fileID: The call site, for reports; leave the default.
    ///   - filePath: The call site, for reports; leave the default.
    ///   - line: The call site, for reports; leave the default.
    ///   - column: The call site, for reports; leave the default.
    public func loadVoodoo(
        from url: URL, templateDirectory: URL? = nil, fileDirectories: [URL] = [], host: String? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws {
        try loadVoodoo(
            from: url, templateDirectory: templateDirectory, fileDirectories: fileDirectories, host: host, shutdown: nil,
            warn: { [weak self] message in
                self?.reportRegistrationMistake(message, fileID: fileID, filePath: filePath, line: line, column: column)
            })
    }

    /// `loadVoodoo(from:templateDirectory:fileDirectories:host:fileID:filePath:line:column:)` with
    /// what `POST /_admin/shutdown` does (the CLI stops; without it, the route answers and nothing
    /// stops) and where the messages of scripts that do not load go. Scripts' `console.log` lines
    /// and failures go to ``serverLogger``.
    @_spi(CLI)
    public func loadVoodoo(
        from url: URL, templateDirectory: URL?, fileDirectories: [URL], host: String?, shutdown: (@Sendable () -> Void)?,
        warn: (String) -> Void
    ) throws {
        #if JavaScript
        // The instance's log when it was given one; else standard error, silent while
        // `logHandler` is nil (as before swift-log). Looked up per message.
        let scripts: VoodooScriptEngine? = VoodooScriptEngine { [weak self] in
            guard let self else { return nil }
            return self.serverLogger ?? (self.logHandler == nil ? nil : ServerLog.standardError)
        }
        #else
        let scripts: VoodooScriptEngine? = nil
        #endif
        var loader = VoodooLoader(
            mock: self, templateDirectory: templateDirectory?.standardizedFileURL,
            fileDirectories: fileDirectories.map(\.standardizedFileURL),
            host: host ?? "**", scripts: scripts)
        try loader.load(url.standardizedFileURL)
        let graphQLGuard = loader.graphQL.isUsed ? [loader.graphQL.guardRoute(host: host ?? "**")] : []
        try register(
            loader.routes + graphQLGuard + voodooAdminRoutes(host: host ?? "**", shutdown: shutdown), code: .mockTree,
            operation: "loadVoodoo")
        for warning in loader.warnings { warn(warning) }
    }

    private func voodooAdminRoutes(host: String, shutdown: (@Sendable () -> Void)?) -> [RouteSpec] {
        // `.delayed(0)`, not `.instant`: `defaultDelay` (what `/_admin/delay` sets) is for the
        // mocks, and the admin routes answer at once whatever it is.
        let shutdownResponse = MockResponse.dynamic(lifetime: .eternal, delivery: .delayed(0)) { _ in
            if let shutdown {
                // After the answer has left.
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { shutdown() }
            }
            return .plaintext("Shutting down.")
        }
        let delayResponse = MockResponse.dynamic(lifetime: .eternal, delivery: .delayed(0)) { [weak self] request in
            let text = request.pathParameters["seconds"] ?? ""
            guard let seconds = Double(text), seconds.isFinite, (0...ServerSettings.maximumDelay).contains(seconds) else {
                return .plaintext(
                    "The delay must be a number of seconds from 0 to \(Int(ServerSettings.maximumDelay)), got \(text).", status: 400)
            }
            self?.defaultDelay = seconds
            return .plaintext("The delay is \(text) s.")
        }
        // Voodoo's own endpoints, not the user's: no near-miss report lists them (an always-true
        // predicate carries the mark).
        return [
            (path: "/_admin/shutdown", method: HTTPMethod.post, response: shutdownResponse),
            (path: "/_admin/delay/:seconds", method: .put, response: delayResponse),
        ].map { path, method, response in
            var route = RouteSpec(path: path, host: host, method: method, responses: [response], file: "Voodoo admin", line: 1)
            route.predicate = { _ in true }
            route.isInternal = true
            return route
        }
    }
}
#endif

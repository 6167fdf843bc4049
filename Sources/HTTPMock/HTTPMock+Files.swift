extension HTTPMock {
    /// Registers every mock of an Espresso-Martini-style folder tree.
    ///
    /// ```
    /// Mocks/users/GET/configuration.json         → GET /users
    /// Mocks/users/:id/GET/configuration.json     → GET /users/:id
    /// Mocks/users/:id/GET/user.json              ← a response file it names
    /// ```
    /// ```swift
    /// try mock.loadMocks(from: Bundle.module.url(forResource: "Mocks", withExtension: nil)!, host: "api.example.com")
    /// ```
    ///
    /// Each folder below `directory` is a path segment (a folder named `*`, `**` or `:name` is a
    /// pattern segment); a folder holding `configuration.json` is named after the HTTP method, in
    /// any case. `configuration.json` is one object or an array (queued in order) of
    /// `{"status_code", "headers", "response_file", "delay", "lifetime"}`, every key optional:
    /// status 200, no headers, no body, no delay, `"single"` by default; `lifetime` is `"single"`,
    /// `"eternal"` or a count; `delay` is in seconds; `response_file` is relative to the method
    /// folder and streamed from disk when served, `Content-Type` from its extension unless
    /// `headers` gives one. Files outside method folders are ignored.
    ///
    /// Loading is atomic: if anything in the tree is wrong (an unknown method folder, malformed
    /// JSON, an unknown key, a value of the wrong type, a missing response file, an unreadable
    /// folder, a malformed pattern), it throws ``HTTPMockError`` (code `.mockTree`) naming the
    /// file (with line and column for malformed JSON), and nothing from the tree is registered.
    ///
    /// - Parameters:
    ///   - directory: The root of the tree; it is not a path segment itself.
    ///   - host: The host of every route; `nil` (the default) matches any host.
    public func loadMocks(from directory: URL, host: String? = nil) throws(HTTPMockError) {
        let definitions = try MockTree.definitions(in: directory, host: host)
        try Registration.registerOrThrow(definitions, on: registry, defaultDomain: defaultDomain)
    }

    /// What is registered, one line per route, in registration order: the route, its queued
    /// responses and where it was registered — for example after ``loadMocks(from:host:)``.
    ///
    /// ```
    /// GET api.example.com/users — 1 response queued (users/GET/configuration.json:1)
    /// GET api.example.com/users/:id — 2 responses queued, the last .eternal (users/:id/GET/configuration.json:1)
    /// ```
    public func describeRoutes() -> String {
        registry.routeDescriptions().joined(separator: "\n")
    }
}

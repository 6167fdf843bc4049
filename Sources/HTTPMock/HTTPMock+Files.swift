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
    /// pattern segment); a folder holding `configuration.json` is a *method folder*, named after
    /// the HTTP method in any case. `configuration.json` is one object or an array (queued in
    /// order) of `{"status_code", "headers", "response_file", "delay", "lifetime"}`, every key
    /// optional: status 200, no headers, no body, no delay, `"single"` by default; `lifetime` is
    /// `"single"`, `"eternal"` or a count; `delay` is in seconds; `response_file` is relative to
    /// the method folder and streamed from disk when served, `Content-Type` from its extension
    /// unless `headers` gives one. Files outside method folders are ignored, and folders inside a
    /// method folder hold response files, so fixtures can live anywhere. Symbolic links to
    /// folders are followed; every folder is read once.
    ///
    /// Loading is atomic: if anything in the tree is wrong, it throws ``HTTPMockError`` (code
    /// `.mockTree`) naming the file or folder, and nothing from the tree is registered. Mistakes:
    /// an unknown method folder, a method folder without `configuration.json`, a
    /// `configuration.json` inside a method folder, malformed JSON (with line and column), an
    /// unknown key, a value of the wrong type (naming the array entry, the key and the JSON value
    /// received: `status_code must be a number from 100 to 599, got the string "200"`), a missing
    /// response file, an unreadable folder, a folder name that is not UTF-8 (its bytes shown
    /// escaped), a malformed pattern. A symbolic link that loops back into a folder containing it,
    /// or leads into a folder already read, is not followed: it is skipped with a warning naming
    /// the link and its target (to the running test, else standard error), and the rest loads.
    ///
    /// The function is declared `throws`, not `throws(HTTPMockError)` (typed throws on public API
    /// crash Swift 6.3.1 in callers' `catch let error as HTTPMockError`), but everything it throws
    /// is an ``HTTPMockError``.
    ///
    /// - Parameters:
    ///   - directory: The root of the tree; it is not a path segment itself.
    ///   - host: The host of every route; `nil` (the default) matches any host.
    /// - Throws: ``HTTPMockError`` with code `.mockTree`.
    public func loadMocks(from directory: URL, host: String? = nil) throws {
        let (definitions, skipped) = try MockTree.definitions(in: directory, host: host)
        try Registration.registerOrThrow(definitions, on: registry, defaultDomain: defaultDomain)
        MockTree.warn(about: skipped)
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

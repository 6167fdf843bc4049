import Foundation

/// What the `httpmock` CLI needs from an instance beyond the public API: loading a
/// mocks folder that holds the CLI's settings file, the hosts its routes name, and static files
/// that answer only what no route does.
extension HTTPMock {
    /// ``loadMocks(from:host:)`` for the CLI: a `configuration.json` directly in `directory` is
    /// the CLI's settings file (read by ``ServerSettings``), not a misplaced route file.
    package func loadMocks(from directory: URL, host: String? = nil, rootHoldsSettings: Bool) throws {
        let (definitions, skipped) = try MockTree.definitions(in: directory, host: host, rootHoldsSettings: rootHoldsSettings)
        try Registration.registerOrThrow(definitions, on: registry, defaultDomain: defaultDomain)
        MockTree.warn(about: skipped)
    }

    /// The host of every registered route, as registered (`api.example.com`, `*.example.com`,
    /// `**` for any host), in registration order.
    var routeHosts: [String] {
        registry.state.withLock { state in state.routes.routes.map { $0.key.host.description } }
    }

    /// The one literal host the routes name, when every route that names a host names it (routes
    /// for any host, `**`, do not count) and none names a host pattern; `nil` otherwise.
    package var singleRouteHost: String? {
        let named = routeHosts.filter { $0 != "**" }
        guard let first = named.first, !first.contains("*"), named.allSatisfy({ $0 == first }) else { return nil }
        return first
    }

    /// The near-miss report the registry gives `request` when nothing matches it: the text of
    /// the `404` under `.notFound`.
    func nearMissReport(for request: MockRequest) -> String {
        let (routes, queues, scenarios, reveal) = registry.state.withLock { state in
            (
                state.routes.routes, state.routes.routes.map { state.queueState(of: $0) }, state.scenarios,
                state.settings.value.revealSecrets
            )
        }
        let misses = MatchBudget.measure {
            NearMissAnalysis.nearMisses(for: request, routes: routes, queues: queues, scenarios: scenarios, revealSecrets: reveal)
        }
        return NearMissAnalysis.report(for: request, nearMisses: misses, revealSecrets: reveal)
    }

    /// Answers `GET`/`HEAD` requests that no route matches with the files of `directories` (the
    /// first that holds the file answers), and every other miss with the near-miss report in a
    /// `404`, as `.notFound` does: `httpmock serve --file-dir`. Sets ``unmockedPolicy``.
    /// - Returns: Whether the files answer a request, for the CLI's log (a miss they answer is
    ///   no mistake to report).
    /// - Throws: ``HTTPMockError`` when a directory is missing or unreadable; nothing is changed.
    package func answerMissesWithFiles(from directories: [URL]) throws -> @Sendable (MockRequest) -> Bool {
        let files = StaticFileRoot(roots: try StaticFileRoot.roots(of: directories, caller: "--file-dir"), prefixCount: 0)
        let answers: @Sendable (MockRequest) -> MockResponse? = { request in
            request.method == .get || request.method == .head ? files.existingFile(for: request) : nil
        }
        unmockedPolicy = .mock(
            .dynamic(lifetime: .eternal) { [weak self] request in
                if let file = answers(request) { return file }
                let report = self?.nearMissReport(for: request) ?? "No mock for \(request.method) \(request.url.absoluteString)"
                return .plaintext(report, status: .notFound)
            })
        return { answers($0) != nil }
    }
}

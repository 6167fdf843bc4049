/// What HTTPMock did with one request, for ``HTTPMock/logHandler``.
public struct HTTPMockEvent: Sendable, CustomStringConvertible {
    /// The request.
    public let request: MockRequest
    /// Whether a route matched it.
    public let isMatched: Bool
    /// The matched route, `nil` when unmatched.
    public let route: String?
    /// For an unmatched request, why nothing matched.
    public let nearMissReport: String?

    /// The log line: the request and the route that matched it, or the near-miss report.
    public var description: String {
        if let route { return "HTTPMock: \(request) matched \(route)" }
        return "HTTPMock: " + (nearMissReport ?? "No mock for \(request)")
    }
}

/// A log handler, kept in a struct: on this toolchain a closure stored directly in
/// lock-protected state is re-wrapped in a thunk on every read.
struct LogHandler: Sendable {
    let handle: @Sendable (HTTPMockEvent) -> Void
    /// The default handler ignores matched requests, so those need not wait for it.
    var ignoresMatches = false
}

extension HTTPMock {
    /// Called for every request the instance intercepts, matched or not, as it happens: before
    /// the request is answered, outside HTTPMock's lock, on a serial queue of this instance (so
    /// events arrive in order). It never runs on URL loading's queues, which every session of
    /// the process shares on Linux: a slow handler delays only this instance's requests, and a
    /// handler that blocks does not stop a request from timing out. The default,
    /// ``standardErrorMissLogger``, writes unmatched requests to standard error and is silent
    /// otherwise, and leaves out a miss a test failure shows (a `.failTest` miss reported at
    /// once; a miss in the `.httpMock` trait or `withHTTPMock`, reported when they end), so each
    /// miss is printed once; `nil` is silent.
    ///
    /// ```swift
    /// mock.logHandler = { event in logger.debug("\(event)") }   // every match and miss
    /// ```
    public var logHandler: (@Sendable (HTTPMockEvent) -> Void)? {
        get { registry.settings.logHandler?.handle }
        set { registry.updateSettings { $0.logHandler = newValue.map { LogHandler(handle: $0) } } }
    }

    /// Sets a ``logHandler`` that looks at unmatched requests only (the CLI's): matched requests
    /// do not wait for it, so the server answers them on its event loop. Like the default
    /// handler, it is not given a miss that a test failure already shows.
    package func setMissLogHandler(_ handler: @escaping @Sendable (HTTPMockEvent) -> Void) {
        registry.updateSettings { $0.logHandler = LogHandler(handle: handler, ignoresMatches: true) }
    }

    /// Writes each unmatched request, with its near-miss report, to standard error.
    public static let standardErrorMissLogger: @Sendable (HTTPMockEvent) -> Void = { event in
        guard !event.isMatched else { return }
        FileHandle.standardError.write(Data((event.description + "\n").utf8))
    }
}

extension Registry {
    /// What both transports do once a request is resolved: a `.failTest` miss is reported to
    /// XCTest at once; returns the log handler to call and its event, if any (the caller runs it
    /// on ``logQueue``, off the work queue every session shares, and answers the request after).
    /// A miss for a Swift Testing test goes to its ``MissInbox`` the same way, before the log
    /// handler, so the test has its issue before the client has its error.
    func report(_ resolution: Resolution) -> (LogHandler, HTTPMockEvent)? {
        let route: String?
        let logHandler = resolution.settings.value.logHandler
        var inbox: MissInbox?
        switch resolution.answer {
        case .matched(let matched, _):
            route = matched
        case .unmatched(let policy):
            route = nil
            if case .failTest = policy.kind, let report = resolution.nearMissReport {
                if Reporter.reportMissNow(report, at: creationLocation) {
                    markReported(journalID: resolution.journalID)
                    // The test's report shows the miss: the default logger does not print it a second time.
                    if logHandler?.ignoresMatches == true { return nil }
                } else {
                    inbox = missInbox.withLock { $0 }
                }
            }
            // Each miss is printed once: in a scope that verifies at its end, by its failure.
            if case .passthrough = policy.kind {
            } else if inbox == nil, logHandler?.ignoresMatches == true, isVerifiedAtScopeEnd.withLock({ $0 }) {
                return nil
            }
        }
        let event = HTTPMockEvent(
            request: resolution.request, isMatched: route != nil, route: route, nearMissReport: resolution.nearMissReport)
        if let inbox, let report = resolution.nearMissReport {
            let journalID = resolution.journalID
            let location = creationLocation
            let handle: @Sendable (HTTPMockEvent) -> Void = { [self] event in
                if inbox.deliver(report, at: location) {
                    markReported(journalID: journalID)
                    if logHandler?.ignoresMatches == true { return }
                }
                logHandler?.handle(event)
            }
            return (LogHandler(handle: handle), event)
        }
        guard let handler = logHandler, route == nil || !handler.ignoresMatches else { return nil }
        return (handler, event)
    }
}

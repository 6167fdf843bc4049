/// A route that still has responses nobody asked for.
public struct PendingResponse: Sendable, Hashable, CustomStringConvertible {
    /// The route, as the journal names it: `GET api.example.com/user`.
    public let route: String
    /// How many of its queued responses (not counting `.eternal` ones) were never served; a
    /// `.multiple(n)` response counts once until all its uses are served.
    public let count: Int

    /// The route and how many responses it still holds (`GET api.example.com/users: 2 pending`).
    public var description: String { "\(route): \(count) pending" }
}

extension HTTPMock {
    /// Routes with queued responses that were never served, one element per route, in
    /// registration order. `.eternal` responses are never pending.
    public var pendingResponses: [PendingResponse] {
        registry.pending.map { PendingResponse(route: $0.route.key.description, count: $0.count) }
    }

    /// Records a test failure for every unmatched request and every route with pending
    /// responses that earlier calls did not report, and returns their messages (empty when all
    /// is well).
    ///
    /// ```swift
    /// defer { mock.verify() }
    /// ```
    ///
    /// An unmatched request's message is its near-miss report: the closest registrations and,
    /// per field, why each did not match. Requests sent to the network by the `.passthrough`
    /// policy are not misses. Failures go to the running Swift Testing test (when called on its
    /// task), else to the running XCTest test case, else to standard error; requests are
    /// reported at this call site, pending routes at the line that registered them. When no
    /// request at all reached the instance, the first pending route's message says so and names
    /// the fix (inject ``urlSession``, or ``interceptSharedSession(fileID:filePath:line:column:)``).
    @discardableResult
    public func verify(fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column) -> [String] {
        verify(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    @discardableResult
    func verify(at location: SourceLocation) -> [String] {
        let (misses, pending, reachedByNone) = registry.takeUnverified()
        var messages: [String] = []
        for miss in misses {
            let message = miss.nearMissReport ?? "No mock for \(miss.request.method) \(miss.request.url.absoluteString)"
            messages.append(message)
            Reporter.fail(message, at: location)
        }
        for (offset, (route, count)) in pending.enumerated() {
            let place = route.location.map { " (registered at \($0))" } ?? ""
            var message = "\(route.key): \(count) queued response\(count == 1 ? " was" : "s were") never requested\(place)"
            // Most often the code under test never used this instance's session: say so once,
            // with the fix, rather than leave a list of unrequested routes to puzzle over.
            if offset == 0, reachedByNone { message += "\n" + Self.noRequestReachedHint }
            messages.append(message)
            Reporter.fail(message, at: route.location ?? location)
        }
        return messages
    }

    /// Said with the first unrequested route when no request at all reached the instance.
    static let noRequestReachedHint =
        "No request reached this HTTPMock instance at all: the code under test did not use its session, and may have "
        + "reached the real network. Inject `mock.urlSession` (or a session made from `mock.makeSessionConfiguration()`) "
        + "into the code under test, or call `mock.interceptSharedSession()` when it uses `URLSession.shared`."
}

import Foundation

/// A request the HTTP server sends on to another server, streaming the answer back as it
/// arrives (``MockResponse/forward(to:lifetime:delivery:)`` to an `http://` or `https://` base, WireMock's
/// `proxyBaseUrl`, `httpmock serve --forward-unmatched`): the server's own client reads the
/// upstream body only as fast as its client takes it, so memory stays bounded whatever the
/// upstream sends. The in-process transport runs the forward's handler instead.
package struct ServedForward: Sendable {
    /// Where the request goes: the base URL, then the request's path and query.
    package let url: URL
    /// The request's method.
    package let method: String
    /// The request's header fields, `Host` aside (the upstream's own is sent).
    package let headers: [(name: String, value: String)]
    /// The request's body.
    package let body: Data?
    /// How long the upstream may keep the answer waiting (``HTTPMock/forwardTimeout``): for its
    /// head, then between reads of its body.
    package let timeout: TimeInterval
    fileprivate let registry: Registry
    fileprivate let journalID: Int

    /// Journals what the upstream answered: its status as the request's outcome, its head, and
    /// its body once it has all gone through (`nil` while it streams, or when it was larger than
    /// ``keptBodyLimit``: then only its size went by).
    package func journal(status: Int, headers: [(name: String, value: String)], body: Data? = nil) {
        var fields: [String: String] = [:]
        for (name, value) in headers { fields[name] = value }
        registry.recordServed(
            journalID: journalID,
            ServedResponse(statusCode: status, headerFields: fields, body: body.map { .data($0) } ?? .none, date: Date()),
            outcome: status)
    }

    /// The largest upstream body the journal keeps, whole, so a recording can replay it: 64 MB,
    /// whatever ``HTTPMock/journalBodyLimit`` (a limit on request bodies) says; what the journal
    /// holds in all is bounded by ``HTTPMock/journalBytesLimit``. A larger body streams through
    /// without being kept, so memory stays bounded whatever the upstream sends, and a
    /// recording of it is refused, naming it. (It was the journal body limit: with the CLI's
    /// 1 MB, recordings replayed larger bodies as 0 bytes under their original length.)
    package var keptBodyLimit: Int { Self.keptBodyLimit }
    package static let keptBodyLimit = 64 * 1024 * 1024

    /// What a 502 says when the upstream refused, failed or answered something that is not HTTP.
    package func failure(_ reason: String) -> String {
        "HTTPMock: forwarding \(method) to \(url.absoluteString) failed: \(reason).\n"
    }
}

extension ServedForward {
    /// The forward of `request` to `base`, when the server streams it (an `http://` or
    /// `https://` base).
    init?(_ request: MockRequest, base: URL, registry: Registry, journalID: Int, timeout: TimeInterval) {
        guard ["http", "https"].contains(base.scheme?.lowercased() ?? ""), let url = Forwarding.target(for: request, base: base) else {
            return nil
        }
        self.url = url
        self.method = request.method.rawValue
        self.headers = request.headers.filter { HTTPHeaders.lowercased($0.name) != "host" }.map { (name: $0.name, value: $0.value) }
        self.body = request.body
        self.timeout = timeout
        self.registry = registry
        self.journalID = journalID
    }
}

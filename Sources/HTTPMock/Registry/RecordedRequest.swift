import Foundation

/// One intercepted request in an instance's journal, with what HTTPMock answered.
///
/// ```swift
/// let posts = mock.requests(to: "/users", method: .post)
/// #expect(posts.count == 1)
/// #expect(posts[0].request.headers["Authorization"] == "Bearer t0k")
/// ```
public struct RecordedRequest: Sendable, CustomStringConvertible {
    // Layout: every request of a run stays in the journal, so an entry is kept small (80 bytes
    // rather than 160): what most requests never set (an error, a near-miss report) lives in
    // `rare`, and the served response is a reference, shared by every request a response
    // complete at once answers (Benchmarks/README.md, "fourth round").

    /// The request, with its body.
    public let request: MockRequest
    /// The matched route, for example `GET api.example.com/user`; `nil` when unmatched.
    public let route: String?
    /// When HTTPMock received the request.
    public let date: Date
    /// Identifies the entry so an answer that arrives later (dynamic, passthrough, a timeout)
    /// can be recorded on it.
    let id: Int
    /// What the client received, for `exportHAR` (set when the response is delivered, or by the
    /// lookup itself for a response complete at once; it holds the values already built for the
    /// client, so keeping it costs no copy).
    var served: ServedResponse?
    private var rare: Rare?
    /// The status code the client received, or `nil` when the request failed.
    public internal(set) var statusCode: Int?
    /// Whether a registered route answered it.
    public let isMatched: Bool
    /// Whether `verify()` reports it: unmatched, and not sent to the network by the
    /// `.passthrough` policy (which is what that policy is for).
    var countsAsMiss: Bool = false

    /// The fields few entries set, replaced as a whole when one changes.
    private final class Rare: Sendable {
        let error: (any Error)?
        let nearMissReport: String?
        /// The size of a body the journal did not keep (``HTTPMock/journalBodyLimit``).
        let droppedBodySize: Int?
        init(error: (any Error)?, nearMissReport: String?, droppedBodySize: Int? = nil) {
            self.error = error
            self.nearMissReport = nearMissReport
            self.droppedBodySize = droppedBodySize
        }
    }

    init(
        request: MockRequest, isMatched: Bool, route: String?, statusCode: Int?, error: (any Error)?, date: Date, id: Int,
        served: ServedResponse?
    ) {
        self.request = request
        self.isMatched = isMatched
        self.route = route
        self.statusCode = statusCode
        self.date = date
        self.id = id
        self.served = served
        self.rare = error.map { Rare(error: $0, nearMissReport: nil) }
    }

    /// The error the request failed with, or `nil` when a response was served.
    public internal(set) var error: (any Error)? {
        get { rare?.error }
        set {
            rare =
                newValue == nil && nearMissReport == nil && droppedBodySize == nil
                ? nil : Rare(error: newValue, nearMissReport: nearMissReport, droppedBodySize: droppedBodySize)
        }
    }

    /// For an unmatched request: why no route matched, with the closest registrations and one
    /// line per field that differs. `nil` for matched requests.
    public internal(set) var nearMissReport: String? {
        get { rare?.nearMissReport }
        set {
            rare =
                newValue == nil && error == nil && droppedBodySize == nil
                ? nil : Rare(error: error, nearMissReport: newValue, droppedBodySize: droppedBodySize)
        }
    }

    /// The size of the request's body in bytes. When the journal kept the size only
    /// (``HTTPMock/journalBodyLimit``), `request.body` is `nil` and this still tells it.
    public var bodySize: Int { droppedBodySize ?? request.body?.count ?? 0 }

    /// Set when the journal dropped the body and kept its size.
    var droppedBodySize: Int? {
        get { rare?.droppedBodySize }
        set { rare = Rare(error: error, nearMissReport: nearMissReport, droppedBodySize: newValue) }
    }

    /// The bytes this entry holds beyond its fixed size, as the journal's byte limit counts
    /// them (``HTTPMock/journalBytesLimit``): the request's body, the near-miss report, and the
    /// body of a response that arrived after the lookup (a handler's, a forward's; a response
    /// complete at once shares its body with its route and is not counted).
    var journalBytes: Int {
        var total = request.body?.count ?? 0
        if let report = rare?.nearMissReport { total += report.utf8.count }
        if let served, served.date != nil, case .data(let data) = served.body { total += data.count }
        return total
    }

    public var description: String {
        let outcome = statusCode.map { "\($0)" } ?? error.map { "error: \(ReadableError.describe($0))" } ?? "no answer"
        return "\(request) -> \(outcome)" + (route.map { " via \($0)" } ?? " (unmatched)")
    }
}

/// The HTTP response a client received, as the transport built it. Immutable and shared: the
/// journal entries of all requests a response complete at once answered hold the same one
/// (``ImmediateAnswer``).
final class ServedResponse: Sendable {
    let statusCode: Int
    let headerFields: [String: String]
    /// The body sent: in-memory bytes are shared, a file is named (its bytes are read on export).
    let body: MockResponse.Body
    /// When the response was handed to the client; `nil` for a response complete at once,
    /// handed over at the moment of the lookup that served it (the entry's ``RecordedRequest/date``).
    let date: Date?

    init(statusCode: Int, headerFields: [String: String], body: MockResponse.Body, date: Date?) {
        self.statusCode = statusCode
        self.headerFields = headerFields
        self.body = body
        self.date = date
    }
}

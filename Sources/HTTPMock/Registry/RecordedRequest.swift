import Foundation

/// One intercepted request in an instance's journal, with what HTTPMock answered.
///
/// ```swift
/// let posts = mock.requests(to: "/users", method: .post)
/// #expect(posts.count == 1)
/// #expect(posts[0].request.headers["Authorization"] == "Bearer t0k")
/// ```
public struct RecordedRequest: Sendable, CustomStringConvertible {
    /// The request, with its body.
    public let request: MockRequest
    /// Whether a registered route answered it.
    public let isMatched: Bool
    /// The matched route, for example `GET api.example.com/user`; `nil` when unmatched.
    public let route: String?
    /// The status code the client received, or `nil` when the request failed.
    public internal(set) var statusCode: Int?
    /// The error the request failed with, or `nil` when a response was served.
    public internal(set) var error: (any Error)?
    /// When HTTPMock received the request.
    public let date: Date
    /// For an unmatched request: why no route matched, with the closest registrations and one
    /// line per field that differs. `nil` for matched requests.
    public internal(set) var nearMissReport: String?
    /// Identifies the entry so an answer that arrives later (dynamic, passthrough, a timeout)
    /// can be recorded on it.
    let id: Int
    /// Whether `verify()` reports it: unmatched, and not sent to the network by the
    /// `.passthrough` policy (which is what that policy is for).
    var countsAsMiss: Bool = false
    /// What the client received, for `exportHAR` (set when the response is delivered, or by the
    /// lookup itself for a response complete at once; it holds the values already built for the
    /// client, so keeping it costs no copy).
    var served: ServedResponse?

    public var description: String {
        let outcome = statusCode.map { "\($0)" } ?? error.map { "error: \(ReadableError.describe($0))" } ?? "no answer"
        return "\(request) -> \(outcome)" + (route.map { " via \($0)" } ?? " (unmatched)")
    }
}

/// The HTTP response a client received, as the transport built it.
struct ServedResponse: Sendable {
    var statusCode: Int
    var headerFields: [String: String]
    /// The body sent: in-memory bytes are shared, a file is named (its bytes are read on export).
    var body: MockResponse.Body
    /// When the response was handed to the client (for a response complete at once, the
    /// moment of the lookup that served it).
    var date: Date
}

extension ServedResponse {
    /// A prepared payload (``MockResponse/HTTPPayload/preparedHeaderFields``) served whole to
    /// `request`: without its body for `HEAD` and the statuses that forbid one.
    init(completing http: MockResponse.HTTPPayload, to request: MockRequest, date: Date) {
        let sendsBody = http.status.sendsBody(to: request.method)
        self.init(
            statusCode: http.status.code, headerFields: http.preparedHeaderFields ?? [:], body: sendsBody ? http.body : .none, date: date)
    }
}

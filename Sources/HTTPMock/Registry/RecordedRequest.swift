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
    /// The status code served, or `nil` when the request failed.
    public let statusCode: Int?
    /// The error the request failed with, or `nil` when a response was served.
    public let error: (any Error)?
    /// When HTTPMock received the request.
    public let date: Date
    /// Identifies the entry so an answer that arrives later (dynamic, passthrough, a timeout)
    /// can be recorded on it.
    let id: Int

    public var description: String {
        let outcome = statusCode.map { "\($0)" } ?? error.map { "error: \($0)" } ?? "no answer"
        return "\(request) -> \(outcome)" + (route.map { " via \($0)" } ?? " (unmatched)")
    }
}

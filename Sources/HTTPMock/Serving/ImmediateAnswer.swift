import Foundation

/// A response that is complete the moment it is resolved, prepared once when it is registered:
/// the values the transport hands the client and the journal keeps, so answering it builds
/// nothing but the `HTTPURLResponse` (``MockResponse/completeAnswer(under:)``).
package final class ImmediateAnswer: Sendable {
    let status: HTTPStatus
    let headerFields: [String: String]
    /// The body, `nil` when empty.
    let body: Data?
    /// The journal's record of it: whole, and without its body (for `HEAD` and the statuses
    /// that forbid one).
    private let served: ServedResponse
    private let servedWithoutBody: ServedResponse
    /// The header fields as the server sends them (``ResponsePlan/Framing/bodySize``):
    /// `Content-Length` is the body's size unless the status forbids a body.
    let wireHeaders: [(name: String, value: String)]

    init(status: HTTPStatus, headerFields: [String: String], body: MockResponse.Body) {
        self.status = status
        self.headerFields = headerFields
        if case .data(let data) = body, !data.isEmpty { self.body = data } else { self.body = nil }
        served = ServedResponse(statusCode: status.code, headerFields: headerFields, body: body, date: nil)
        servedWithoutBody = ServedResponse(statusCode: status.code, headerFields: headerFields, body: .none, date: nil)
        wireHeaders = ResponsePlan.framed(
            HTTPHeaders(headerFields), status: status, body: body, size: self.body?.count ?? 0, framing: .bodySize
        ).map { ($0.name, $0.value) }
    }

    /// The body sent to a `method` request, `nil` when none is.
    func body(to method: HTTPMethod) -> Data? {
        status.sendsBody(to: method) ? body : nil
    }

    /// Whether a body goes on the wire in answer to a `method` request (as
    /// ``WireResponse/sendsBody`` of ``WireResponse/init(_:to:)``).
    package func sendsBody(to method: HTTPMethod) -> Bool {
        body != nil && status.sendsBody(to: method)
    }

    /// The status code sent.
    package var statusCode: Int { status.code }

    /// The journal's record of serving it to a `method` request.
    func served(to method: HTTPMethod) -> ServedResponse {
        status.sendsBody(to: method) ? served : servedWithoutBody
    }
}

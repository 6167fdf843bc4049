#if Server
import HTTPMock

/// What must never reach the wire as it is, checked when a response is written:
/// registration and HAR loading refuse these, but a `.dynamic` handler computes its response
/// per request.
enum WireCheck {
    /// Why `response` cannot be sent, or `nil` when it can.
    static func problem(with response: WireResponse) -> String? {
        if (100...199).contains(response.statusCode) {
            return "its status \(response.statusCode) is an interim (1xx) status; a final response needs 200...599"
        }
        // The same check as at registration (HTTPHeaders.problem), so a handler's header is
        // refused with the same words as a registered one.
        for (name, value) in response.headers {
            if let problem = HTTPHeaders.problem(name: name, value: value) { return problem }
        }
        return nil
    }
}
#endif

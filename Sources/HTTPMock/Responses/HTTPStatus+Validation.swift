/// The one check every front end runs on the status of a final response.
extension HTTPStatus {
    /// Why this status cannot be a final response, or `nil` when it can. A 1xx status is
    /// informational (RFC 9110 §15.2): sent as a final answer, a client takes the next
    /// response on the connection for this one's, so it is refused like a code outside HTTP's range.
    var finalResponseProblem: String? {
        if !isValid { return "status \(code) is not an HTTP status (100...599)" }
        if (100...199).contains(code) {
            return "status \(code) is informational (1xx) and cannot be a final response; use a status from 200 to 599"
        }
        return nil
    }
}

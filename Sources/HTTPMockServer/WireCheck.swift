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
        for (name, value) in response.headers {
            if name.isEmpty || !name.utf8.allSatisfy(isTokenByte) {
                return "the header name \(name.debugDescription) is not an HTTP token"
            }
            if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                return "the value of header \(name) contains a CR, LF or NUL (\(value.debugDescription)), which would split the response"
            }
        }
        return nil
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
#endif

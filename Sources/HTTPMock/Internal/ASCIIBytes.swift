/// Byte classes of the ASCII grammars HTTPMock checks (RFC 5234's core rules, RFC 9110's
/// tokens, RFC 3986's names), in one place for the core and the server.
package enum ASCIIBytes {
    /// `ALPHA / DIGIT` (RFC 5234 appendix B.1).
    package static func isAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            false
        }
    }

    /// RFC 9110 `tchar`: what a header name (a token) is made of.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}

#if Server
import Foundation
import enum HTTPMock.ASCIIBytes
import NIOCore
import NIOHTTP1

// What the server refuses from a request's head, before anything reaches the registry
//: a target over 8 KB (414), a header block over 64 KB (431), a `Host` that is not a
// host or comes twice and a target that is neither a path nor an http(s) URL (400), a declared
// body over `maximumRequestBody` (413).

extension ConnectionHandler {
    /// The status and body to refuse `head` with, or `nil` when it may be served.
    static func refusal(of head: HTTPRequestHead, site: ServingSite) -> (HTTPResponseStatus, String)? {
        let targetSize = head.uri.utf8.count
        if targetSize > maximumTarget {
            return (.uriTooLong, "HTTPMock: the request target is \(targetSize) bytes long; the limit is \(maximumTarget / 1024) KB.\n")
        }
        // One pass over the header fields: the block's size, the `Host` fields, the length.
        var blockSize = head.method.rawValue.utf8.count + targetSize + 12
        var hostCount = 0
        var host: String?
        var contentLength: String?
        var isLoop = false
        for (name, value) in head.headers {
            blockSize += name.utf8.count + value.utf8.count + 4
            if isName(name, "host") {
                hostCount += 1
                if host == nil { host = value }
            } else if contentLength == nil, isName(name, "content-length") {
                contentLength = value
            } else if isName(name, "via"), value.contains(site.hop) {
                isLoop = true
            }
        }
        if isLoop {
            return (
                .loopDetected,
                "HTTPMock: this request was forwarded by this very server (its Via field names \(site.hop)): a forward to the server's own address would loop, so it is answered 508 once.\n"
            )
        }
        if blockSize > maximumHeaderBlock {
            return (.requestHeaderFieldsTooLarge, headerBlockTooLarge)
        }
        if hostCount > 1 {
            return (.badRequest, "HTTPMock: the request has \(hostCount) Host header fields; HTTP/1.1 allows one.\n")
        }
        if let host, !host.isEmpty, !isAuthority(host) {
            return (
                .badRequest, "HTTPMock: the Host header \(host.debugDescription) is not a host name or address with an optional port.\n"
            )
        }
        if head.method != .CONNECT, !isOriginOrHTTPTarget(head.uri, method: head.method) {
            return (
                .badRequest, "HTTPMock: the request target \(head.uri.debugDescription) is neither a path nor an http:// or https:// URL.\n"
            )
        }
        if let length = contentLength.flatMap({ Int($0) }), length > site.maximumRequestBody {
            return (.payloadTooLarge, tooLarge(site.maximumRequestBody))
        }
        return nil
    }

    /// Whether the header field name `name` is `lowercased`, ignoring ASCII case (a field name
    /// is a token: letters, digits and `!#$%&'*+-.^_`|~`, for which setting bit 5 lowercases
    /// letters and changes nothing that `lowercased` can hold).
    private static func isName(_ name: String, _ lowercased: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: lowercased.utf8Start, count: lowercased.utf8CodeUnitCount)
        return name.utf8.count == expected.count && zip(name.utf8, expected).allSatisfy { $0 | 0x20 == $1 }
    }

    /// What a 431 says.
    static let headerBlockTooLarge = "HTTPMock: the request's header block is larger than \(maximumHeaderBlock / 1024) KB.\n"

    /// What a 413 says.
    static func tooLarge(_ limit: Int) -> String {
        "HTTPMock: the request body is larger than the server's maximumRequestBody (\(limit) bytes).\n"
    }

    /// Whether the client waits for `100 Continue` before it sends the body it announced.
    static func expectsContinue(_ head: HTTPRequestHead) -> Bool {
        guard head.version.major == 1, head.version.minor >= 1, head.headers.contains(name: "Expect"),
            head.headers["Expect"].contains(where: { $0.lowercased() == "100-continue" })
        else { return false }
        let length = head.headers.first(name: "Content-Length").flatMap { Int($0) } ?? 0
        return length > 0 || head.headers["Transfer-Encoding"].contains { $0.lowercased().contains("chunked") }
    }

    /// `/path`, `*` for `OPTIONS`, or an absolute `http://` or `https://` URL (a proxy request).
    static func isOriginOrHTTPTarget(_ target: String, method: HTTPMethod) -> Bool {
        if target.utf8.first == UInt8(ascii: "/") { return true }
        if target == "*" { return method == .OPTIONS }
        let lowercased = target.lowercased()
        return lowercased.hasPrefix("http://") || lowercased.hasPrefix("https://")
    }

    /// Whether `value` is `host[:port]` (RFC 9110 §7.2): a registered name or IPv4 address, or
    /// an IPv6 address in brackets, then optionally `:` and digits. No path, user info or space.
    static func isAuthority(_ value: String) -> Bool {
        if value.utf8.first != UInt8(ascii: "[") {
            // A name or IPv4 address, the usual case: read in place.
            var name = 0
            var port: Int?  // digits after the colon
            for byte in value.utf8 {
                if var digits = port {
                    guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 5 else { return false }
                    digits += 1
                    port = digits
                } else if byte == UInt8(ascii: ":") {
                    port = 0
                } else {
                    guard isRegisteredNameByte(byte) else { return false }
                    name += 1
                }
            }
            return name > 0
        }
        // An IPv6 address in brackets.
        let utf8 = Array(value.utf8)
        guard let close = utf8.firstIndex(of: UInt8(ascii: "]")), close > 1 else { return false }
        let inside = utf8[1..<close]
        guard inside.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else { return false }
        let index = close + 1
        guard index < utf8.count else { return true }
        guard utf8[index] == UInt8(ascii: ":") else { return false }
        let port = utf8[(index + 1)...]
        return port.count <= 5 && port.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// RFC 3986 `reg-name`: unreserved, percent-encoded and sub-delimiter characters.
    private static func isRegisteredNameByte(_ byte: UInt8) -> Bool {
        ASCIIBytes.isAlphanumeric(byte) || "-._~%!$&'()*+,;=".utf8.contains(byte)
    }
}
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// IPv6 address text, so `[::1]`, `[0:0::1]` and `[0:0:0:0:0:0:0:1]` are one host.
enum IPv6 {
    /// The canonical text form (RFC 5952, as `inet_ntop` writes it) of an IPv6 address given
    /// without brackets, or `nil` when `text` is not one.
    static func canonical(_ text: String) -> String? {
        guard text.utf8.contains(UInt8(ascii: ":")), text.utf8.count <= 64 else { return nil }
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        var buffer = [CChar](repeating: 0, count: 64)
        guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

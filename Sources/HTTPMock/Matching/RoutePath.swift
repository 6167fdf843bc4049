import Foundation

/// Path and host normalisation shared by registration and lookup, so `/a/`, `a` and `/a` are
/// one path.
enum RoutePath {
    /// A request path as routes see it: empty segments dropped, each segment percent-decoded
    /// (`/a%20b` and `/a b` are one path), joined with `/` behind a leading `/`.
    ///
    /// The path is split on its raw `/` *before* decoding, so an encoded slash stays inside its
    /// segment: `/files/a%2Fb` has two segments, `files` and `a/b`. In the joined form such a
    /// slash is written `%2F` (and a decoded `%` is written `%25`), so the joined path still
    /// says where its segments end; ``segments(ofNormalized:)`` reads it back.
    static func normalize(_ path: String) -> String {
        // Most request paths are already normal (`/a/b`): return them without allocating.
        if isNormal(path) { return path }
        return join(decodedSegments(path).map(encodeSeparators))
    }

    /// The decoded segments of a path made by ``normalize(_:)`` (or of a literal pattern's
    /// `literalPath`): `/files/a%2Fb` → `["files", "a/b"]`.
    static func segments(ofNormalized path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map { segment in
            segment.utf8.contains(UInt8(ascii: "%")) ? decodeSeparators(segment) : String(segment)
        }
    }

    /// `/` → `%2F` and `%` → `%25` in one decoded segment, so it can be joined with `/`.
    static func encodeSeparators(_ segment: String) -> String {
        guard segment.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "%") }) else { return segment }
        var result = ""
        for character in segment.unicodeScalars {
            switch character {
            case "%": result += "%25"
            case "/": result += "%2F"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// The inverse of ``encodeSeparators(_:)``.
    private static func decodeSeparators(_ segment: Substring) -> String {
        // Most segments hold no `%`: Foundation's replacing bridges through `NSString`.
        guard segment.utf8.contains(UInt8(ascii: "%")) else { return String(segment) }
        return segment.replacingOccurrences(of: "%2F", with: "/").replacingOccurrences(of: "%25", with: "%")
    }

    /// Starts with `/`, no `//`, no trailing `/` (unless it is `/`), no `%`.
    private static func isNormal(_ path: String) -> Bool {
        var previous: UInt8 = 0
        var first = true
        for byte in path.utf8 {
            if first {
                guard byte == UInt8(ascii: "/") else { return false }
                first = false
            } else if byte == UInt8(ascii: "/") && previous == UInt8(ascii: "/") {
                return false
            }
            if byte == UInt8(ascii: "%") { return false }
            previous = byte
        }
        return !first && (path.utf8.count == 1 || previous != UInt8(ascii: "/"))
    }

    /// The decoded, non-empty segments of a request path.
    static func decodedSegments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map { String($0).removingPercentEncodingIfValid }
    }

    /// Raw (still encoded) non-empty segments of a registered path, for pattern parsing.
    static func rawSegments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    static func join(_ segments: [String]) -> String {
        segments.isEmpty ? "/" : "/" + segments.joined(separator: "/")
    }

    /// `parent` and `child` joined as nested DSL paths are: `/admin` + `audit/` → `/admin/audit`.
    /// Segments stay encoded; parsing decodes literals.
    static func join(_ parent: String, _ child: String) -> String {
        join(rawSegments(parent) + rawSegments(child))
    }
}

/// Host normalisation: lowercased, no trailing dot, an IPv6 address in brackets (`[::1]`,
/// in its canonical text form), an internationalised name in its ASCII (punycode) form
/// (`bücher.example` → `xn--bcher-kva.example`). A port, when named, stays (`localhost:8080`).
enum RouteHost {
    /// The normalised form of a request's host (as `URL` gives it: IPv6 without brackets, an
    /// internationalised name possibly percent-encoded).
    static func normalize(_ host: String) -> String {
        // Hosts usually arrive lowercased ASCII names: return them without allocating.
        if !host.utf8.contains(where: { ($0 >= 65 && $0 <= 90) || $0 >= 128 || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: ":") })
            && host.utf8.last != UInt8(ascii: ".")
        {
            return host
        }
        if host.utf8.contains(UInt8(ascii: ":")) {
            if host.hasPrefix("[") { return host.lowercased() }
            return "[" + (IPv6.canonical(host) ?? host.lowercased()) + "]"
        }
        var host = host.removingPercentEncodingIfValid.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return asciiName(host) ?? host
    }

    /// `name` with each non-ASCII label in its punycode form (`xn--…`); `nil` when a label
    /// cannot be encoded.
    static func asciiName(_ name: String) -> String? {
        guard name.utf8.contains(where: { $0 >= 128 }) else { return name }
        var labels: [String] = []
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard let ascii = asciiLabel(String(label)) else { return nil }
            labels.append(ascii)
        }
        return labels.joined(separator: ".")
    }

    /// One label in ASCII form: itself when ASCII, else `xn--` and its punycode (lowercased first).
    static func asciiLabel(_ label: String) -> String? {
        guard label.utf8.contains(where: { $0 >= 128 }) else { return label }
        return Punycode.encode(label.lowercased()).map { "xn--" + $0 }
    }
}

extension String {
    /// The percent-decoded string, or `self` when it is not valid percent-encoding.
    var removingPercentEncodingIfValid: String {
        guard containsBytes(of: "%") else { return self }
        return removingPercentEncoding ?? self
    }
}

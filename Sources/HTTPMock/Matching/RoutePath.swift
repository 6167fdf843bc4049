import Foundation

/// Path and host normalisation shared by registration and lookup, so `/a/`, `a` and `/a` are
/// one path.
enum RoutePath {
    /// A request path as routes see it: empty segments dropped, each segment percent-decoded
    /// (`/a%20b` and `/a b` are one path), joined with `/` behind a leading `/`.
    static func normalize(_ path: String) -> String {
        // Most request paths are already normal (`/a/b`): return them without allocating.
        if isNormal(path) { return path }
        return join(decodedSegments(path))
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

/// Host normalisation: lowercased, no trailing dot. A port, when named, stays (`localhost:8080`).
enum RouteHost {
    static func normalize(_ host: String) -> String {
        // Hosts usually arrive lowercased: return them without allocating.
        if !host.utf8.contains(where: { ($0 >= 65 && $0 <= 90) || $0 >= 128 }) && host.utf8.last != UInt8(ascii: ".") {
            return host
        }
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}

extension String {
    /// The percent-decoded string, or `self` when it is not valid percent-encoding.
    var removingPercentEncodingIfValid: String {
        guard contains("%") else { return self }
        return removingPercentEncoding ?? self
    }
}

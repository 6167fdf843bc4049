import Foundation

/// Path and host normalisation shared by registration and lookup, so `/a/`, `a` and `/a` are
/// one path.
enum RoutePath {
    /// A request path as routes see it: empty segments dropped, each segment percent-decoded
    /// (`/a%20b` and `/a b` are one path), joined with `/` behind a leading `/`.
    static func normalize(_ path: String) -> String {
        join(decodedSegments(path))
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

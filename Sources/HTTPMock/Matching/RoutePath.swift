import Foundation

/// Path normalisation shared by registration and lookup, so `/a/`, `a` and `/a` are one path.
///
/// Segments are split on `/`, empty segments dropped, each segment percent-decoded (so
/// `/a%20b` and `/a b` are the same path), and the result joined with `/` behind a leading `/`.
enum RoutePath {
    static func normalize(_ path: String) -> String {
        var result = ""
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            result.append("/")
            result.append(String(segment).removingPercentEncodingIfValid)
        }
        return result.isEmpty ? "/" : result
    }

    /// `parent` and `child` joined as nested DSL paths are: `/admin` + `audit/` → `/admin/audit`.
    static func join(_ parent: String, _ child: String) -> String {
        normalize(parent + "/" + child)
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

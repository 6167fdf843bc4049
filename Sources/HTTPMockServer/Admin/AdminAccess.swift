#if Server
import Foundation
import HTTPMock
import NIOHTTP1

/// The one rule every admin path obeys: WireMock's `/__admin/…` (the admin
/// API, the dashboard and its event stream) and Voodoo's `POST /_admin/shutdown` and
/// `PUT /_admin/delay/:seconds` alike.
///
/// Checked by the connection handler before an admin request reaches the admin API or the
/// registry; in order:
/// 1. The admin token, when one is set: `Authorization: Bearer TOKEN` (the scheme in any
///    case), or `?token=TOKEN` for the dashboard page, its event stream and the recorder page only (a browser's
///    `EventSource` cannot send a header). Else 401.
/// 2. `Host` names the server (its address or `localhost`), unless the request proved the
///    token: a page on a DNS-rebound name cannot reach the API. Else 403.
/// 3. No web page of another origin drives it: an `Origin` that is not the server's own (nor
///    named by `allowedOrigins`), or a `Sec-Fetch-Site` other than `same-origin` or `none`
///    from an origin not allowed, gets 403.
/// 4. A browser's `POST`, `PUT` and `PATCH` send JSON: a request that carries `Origin` or a
///    `Sec-Fetch-*` field (what browsers send) with a `Content-Type` that is not JSON gets 415
///    (a `no-cors` form or fetch can only send `text/plain`, a form or multipart). Other clients
///    send what they like, as to WireMock: its Java client sends `text/plain`, `curl -d` a form
///    type. The files API (`/__admin/files/…`), whose bodies are files, is exempt.
package struct AdminAccess: Sendable {
    /// The bearer token admin requests need; `nil`: none.
    package let token: String?
    /// Origins (`scheme://host[:port]`, lowercased) whose pages may use the admin API.
    package let allowedOrigins: Set<String>

    /// - Parameters:
    ///   - token: The bearer token admin requests need; `nil`: none. Never empty.
    ///   - allowedOrigins: Origins whose pages may call the admin API (`http://localhost:3000`).
    /// - Throws: An `HTTPMockError` naming the token or origin that is not valid.
    package init(token: String?, allowedOrigins: [String] = []) throws {
        if let token, token.isEmpty || token.contains(where: \.isWhitespace) {
            throw HTTPMockError(
                .invalidRegistration, "the admin token must be non-empty and hold no white space, got \(token.debugDescription)")
        }
        self.token = token
        self.allowedOrigins = Set(try allowedOrigins.map(Self.origin(validating:)))
    }

    /// Whether binding `host` serves loopback only (`127.x.x.x`, `::1`, `localhost`): the admin
    /// paths need a token anywhere else.
    package static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// `value` as an origin (`scheme://host[:port]`, lowercased, no trailing slash), or an error
    /// naming it.
    static func origin(validating value: String) throws -> String {
        var origin = value.trimmingCharacters(in: .whitespaces).lowercased()
        while origin.hasSuffix("/") { origin.removeLast() }
        guard let components = URLComponents(string: origin), let scheme = components.scheme, ["http", "https"].contains(scheme),
            let host = components.host, !host.isEmpty, components.path.isEmpty, components.query == nil, components.user == nil
        else {
            throw HTTPMockError(
                .invalidRegistration,
                "an allowed admin origin must be scheme://host[:port] (as a browser sends it in Origin, e.g. http://localhost:3000), got \(value.debugDescription)"
            )
        }
        return origin
    }

    /// The admin paths, told from the first bytes of a request target.
    enum Path {
        /// WireMock's admin API under `/__admin`; `takesQueryToken` for the dashboard page and
        /// its event stream (`?token=` is accepted there only).
        case wireMock(takesQueryToken: Bool, isFiles: Bool)
        /// Voodoo's `POST /_admin/shutdown` and `PUT /_admin/delay/:seconds`.
        case voodoo
    }

    /// The admin path `uri` is, or `nil` (the usual case, decided on its second byte).
    static func path(of uri: String) -> Path? {
        let utf8 = uri.utf8
        guard utf8.count >= 7, utf8.first == UInt8(ascii: "/"), utf8.dropFirst().first == UInt8(ascii: "_") else { return nil }
        if AdminAPI.handles(uri) {
            let path = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? uri
            let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
            let page = ["/__admin", "/__admin/dashboard", "/__admin/events", "/__admin/recorder"].contains(trimmed)
            return .wireMock(takesQueryToken: page, isFiles: path.hasPrefix("/__admin/files/"))
        }
        if uri == "/_admin/shutdown" || uri.hasPrefix("/_admin/shutdown?") || uri.hasPrefix("/_admin/delay/") { return .voodoo }
        return nil
    }

    /// Why the request to admin path `path` is refused (a status and a message), or `nil`.
    func refusal(
        _ path: Path, method: NIOHTTP1.HTTPMethod, uri: String, headers: NIOHTTP1.HTTPHeaders, site: ServingSite
    ) -> (status: Int, message: String)? {
        var proved = false
        if let token {
            let bearer = headers["Authorization"].contains { Self.bearerCredentials(in: $0).map { Self.same($0, token) } ?? false }
            var queried = false
            if case .wireMock(takesQueryToken: true, _) = path, method == .GET || method == .HEAD {
                queried = Self.queryToken(in: uri).map { Self.same($0, token) } ?? false
            }
            guard bearer || queried else {
                return (401, "HTTPMock admin API: send Authorization: Bearer TOKEN (the server's admin token)")
            }
            proved = true
        }
        let host = headers.first(name: "Host")
        if let host, !host.isEmpty, !proved, !site.namesServer(host) {
            return (
                403,
                "HTTPMock admin API: the Host \(host.debugDescription) does not name this server; admin requests must be sent to its address (a page on another name cannot use it)"
            )
        }
        let origin = headers.first(name: "Origin").map { $0.lowercased() }
        let isAllowed = origin.map { allowedOrigins.contains($0) } ?? false
        if let origin, !isAllowed, origin != host.map({ "http://" + $0.lowercased() }) {
            return (
                403,
                "HTTPMock admin API: a page of \(origin) cannot use the admin API; name it with --admin-allow-origin (Swift: adminAllowedOrigins) to allow it"
            )
        }
        if let site = headers.first(name: "Sec-Fetch-Site")?.lowercased(), site != "same-origin", site != "none", !isAllowed {
            return (
                403,
                "HTTPMock admin API: a request a web page of another site sent (Sec-Fetch-Site: \(site)) cannot use the admin API; name its origin with --admin-allow-origin to allow it"
            )
        }
        let exempt = if case .wireMock(_, isFiles: true) = path { true } else { false }
        let fromBrowser = origin != nil || headers.contains { $0.name.lowercased().hasPrefix("sec-fetch-") }
        if !exempt, fromBrowser, method == .POST || method == .PUT || method == .PATCH, let type = headers.first(name: "Content-Type"),
            !Self.isJSON(type)
        {
            return (
                415,
                "HTTPMock admin API: \(method.rawValue) bodies must be JSON (Content-Type: application/json), got Content-Type \(type.debugDescription)"
            )
        }
        return nil
    }

    /// The CORS header fields for an allowed origin's request, else none.
    func corsHeaders(for headers: NIOHTTP1.HTTPHeaders) -> [(String, String)] {
        guard let origin = headers.first(name: "Origin"), allowedOrigins.contains(origin.lowercased()) else { return [] }
        return [("Access-Control-Allow-Origin", origin), ("Vary", "Origin")]
    }

    /// The answer to a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`) from an
    /// allowed origin, or `nil` when `headers` are not one.
    func preflight(_ method: NIOHTTP1.HTTPMethod, headers: NIOHTTP1.HTTPHeaders) -> ServedAnswer? {
        guard method == .OPTIONS, headers.contains(name: "Access-Control-Request-Method") else { return nil }
        let cors = corsHeaders(for: headers)
        guard !cors.isEmpty else { return nil }
        return .direct(
            status: 204,
            headers: cors + [
                ("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, PATCH, DELETE"),
                ("Access-Control-Allow-Headers", "Authorization, Content-Type"), ("Access-Control-Max-Age", "600"),
            ], body: Data(), method: method.rawValue)
    }

    /// The credentials of `Authorization: Bearer CREDENTIALS`, the scheme in any case.
    static func bearerCredentials(in value: String) -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return nil }
        guard trimmed[..<space].lowercased() == "bearer" else { return nil }
        return trimmed[space...].trimmingCharacters(in: .whitespaces)
    }

    /// The value of `token` in `uri`'s query, percent-decoded.
    static func queryToken(in uri: String) -> String? {
        URLComponents(string: uri)?.queryItems?.first { $0.name == "token" }?.value
    }

    /// Whether `a` and `b` are the same, in a time that does not tell where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }

    /// `application/json`, `text/json` or any `…+json` type, parameters aside.
    static func isJSON(_ contentType: String) -> Bool {
        let type = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return type == "application/json" || type == "text/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
    }

    /// `target` with the value of a `token` query parameter masked (for the log), unchanged when
    /// it has none.
    static func masked(_ target: String) -> String {
        guard let question = target.firstIndex(of: "?"), target.contains("token=") else { return target }
        let query = target[target.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { item in
            item.hasPrefix("token=") ? "token=REDACTED" : String(item)
        }
        return String(target[...question]) + query.joined(separator: "&")
    }
}
#endif

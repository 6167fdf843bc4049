import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// RFC 6265 for the cookies HTTPMock stores and sends itself.
///
/// FoundationNetworking does not store `Set-Cookie` from a custom protocol's response, so
/// HTTPMock does; and its `HTTPCookieStorage` enforces little (observed on Swift 6.3.1): a
/// `Secure` cookie set over http is kept, `Domain=com` or a foreign domain is accepted,
/// `Max-Age` is ignored (so `Max-Age=0` deletes nothing), the default path is `/` rather than
/// the request's directory, and `cookies(for:)` ignores `Path` and `Secure`. These rules make
/// HTTPMock's own storing (every mocked response) and sending (redirect hops it follows)
/// behave like a browser.
enum CookieRules {
    /// What storing one response's `Set-Cookie` does to the storage.
    struct Changes {
        var store: [HTTPCookie] = []
        /// Cookies that replace-and-expire an existing one (`Max-Age<=0`, an `Expires` in the past).
        var delete: [HTTPCookie] = []
    }

    /// Applies RFC 6265 §5.3 to the cookies of `setCookie` received for `url`.
    static func changes(setCookie: String, for url: URL, now: Date = Date()) -> Changes {
        let host = (url.host ?? "").lowercased()
        let isSecureOrigin = url.scheme?.lowercased() == "https"
        let hasExplicitPath = setCookie.range(of: #"(^|;)\s*path\s*="#, options: [.regularExpression, .caseInsensitive]) != nil
        var changes = Changes()
        for cookie in HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": setCookie], for: url) {
            // §5.3 step 6 (and RFC 6265bis): a Secure cookie only from a secure origin.
            if cookie.isSecure && !isSecureOrigin { continue }
            // §5.3 steps 5–6: Domain must domain-match the host and must not be a public suffix
            // (approximated: a single label such as `com`).
            let domain = cookie.domain.hasPrefix(".") ? String(cookie.domain.dropFirst()).lowercased() : cookie.domain.lowercased()
            if domain != host {
                guard domain.contains("."), domainMatches(host: host, domain: domain) else { continue }
            }
            var properties = cookie.properties ?? [:]
            var isAdjusted = false
            // §5.2.4: without Path, the default path is the request path's directory.
            if !hasExplicitPath, cookie.path != defaultPath(of: url) {
                properties[.path] = defaultPath(of: url)
                isAdjusted = true
            }
            // §5.3 step 3: Max-Age wins over Expires; <= 0 means already expired.
            var expires = cookie.expiresDate
            if let maxAge = (properties[.maximumAge] as? String).flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
                ?? (properties[.maximumAge] as? Int)
            {
                expires = maxAge <= 0 ? Date.distantPast : now.addingTimeInterval(TimeInterval(maxAge))
                properties[.maximumAge] = nil
                properties[.expires] = expires
                isAdjusted = true
            }
            // `HTTPCookie(properties:)` reads these flags only as strings on FoundationNetworking
            // (`Secure: true` comes back `false`).
            properties[.secure] = cookie.isSecure ? "TRUE" : nil
            properties[HTTPCookiePropertyKey("HttpOnly")] = cookie.isHTTPOnly ? "TRUE" : nil
            guard let adjusted = isAdjusted ? HTTPCookie(properties: properties) : cookie else { continue }
            if let expires, expires <= now {
                changes.delete.append(adjusted)
            } else {
                changes.store.append(adjusted)
            }
        }
        return changes
    }

    /// RFC 6265 §5.1.3.
    static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        let isIPAddress = host.contains(":") || host.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
        return !isIPAddress && host.hasSuffix("." + domain)
    }

    /// RFC 6265 §5.1.4: the directory of the request path, `/` for `/` or a single segment.
    static func defaultPath(of url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else { return "/" }
        return String(path[..<lastSlash])
    }

    /// RFC 6265 §5.1.4.
    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        let requestPath = requestPath.isEmpty ? "/" : requestPath
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// RFC 6265 §5.4: whether `cookie` goes with a request to `url`.
    static func sends(_ cookie: HTTPCookie, to url: URL, now: Date = Date()) -> Bool {
        if cookie.isSecure && url.scheme?.lowercased() != "https" { return false }
        if let expires = cookie.expiresDate, expires <= now { return false }
        return pathMatches(requestPath: url.path, cookiePath: cookie.path)
    }

    /// Stores (or expires) the cookies of `setCookie` in `storage`.
    static func store(setCookie: String, for url: URL, in storage: HTTPCookieStorage) {
        let changes = changes(setCookie: setCookie, for: url)
        for expired in changes.delete {
            for existing in storage.cookies ?? []
            where existing.name == expired.name
                && existing.domain.lowercased() == expired.domain.lowercased() && existing.path == expired.path
            {
                storage.deleteCookie(existing)
            }
        }
        if !changes.store.isEmpty {
            storage.setCookies(changes.store, for: url, mainDocumentURL: url)
        }
    }
}

import Foundation

/// The redirect rules HTTPMock applies itself, because FoundationNetworking crashes when a
/// custom protocol reports a redirect.
enum Redirects {
    static func isRedirect(_ status: HTTPStatus) -> Bool {
        switch status.code {
        case 301, 302, 303, 307, 308: return true
        default: return false
        }
    }

    /// The request a client makes after `status` with `Location: location`: the location
    /// resolved against the request URL; `303` (and `301`/`302` after a `POST`) become `GET`
    /// without a body (a `HEAD` stays `HEAD`); `307`/`308` keep method and body.
    static func request(following location: String, status: HTTPStatus, from request: MockRequest) -> MockRequest? {
        guard let url = URL(string: location, relativeTo: request.url)?.absoluteURL,
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        let dropsBody = status.code == 303 || ((status.code == 301 || status.code == 302) && request.method == .post)
        var headers = request.headers
        if dropsBody {
            headers["Content-Type"] = nil
            headers["Content-Length"] = nil
        }
        headers["Cookie"] = nil  // recomputed for the new URL from the session's storage
        let method: HTTPMethod = dropsBody && request.method != .head ? .get : request.method
        return MockRequest(method: method, url: url, headers: headers, body: dropsBody ? nil : request.body)
    }
}

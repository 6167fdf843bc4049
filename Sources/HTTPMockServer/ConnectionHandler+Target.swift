#if Server
import Foundation
import HTTPMock
import NIOHTTP1

// The URL a request is matched as: which host a request that names the server is
// matched against, and the URL the client called.

extension ConnectionHandler {
    /// The URL the registry matches, read for lookup: the impersonated origin for requests that
    /// name the server, the named host for absolute-form requests and foreign `Host` headers.
    func requestTarget(for head: HTTPRequestHead) -> MockRequest.Target? {
        let uri = head.uri
        let isOriginForm = uri.utf8.first == UInt8(ascii: "/")
        if !isOriginForm {
            let lowercased = uri.lowercased()
            if lowercased.hasPrefix("http://") || lowercased.hasPrefix("https://") {
                guard let url = URL(string: uri), let host = url.host, !host.isEmpty else { return nil }
                let hostInAuthority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
                let authority = url.port.map { "\(hostInAuthority):\($0)" } ?? hostInAuthority
                let called = MockRequest.CalledURL(scheme: "http", authority: "", target: uri)
                if site.namesServer(authority) {
                    let pathStart = uri.dropFirst(lowercased.hasPrefix("https://") ? 8 : 7).firstIndex(of: "/")
                    return URL(string: site.impersonatedOrigin + (pathStart.map { String(uri[$0...]) } ?? "/")).map {
                        MockRequest.Target($0, called: called)
                    }
                }
                return MockRequest.Target(url, called: called)
            }
        }
        // The path (`*` is read as `/*`), the host from `Host`. A client often asks for the same
        // target again: the last one is kept, with what it was made from.
        let path = isOriginForm ? uri : "/" + uri
        let host = head.headers.first(name: "Host") ?? ""
        let domain = site.matchedDomain
        if let lastTarget, lastTarget.path == path, lastTarget.host == host, lastTarget.domain == domain { return lastTarget.target }
        let url =
            !host.isEmpty && !site.namesServer(host)
            ? URL(string: "http://\(host)\(path)") : URL(string: ServingSite.origin(of: domain) + path)
        // Where the client sent it (WireMock's `absoluteUrl`): kept as parts, made a URL only when read.
        let called = MockRequest.CalledURL(scheme: "http", authority: host.isEmpty ? site.authority : host, target: path)
        guard let target = url.map({ MockRequest.Target($0, called: called) }) else { return nil }
        lastTarget = (path, host, domain, target)
        return target
    }
}
#endif

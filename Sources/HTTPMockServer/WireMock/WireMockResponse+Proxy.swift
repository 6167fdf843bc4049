#if Server
import Foundation
import HTTPMock

/// WireMock's proxy fields: `proxyBaseUrl`, with `additionalProxyRequestHeaders` (set on the
/// forwarded request), `removeProxyRequestHeaders` (left out of it) and
/// `proxyUrlPrefixToRemove` (cut from the path before it is appended to the base URL).
struct WireMockProxy: Sendable {
    let baseURL: URL
    let addedHeaders: HTTPHeaders
    let removedHeaders: [String]
    let prefixToRemove: String?

    static func parse(_ object: [String: JSONValue]) throws(WireMockMappingError) -> WireMockProxy? {
        let related = ["additionalProxyRequestHeaders", "removeProxyRequestHeaders", "proxyUrlPrefixToRemove"].filter { object[$0] != nil }
        guard let given = object["proxyBaseUrl"] else {
            if let first = related.first {
                throw WireMockMappingError(pointer: "/response/" + first, message: "\(first) needs proxyBaseUrl")
            }
            return nil
        }
        // A template (`{{…}}`) is rendered, and checked, per request.
        if case .string(let text) = given, text.contains("{{") { return nil }
        guard case .string(let text) = given, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil
        else {
            throw WireMockMappingError(pointer: "/response/proxyBaseUrl", message: "must be a URL like http://localhost:8000, got \(given)")
        }
        let added =
            try object["additionalProxyRequestHeaders"].map { value throws(WireMockMappingError) in
                try WireMockResponse.headers(value, at: "/response/additionalProxyRequestHeaders")
            } ?? HTTPHeaders()
        var removed: [String] = []
        if let list = object["removeProxyRequestHeaders"] {
            guard case .array(let items) = list else {
                throw WireMockMappingError(
                    pointer: "/response/removeProxyRequestHeaders", message: "must be a list of header names, got \(list)")
            }
            for (index, item) in items.enumerated() {
                removed.append(try WireMockMatchers.string(item, at: "/response/removeProxyRequestHeaders/\(index)"))
            }
        }
        let prefix = try object["proxyUrlPrefixToRemove"].map { value throws(WireMockMappingError) in
            try WireMockMatchers.string(value, at: "/response/proxyUrlPrefixToRemove")
        }
        return WireMockProxy(baseURL: url, addedHeaders: added, removedHeaders: removed, prefixToRemove: prefix)
    }

    func response(delivery: Delivery) -> MockResponse {
        let proxy = self
        return .forwarding(to: baseURL, delivery: delivery) { request in proxy.adjust(request) }
    }

    /// The request as it is sent on.
    func adjust(_ request: MockRequest) -> MockRequest {
        var headers = HTTPHeaders()
        let removed = Set(removedHeaders.map { $0.lowercased() })
        for (name, value) in request.headers where !removed.contains(name.lowercased()) { headers[name] = value }
        for (name, value) in addedHeaders { headers[name] = value }
        var url = request.url
        if let prefixToRemove, !prefixToRemove.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            components.percentEncodedPath.hasPrefix(prefixToRemove)
        {
            let rest = String(components.percentEncodedPath.dropFirst(prefixToRemove.count))
            components.percentEncodedPath = rest.hasPrefix("/") || rest.isEmpty ? rest : "/" + rest
            url = components.url ?? url
        }
        return MockRequest(
            method: request.method, target: MockRequest.Target(url), headers: headers, body: request.body,
            clientAddress: request.clientAddress)
    }
}
#endif

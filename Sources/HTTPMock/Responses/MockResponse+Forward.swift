import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension MockResponse {
    /// Sends the request on to another server, `baseURL` followed by the request's path and
    /// query, and answers with what comes back (Innernet's re-route, WireMock's `proxyBaseUrl`).
    ///
    /// The method, the header fields (except `Host`) and the body go along unchanged. The
    /// answer's status, headers and body are relayed; its `Content-Encoding`, `Content-Length`
    /// and `Transfer-Encoding` are dropped, because the body arrives decoded. The journal
    /// records the status the other server sent. When the other server cannot be reached the
    /// request fails with the network's error (over `HTTPMockServer`: a 502 naming it).
    ///
    /// Over the server the answer streams through as it arrives, with bounded memory, from an
    /// `http://` upstream: its body is read only as fast as the client takes it (the body goes
    /// on the wire as the upstream sent it, `Content-Encoding` included), the download stops
    /// when the client leaves, and a forward that comes back to the same server (a loop) is
    /// answered 508 at once. An `https://` upstream is fetched whole through a plain session, as
    /// in process.
    ///
    /// ```swift
    /// // https://api.example.com/users/1?full=1 is answered by http://localhost:8000/users/1?full=1
    /// mock.addResponses(forPath: "/users/**", host: "api.example.com",
    ///                   responses: [.forward(to: URL(string: "http://localhost:8000")!, lifetime: .eternal)])
    /// ```
    ///
    /// - Parameters:
    ///   - baseURL: Where to send the request: scheme, host, port and an optional path prefix
    ///     (`http://localhost:8000/v2` sends `/users/1` to `http://localhost:8000/v2/users/1`).
    ///   - lifetime: How many requests this response answers.
    ///   - delivery: When the relayed answer starts.
    public static func forward(to baseURL: URL, lifetime: Lifetime = .single, delivery: Delivery = .instant) -> MockResponse {
        var handler = DynamicHandler { request in try await Forwarding.send(request, to: baseURL) }
        handler.forwardBase = baseURL
        return MockResponse(payload: .dynamic(handler), lifetime: lifetime, delivery: delivery)
    }
}

/// Sending a request on for ``MockResponse/forward(to:lifetime:delivery:)``.
enum Forwarding {
    /// A plain ephemeral session without HTTPMock's protocol classes, as the instance's default
    /// passthrough session: a forwarded request must reach the network, not come back here.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = (configuration.protocolClasses ?? []).filter { !($0 is MockURLProtocol.Type) }
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()

    /// `baseURL` + the request's path and query.
    static func target(for request: MockRequest, base baseURL: URL) -> URL? {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let url = request.url
        var path = url.path.isEmpty ? "/" : url.path
        if let components = URLComponents(url: url, resolvingAgainstBaseURL: false), !components.percentEncodedPath.isEmpty {
            path = components.percentEncodedPath
        }
        let query = url.query.map { "?" + $0 } ?? ""
        return URL(string: base + path + query)
    }

    static func send(_ request: MockRequest, to baseURL: URL) async throws -> MockResponse {
        guard let target = target(for: request, base: baseURL) else {
            throw HTTPMockError(.invalidRegistration, "forward(to: \(baseURL)): cannot form a URL for \(request.url.absoluteString)")
        }
        var outgoing = URLRequest(url: target)
        outgoing.httpMethod = request.method.rawValue
        for (name, value) in request.headers where HTTPHeaders.lowercased(name) != "host" {
            outgoing.setValue(value, forHTTPHeaderField: name)
        }
        outgoing.httpBody = request.body
        let sent = outgoing
        let (data, response): (Data, URLResponse) = try await withCheckedThrowingContinuation { continuation in
            // Off any URL loading work queue: creating a task syncs onto the shared one.
            DispatchQueue.global().async {
                session.dataTask(with: sent) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }.resume()
            }
        }
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers = HTTPHeaders()
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        headers["Content-Encoding"] = nil
        headers["Content-Length"] = nil
        headers["Transfer-Encoding"] = nil
        return .data(data, status: HTTPStatus(http.statusCode), headers: headers)
    }
}

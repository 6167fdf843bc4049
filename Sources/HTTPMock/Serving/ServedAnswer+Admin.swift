import Foundation

// Answers a transport sends for its own endpoints (the admin API) rather than for
// the registry: nothing is resolved or journaled.

extension ServedAnswer {
    /// The body of the 500 sent instead of a response that cannot go on the wire, for
    /// `request` (`METHOD target`): one wording, whichever check found the problem.
    package static func unsendableText(_ request: String, problem: String) -> String {
        "HTTPMock: the response to \(request) cannot be sent: \(problem).\n"
    }

    /// `status` with `headers` and `body` (a `Content-Length` is added; no body for `HEAD`).
    package static func direct(status: Int, headers: [(String, String)], body: Data, method: String) -> ServedAnswer {
        let sendsBody = HTTPStatus(status).sendsBody(to: HTTPMethod(method)) && !body.isEmpty
        var fields = headers
        if !HTTPStatus(status).forbidsBody { fields.append(("Content-Length", String(body.count))) }
        return .respond(
            WireResponse(
                statusCode: status, headers: fields.map { (name: $0.0, value: $0.1) },
                body: ServedBody(.data(body), size: body.count), sendsBody: sendsBody, bytesPerSecond: nil))
    }

    /// This answer with `extra` header fields added to its response, if it has one (the CORS
    /// fields of an allowed origin).
    package func adding(headers extra: [(String, String)]) -> ServedAnswer {
        guard !extra.isEmpty else { return self }
        func with(_ response: WireResponse) -> WireResponse {
            WireResponse(
                statusCode: response.statusCode, headers: response.headers + extra.map { (name: $0.0, value: $0.1) },
                body: response.body, sendsBody: response.sendsBody, bytesPerSecond: response.bytesPerSecond)
        }
        switch self {
        case .respond(let response): return .respond(with(response))
        case .events(let response, let source, let request): return .events(with(response), source, request: request)
        case .cut(let response, let afterBytes): return .cut(with(response), afterBytes: afterBytes)
        case .close, .reset, .hold, .garbage, .forward: return self
        }
    }

    /// The event stream of `response` (made with ``MockResponse/eventStreamFromSequence(status:headers:lifetime:delivery:_:)``)
    /// sent to `request`; `nil` when `response` is not an event stream.
    package static func directEvents(_ response: MockResponse, for request: MockRequest) -> ServedAnswer? {
        guard case .http(let http) = response.payload, case .events(let source) = http.body else { return nil }
        var fields = http.effectiveHeaders
        fields["Content-Length"] = nil
        return .events(
            WireResponse(
                statusCode: http.status.code, headers: fields.map { ($0.name, $0.value) }, body: ServedBody(.none, size: 0),
                sendsBody: true, bytesPerSecond: nil),
            source, request: request)
    }
}

extension MockRequest {
    /// A request a transport answers itself (the admin API), for what needs one.
    package static func direct(method: String, url: URL, headers: [(String, String)], body: Data?) -> MockRequest {
        MockRequest(method: HTTPMethod(method), url: url, headers: HTTPHeaders(Dictionary(headers, uniquingKeysWith: { $1 })), body: body)
    }
}

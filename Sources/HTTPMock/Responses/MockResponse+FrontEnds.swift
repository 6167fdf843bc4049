import Foundation

// Responses as front ends that compile files into routes (WireMock mappings) build them:
// exactly what the file says — no default `Content-Type` — answering any number of times.

extension MockResponse {
    /// A body as a file names it.
    package enum RawBody: Sendable {
        case none
        case data(Data)
        /// Streamed from disk when served.
        case file(URL)
    }

    /// An `.eternal` HTTP response with exactly these status, header fields and body (no
    /// `Content-Type` is added); with `fault`, that fault instead, the status, headers and body
    /// being what `.connectionLost` sends first.
    package static func raw(
        status: HTTPStatus, headers: HTTPHeaders, body: RawBody, fault: Fault? = nil, delivery: Delivery = .instant
    ) -> MockResponse {
        let payloadBody: Body
        switch body {
        case .none: payloadBody = .none
        case .data(let data): payloadBody = data.isEmpty ? .none : .data(data)
        case .file(let url): payloadBody = .file(url)
        }
        if let fault {
            var data = Data()
            if case .data(let bytes) = body { data = bytes }
            return .fault(fault, body: data.isEmpty ? nil : data, status: status, headers: headers, lifetime: .eternal, delivery: delivery)
        }
        return .http(status: status, headers: headers, body: payloadBody, defaultContentType: nil, lifetime: .eternal, delivery: delivery)
    }

    /// ``forward(to:lifetime:delivery:)``, `.eternal`, with the request adjusted first
    /// (WireMock's `additionalProxyRequestHeaders`, `removeProxyRequestHeaders`,
    /// `proxyUrlPrefixToRemove`).
    package static func forwarding(
        to baseURL: URL, delivery: Delivery = .instant, adjusting adjust: @escaping @Sendable (MockRequest) -> MockRequest
    ) -> MockResponse {
        var handler = DynamicHandler { request in try await Forwarding.send(adjust(request), to: baseURL) }
        handler.forwardBase = baseURL
        handler.forwardAdjust = adjust
        return MockResponse(payload: .dynamic(handler), lifetime: .eternal, delivery: delivery)
    }
}

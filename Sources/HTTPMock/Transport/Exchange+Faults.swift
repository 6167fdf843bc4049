import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Exchange's faults: a connection lost after part of the body.

extension Exchange {
    // MARK: - Faults

    func deliverFault(_ fault: MockResponse.Fault, head: MockResponse.HTTPPayload, to request: MockRequest) {
        guard case .connectionLost(let afterBytes) = fault.kind else {
            fail(fault.error)
            return
        }
        let body: Data = if case .data(let data) = head.body { data } else { Data() }
        var headers = head.effectiveHeaders
        if !headers.contains("Content-Length") { headers["Content-Length"] = String(body.count) }
        guard
            let response = HTTPURLResponse(
                url: request.url, statusCode: head.status.code, httpVersion: "HTTP/1.1", headerFields: headers.dictionary)
        else {
            fail(URLError(.badServerResponse))
            return
        }
        let sent = body.prefix(afterBytes)
        var error = fault.error
        error = URLError(
            error.code,
            userInfo: [
                NSLocalizedDescriptionKey:
                    "The network connection was lost after \(sent.count) of \(body.count) body bytes (HTTPMock fault \(fault)).",
                NSURLErrorFailingURLErrorKey: request.url,
            ])
        send { client, urlProtocol in
            client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
            if !sent.isEmpty { client.urlProtocol(urlProtocol, didLoad: Data(sent)) }
        }
        fail(error)
    }
}

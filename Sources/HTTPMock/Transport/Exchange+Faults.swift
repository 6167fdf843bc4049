import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Exchange's faults: a connection lost after part of the body.

extension Exchange {
    // MARK: - Faults

    func deliverFault(_ fault: MockResponse.Fault, head headPayload: MockResponse.HTTPPayload, to request: MockRequest) {
        guard case .connectionLost(let afterBytes) = fault.kind else {
            fail(fault.error)
            return
        }
        let head: ResponsePlan.Head
        let sent: Data
        do {
            head = try ResponsePlan.head(of: headPayload, to: request.method, framing: .declared)
            var reader = try head.body.reader()
            defer { try? reader.file?.close() }
            // `afterBytes` may be anything up to Int.max: never more than the body holds.
            sent = head.allowsBody ? try reader.next(min(max(0, afterBytes), head.body.size)) : Data()
        } catch {
            fail(error)
            return
        }
        guard
            let response = HTTPURLResponse(
                url: request.url, statusCode: head.status.code, httpVersion: "HTTP/1.1", headerFields: head.headers.dictionary)
        else {
            fail(URLError(.badServerResponse))
            return
        }
        var error = fault.error
        error = URLError(
            error.code,
            userInfo: [
                NSLocalizedDescriptionKey:
                    "The network connection was lost after \(sent.count) of \(head.body.size) body bytes (HTTPMock fault \(fault)).",
                NSURLErrorFailingURLErrorKey: request.url,
            ])
        send { client, urlProtocol in
            client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
            if !sent.isEmpty { client.urlProtocol(urlProtocol, didLoad: Data(sent)) }
        }
        fail(error)
    }
}

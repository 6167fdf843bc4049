import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLProtocol` that answers an instance's requests from its registry.
///
/// It decides where a request goes and answers a response that is complete the moment it is
/// resolved itself (``Resolution/completeAnswer``, the usual case); ``Exchange`` carries out
/// everything else. FoundationNetworking rules both follow (Docs/HTTPMock.docc/LinuxNotes.md has the evidence):
/// - every client call happens on the task's own serial work queue;
/// - nothing reaches the client after the request finished or after `stopLoading`;
/// - a response is always sent before finishing;
/// - completion-handler and async tasks keep only the *last* `didLoad` chunk, so they get the
///   body in one `didLoad`; only delegate-driven tasks get chunks.
class MockURLProtocol: URLProtocol {
    /// Touched only on the task's work queue (`startLoading`, `stopLoading` and the exchange's
    /// own callbacks all run there).
    private var exchange: Exchange?
    /// `stopLoading` came before `startLoading` (a task cancelled before it started).
    private var isStopped = false

    override class func canInit(with request: URLRequest) -> Bool {
        // `false` sends the request on to the next class: the session's built-in HTTP, FTP and
        // web-socket protocols, that is the real network, even when the session lists only this
        // class. So every scheme is taken (http(s) are answered from the registry, others failed
        // in `startLoading`), except `data:` URLs, which FoundationNetworking decodes itself
        // without any network. The shared-session bridge takes nothing while nobody intercepts,
        // so `URLSession.shared` then behaves as if HTTPMock were not there.
        guard let url = request.url else { return true }
        // `data:` in any case, read from the URL's bytes: cheaper than parsing its scheme, and
        // this runs for every request of the session.
        var bytes = url.absoluteString.utf8.makeIterator()
        for expected in "data:".utf8 {
            guard let byte = bytes.next() else { return true }
            let lowercased = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
            guard lowercased == expected else { return true }
        }
        return false
    }

    /// Whether HTTPMock answers `scheme` (lowercased): http and https; requests with any other
    /// scheme fail with `.unsupportedURL`.
    static func serves(scheme: String) -> Bool {
        scheme == "https" || scheme == "http"
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        guard let client, !isStopped else { return }
        let mockRequest = RequestReader.mockRequest(from: request, task: task)
        guard let entry = InstanceTable.entry(for: type(of: self)) else {
            client.urlProtocol(
                self,
                didFailWithError: HTTPMockError(
                    .instanceDeallocated,
                    "\(mockRequest) reached the protocol class of an HTTPMock instance that no longer exists; keep the instance alive as long as its sessions"
                ))
            return
        }
        var registry = entry.registry
        var passesThrough = false
        if entry.isSharedSessionBridge {
            switch SharedSessionBridge.owner {
            case .instance(let owner):
                registry = owner
            case .orphaned(let location):
                client.urlProtocol(self, didFailWithError: SharedSessionBridge.orphanedError(mockRequest, interceptedAt: location))
                return
            case .idle:
                passesThrough = true
            }
        }
        let scheme = mockRequest.scheme
        if !Self.serves(scheme: scheme) {
            // Declining in `canInit` would hand the request to FoundationNetworking's own FTP or
            // web-socket protocol, that is to the network: fail it here instead.
            let error = URLError(
                .unsupportedURL,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "HTTPMock serves only http and https URLs; this \(scheme.isEmpty ? "scheme-less" : "\(scheme):") request through a session HTTPMock made or configured is failed so that it never reaches the network. Use a session without HTTPMock for \(scheme.isEmpty ? "it" : "\(scheme):// URLs").",
                    NSURLErrorFailingURLErrorKey: mockRequest.url,
                ])
            registry.recordUnserved(mockRequest, error: error)
            client.urlProtocol(self, didFailWithError: error)
            return
        }
        #if canImport(FoundationNetworking)
        if task is URLSessionDownloadTask {
            let error = URLError(
                .unsupportedURL,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "HTTPMock cannot serve download tasks on Linux: FoundationNetworking crashes when a URLProtocol answers one. Use data(for:) or a data task and write the data to a file.",
                    NSURLErrorFailingURLErrorKey: mockRequest.url,
                ])
            registry.recordUnserved(mockRequest, error: error)
            client.urlProtocol(self, didFailWithError: error)
            return
        }
        #endif
        if let probe = SharedSessionBridge.probeResponse(for: mockRequest, entry: entry) {
            makeExchange(client: client, registry: registry).answerProbe(probe)
        } else if passesThrough {
            makeExchange(client: client, registry: registry).passThroughUnrecorded(mockRequest)
        } else {
            let resolution = registry.resolve(mockRequest)
            if !answerAtOnce(resolution, client: client) {
                makeExchange(client: client, registry: registry).start(resolution)
            }
        }
    }

    private func makeExchange(client: any URLProtocolClient, registry: Registry) -> Exchange {
        let exchange = Exchange(urlProtocol: self, client: client, task: task, registry: registry)
        self.exchange = exchange
        return exchange
    }

    /// Answers `resolution` here and now when it is complete the moment it is resolved
    /// (``Resolution/completeAnswer``): the usual case of a registered response from memory,
    /// which the lookup already journaled as served.
    ///
    /// Such an answer needs no ``Exchange``: its three client calls are made here, on the work
    /// queue, before `startLoading` returns, so no cancellation, timer or hop can come between
    /// them and there is nothing to gate, hold or release. Everything else goes through an
    /// exchange (and so would this answer if `HTTPURLResponse` refused it, which neither
    /// platform does for a valid status: the exchange then fails the request).
    /// - Returns: whether it answered.
    private func answerAtOnce(_ resolution: Resolution, client: any URLProtocolClient) -> Bool {
        guard let answer = resolution.completeAnswer,
            let response = HTTPURLResponse(
                url: resolution.request.url, statusCode: answer.status.code, httpVersion: "HTTP/1.1", headerFields: answer.headerFields)
        else { return false }
        Exchange.sendComplete(response, body: answer.body(to: resolution.request.method), to: client, from: self)
        return true
    }

    override func stopLoading() {
        isStopped = true
        exchange?.stop()
    }

    /// Called by the exchange when it is done, to break the protocol ↔ exchange cycle.
    func exchangeDidClose() {
        exchange = nil
    }
}

/// The class registered with `URLProtocol.registerClass` for `URLSession.shared`: one per
/// process, serving whichever instance is on top of ``SharedSessionBridge``'s owner stack.
final class SharedSessionBridgeProtocol: MockURLProtocol {
    override class func canInit(with request: URLRequest) -> Bool {
        // Registered classes are also the fallback of every session whose own classes decline
        // a request: while nobody intercepts, take nothing.
        SharedSessionBridge.isActive && super.canInit(with: request)
    }
}

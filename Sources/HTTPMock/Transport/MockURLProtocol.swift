import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLProtocol` that answers an instance's requests from its registry.
///
/// It only decides where a request goes; ``Exchange`` carries it out. FoundationNetworking
/// rules both follow (Docs/LinuxNotes.md has the evidence):
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
        // `false` would send the request to the real network on FoundationNetworking, even
        // when the session lists only this class. Unmatched requests are handled by the policy.
        guard let scheme = request.url?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        guard let client, !isStopped else { return }
        let mockRequest = RequestReader.mockRequest(from: request, task: task)
        guard let entry = InstanceTable.entry(for: type(of: self)) else {
            client.urlProtocol(self, didFailWithError: HTTPMockError(.instanceDeallocated,
                "\(mockRequest) reached the protocol class of an HTTPMock instance that no longer exists; keep the instance alive as long as its sessions"))
            return
        }
        #if canImport(FoundationNetworking)
        if task is URLSessionDownloadTask {
            let error = URLError(.unsupportedURL, userInfo: [
                NSLocalizedDescriptionKey: "HTTPMock cannot serve download tasks on Linux: FoundationNetworking crashes when a URLProtocol answers one. Use data(for:) or a data task and write the data to a file.",
                NSURLErrorFailingURLErrorKey: mockRequest.url,
            ])
            entry.registry.recordUnserved(mockRequest, error: error)
            client.urlProtocol(self, didFailWithError: error)
            return
        }
        #endif
        let exchange = Exchange(urlProtocol: self, client: client, task: task, registry: entry.registry)
        self.exchange = exchange
        if let probe = SharedSessionBridge.probeResponse(for: mockRequest, entry: entry) {
            exchange.answerProbe(probe)
        } else if entry.isSharedSessionBridge && !entry.registry.interceptsSharedSession {
            exchange.passThroughUnrecorded(mockRequest)
        } else {
            exchange.start(mockRequest)
        }
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

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Serving `URLSession.shared`, which cannot be given a configuration.
///
/// `URLProtocol.registerClass` is the only way in. On FoundationNetworking `URLSession.shared`
/// takes a snapshot of the registered classes when it is first used and `unregisterClass`
/// does not change the snapshot, so registering can silently do nothing. HTTPMock therefore
/// registers a dedicated class of the instance (a *bridge*), then proves it works with a probe
/// request to a reserved host that only the bridge answers. Stopping turns the bridge into a
/// passthrough, since it cannot be removed.
enum SharedSessionBridge {
    /// A host under `.invalid` (RFC 2606): never resolvable, so an unintercepted probe fails
    /// at once without network traffic.
    static let probeHost = "httpmock-shared-session-probe.invalid"
    static let probeHeader = "X-HTTPMock-Probe"

    /// The token to echo when `request` is a probe reaching the bridge.
    static func probeResponse(for request: MockRequest, entry: InstanceTable.Entry) -> String? {
        guard entry.isSharedSessionBridge, request.normalizedHost == probeHost else { return nil }
        return request.headers[probeHeader] ?? ""
    }

    /// Sends a probe through `URLSession.shared` and waits (at most `timeout`) for the bridge's answer.
    static func probe(timeout: TimeInterval = 5) -> Bool {
        let token = UUID().uuidString
        guard let url = URL(string: "https://\(probeHost)/\(token)") else { return false }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.setValue(token, forHTTPHeaderField: probeHeader)
        let answered = Locked(false)
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { _, response, _ in
            if (response as? HTTPURLResponse)?.value(forHTTPHeaderField: probeHeader) == token {
                answered.withLock { $0 = true }
            }
            done.signal()
        }.resume()
        _ = done.wait(timeout: .now() + timeout)
        return answered.withLock { $0 }
    }
}

extension Exchange {
    /// Answers a probe from ``SharedSessionBridge/probe(timeout:)``; not journaled.
    func answerProbe(_ token: String) {
        let http = MockResponse.HTTPPayload(status: .noContent, headers: [SharedSessionBridge.probeHeader: token], body: .none, defaultContentType: nil, preparedHeaderFields: nil)
        serveUnrecorded(.init(payload: .http(http), lifetime: .single, delivery: .instant))
    }

    /// A request to `URLSession.shared` after `stopInterceptingSharedSession()`: sent to the
    /// network as if HTTPMock were not there; not journaled.
    func passThroughUnrecorded(_ request: MockRequest) {
        serveUnrecorded(.passthrough(), to: request)
    }
}

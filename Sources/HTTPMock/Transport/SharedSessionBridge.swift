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
    /// The one bridge class of the process, registered once, and the registry it serves. It
    /// changes owner rather than being replaced: `URLSession.shared` only ever sees the classes
    /// registered before the first session, so a class registered later would never be consulted.
    private static let bridge = Locked<MockURLProtocol.Type?>(nil)

    /// A registry with no routes that passes everything through: the bridge's owner when no
    /// instance serves `URLSession.shared`.
    private static let idle = Registry(passthroughSession: nil,
                                       creationLocation: SourceLocation(fileID: "HTTPMock/SharedSessionBridge.swift", filePath: #filePath, line: #line, column: 1))

    /// Makes `registry` the bridge's owner, registering the bridge on first use.
    /// - Returns: whether `URLProtocol.registerClass` accepted the class.
    static func attach(_ registry: Registry) -> Bool {
        bridge.withLock { bridge in
            if let existing = bridge {
                InstanceTable.retarget(existing, to: registry)
                return true
            }
            let made = InstanceTable.makeProtocolClass(for: registry, isSharedSessionBridge: true)
            bridge = made
            return URLProtocol.registerClass(made)
        }
    }

    /// Hands the bridge to the idle registry if `registry` owns it (its instance is going away).
    static func detach(_ registry: Registry) {
        bridge.withLock { bridge in
            guard let bridge, InstanceTable.entry(for: bridge)?.registry === registry else { return }
            InstanceTable.retarget(bridge, to: idle)
        }
    }

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

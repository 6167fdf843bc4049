import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Serving `URLSession.shared`, which cannot be given a configuration.
///
/// `URLProtocol.registerClass` is the only way in. On FoundationNetworking `URLSession.shared`
/// takes a snapshot of the registered classes when it is first used and `unregisterClass`
/// does not change the snapshot, so registering can silently do nothing. HTTPMock therefore
/// registers one class for the whole process (the *bridge*), then proves it works with a probe
/// request to a reserved host that only the bridge answers.
///
/// Who the bridge serves is an owner stack: the instance that intercepted last serves; when
/// it stops or is deallocated, the one below it serves again. When the last interceptor is
/// deallocated without stopping, requests fail with a clear error (never the network) until
/// an instance intercepts or one calls `stopInterceptingSharedSession()`. With no interceptor
/// at all, the bridge declines every request (`canInit` is `false`), so `URLSession.shared`
/// behaves as if HTTPMock were not there.
enum SharedSessionBridge {
    struct Interceptor: Sendable {
        let registry: Registry
        /// Where `interceptSharedSession()` was called.
        let location: SourceLocation
    }

    /// Whom the bridge serves right now.
    enum Owner: Sendable {
        /// Nobody intercepts: the bridge declines requests.
        case idle
        case instance(Registry)
        /// The last interceptor was deallocated without stopping (it intercepted at this location).
        case orphaned(SourceLocation)
    }

    private struct State {
        /// Registered once and never replaced: `URLSession.shared` only sees the classes
        /// registered before the process's first session.
        var bridge: MockURLProtocol.Type?
        /// The owner stack; the last one serves.
        var interceptors: [Interceptor] = []
        var orphanedBy: SourceLocation?

        var owner: Owner {
            if let top = interceptors.last { return .instance(top.registry) }
            if let orphanedBy { return .orphaned(orphanedBy) }
            return .idle
        }
    }

    private static let state = Locked(State())

    /// A registry with no routes for the bridge class's table entry; the bridge routes through
    /// ``owner`` instead.
    private static let placeholder = Registry(
        passthroughSession: nil,
        creationLocation: SourceLocation(fileID: "HTTPMock/SharedSessionBridge.swift", filePath: #filePath, line: #line, column: 1))

    static var owner: Owner { state.withLock { $0.owner } }

    /// Whether the bridge takes requests at all (anyone intercepts, or the last interceptor vanished).
    static var isActive: Bool {
        if case .idle = owner { return false }
        return true
    }

    /// Pushes `registry` on the owner stack (moving it to the top if it is already there),
    /// registering the bridge on first use.
    /// - Returns: whether `URLProtocol.registerClass` accepted the class, and the interceptor
    ///   that was serving and is now displaced (another live instance), if any.
    static func attach(_ registry: Registry, at location: SourceLocation) -> (registered: Bool, displaced: Interceptor?) {
        state.withLock { state in
            if state.bridge == nil {
                InstanceTable.registerBridge(SharedSessionBridgeProtocol.self, registry: placeholder)
                guard URLProtocol.registerClass(SharedSessionBridgeProtocol.self) else { return (false, nil) }
                state.bridge = SharedSessionBridgeProtocol.self
            }
            let displaced = state.interceptors.last.flatMap { $0.registry === registry ? nil : $0 }
            state.interceptors.removeAll { $0.registry === registry }
            state.interceptors.append(Interceptor(registry: registry, location: location))
            state.orphanedBy = nil
            return (true, displaced)
        }
    }

    /// `stopInterceptingSharedSession()`: removes `registry` from the stack. When nobody is
    /// left, `URLSession.shared` goes to the network again (also after an orphaned state).
    static func stop(_ registry: Registry) {
        let removed = state.withLock { state -> [Interceptor] in
            let removed = state.interceptors.filter { $0.registry === registry }
            state.interceptors.removeAll { $0.registry === registry }
            if state.interceptors.isEmpty { state.orphanedBy = nil }
            return removed
        }
        withExtendedLifetime(removed) {}  // released outside the lock
    }

    /// The instance of `registry` is being deallocated: it leaves the stack; if it was the last
    /// interceptor, requests fail until someone intercepts or stops.
    static func detach(_ registry: Registry) {
        let removed = state.withLock { state -> [Interceptor] in
            let removed = state.interceptors.filter { $0.registry === registry }
            guard let last = removed.last else { return [] }
            state.interceptors.removeAll { $0.registry === registry }
            if state.interceptors.isEmpty { state.orphanedBy = last.location }
            return removed
        }
        withExtendedLifetime(removed) {}
    }

    /// Whether `registry` is on the stack.
    static func isIntercepting(_ registry: Registry) -> Bool {
        state.withLock { state in state.interceptors.contains { $0.registry === registry } }
    }

    /// The error of a request to `URLSession.shared` after the last interceptor went away.
    static func orphanedError(_ request: MockRequest, interceptedAt location: SourceLocation) -> HTTPMockError {
        HTTPMockError(
            .instanceDeallocated,
            "\(request) was sent through URLSession.shared, which the HTTPMock instance that called interceptSharedSession() at "
                + "\(location) served until it was deallocated without calling stopInterceptingSharedSession(). HTTPMock fails "
                + "URLSession.shared's requests rather than sending them to the network: call interceptSharedSession() on a live "
                + "instance, or stopInterceptingSharedSession() to let URLSession.shared reach the network again.")
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
        let http = MockResponse.HTTPPayload(
            status: .noContent, headers: [SharedSessionBridge.probeHeader: token], body: .none, defaultContentType: nil,
            preparedHeaderFields: nil)
        serveUnrecorded(.init(payload: .http(http), lifetime: .single, delivery: .instant))
    }

    /// A request to `URLSession.shared` that reached the bridge although nobody intercepts (it
    /// stopped between `canInit` and `startLoading`): sent to the network as if HTTPMock were
    /// not there; not journaled.
    func passThroughUnrecorded(_ request: MockRequest) {
        serveUnrecorded(.passthrough(), to: request)
    }
}

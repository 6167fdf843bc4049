@_exported import Foundation

#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif

/// An in-process HTTP mock: a registry of responses and the `URLSession` that is answered
/// from it instead of the network.
///
/// Every instance is isolated: its own routes, queues, journal and policies, and its own
/// `URLProtocol` class, so tests running in parallel never see each other's mocks.
/// ``shared`` is just one more instance.
///
/// ```swift
/// let mock = HTTPMock()
/// mock.addResponses(forPath: "/user", host: "api.example.com", responses: [
///     .encodable(User(name: "Ada")),
/// ])
/// let (data, response) = try await mock.urlSession.data(from: URL(string: "https://api.example.com/user")!)
/// ```
public final class HTTPMock: Sendable {
    /// The process-wide instance, for code that cannot take an instance as a parameter.
    public static let shared = HTTPMock()

    let registry: Registry
    private let protocolType: MockURLProtocol.Type

    /// The session that requests are served from this instance's mocks. Made once, on first
    /// use, with an ephemeral configuration, ``cookieStorage`` and no `URLCache`.
    ///
    /// Made lazily because on Linux the first `URLSession` a process makes fixes the protocol
    /// classes `URLSession.shared` will use; see ``interceptSharedSession(fileID:filePath:line:column:)``.
    ///
    /// If you invalidate it (`finishTasksAndInvalidate()` or `invalidateAndCancel()`, common in
    /// `tearDown`), the next use of `urlSession` makes a fresh session rather than handing back
    /// the invalidated one: FoundationNetworking kills the process when a task is created on an
    /// invalidated session.
    public var urlSession: URLSession {
        registry.followRunningTest()
        let lazySession = lazySession
        if let session = lazySession.withLock({ $0 }) { return session }
        // Made outside the lock: making a URLSession starts FoundationNetworking's work queue,
        // and HTTPMock holds no lock around thread creation. Two first uses at once each make
        // one; the first stored is handed to both, and the other is invalidated unused.
        let configuration = Self.configuration(from: .ephemeral, protocolClass: protocolType, cookieStorage: cookieStorage)
        let made = InvalidationAwareSession.make(configuration: configuration) { invalidated in
            // Forget the session synchronously, before FoundationNetworking invalidates it on
            // its work queue; the caller still holds it, so nothing is released under the lock.
            lazySession.withLock { current in
                if current === invalidated { current = nil }
            }
        }
        let (session, isMade) = lazySession.withLock { current -> (URLSession, Bool) in
            if let current { return (current, false) }
            current = made
            return (made, true)
        }
        if !isMade { made.invalidateAndCancel() }
        return session
    }

    private let lazySession = Locked<URLSession?>(nil)

    /// What other targets of this package keep per instance (``frontEndState(_:make:)``), by
    /// type: it lives and dies with the instance.
    let frontEndStates = Locked<[ObjectIdentifier: any Sendable]>([:])

    /// The cookie storage of ``urlSession`` and of every configuration
    /// ``makeSessionConfiguration(from:)`` returns: `Set-Cookie` headers of mocked responses are
    /// stored here, and later requests through those sessions carry them in `Cookie`.
    public let cookieStorage: HTTPCookieStorage

    /// A new, empty instance.
    ///
    /// - Parameters:
    ///   - passthroughSession: the session `.passthrough` requests (by policy or by
    ///     ``MockResponse/passthrough(lifetime:delivery:)``) are sent with; `nil` (the default)
    ///     means a plain ephemeral session without HTTPMock.
    ///   - fileID: The call site, for error reports; leave the default.
    ///   - filePath: The call site, for error reports; leave the default.
    ///   - line: The call site, for error reports; leave the default.
    ///   - column: The call site, for error reports; leave the default.
    public init(
        passthroughSession: URLSession? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        Reporter.prepare()
        let registry = Registry(
            passthroughSession: passthroughSession,
            creationLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        let protocolType = InstanceTable.makeProtocolClass(for: registry)
        let cookieStorage = URLSessionConfiguration.ephemeral.httpCookieStorage ?? HTTPCookieStorage.shared
        self.registry = registry
        self.protocolType = protocolType
        self.cookieStorage = cookieStorage
    }

    deinit {
        // A `.failTest` miss nobody reported (no XCTest test case or Swift Testing inbox took it).
        registry.reportUnreportedMisses()
        InstanceTable.remove(protocolType)
        // If this instance served `URLSession.shared`, the previous interceptor serves again; if
        // there is none, `URLSession.shared`'s requests fail until someone intercepts or stops.
        SharedSessionBridge.detach(registry)
        // `urlSession` is not invalidated: code may still hold it, and FoundationNetworking
        // kills the process when an invalidated session is used. Its requests now fail with
        // `HTTPMockError.instanceDeallocated`; it has no delegate, so it is freed with its last user.
    }

    /// This instance's `URLProtocol` class, for configurations you assemble yourself.
    public var protocolClass: URLProtocol.Type { protocolType }

    /// A copy of `base` with this instance's protocol class first in `protocolClasses`, for
    /// sessions you make yourself (a custom delegate, cookie storage, an API client's wrapper).
    ///
    /// ```swift
    /// let session = URLSession(configuration: mock.makeSessionConfiguration(), delegate: myDelegate, delegateQueue: nil)
    /// ```
    ///
    /// The copy's `urlCache` is `nil` (mocked responses are never cached, and on Linux an
    /// ephemeral cache nearly doubles the time of every request) and its `httpCookieStorage` is
    /// ``cookieStorage``, so all sessions of an instance share cookies like one browser. Set
    /// `httpCookieStorage` on the copy to use a storage of your own.
    public func makeSessionConfiguration(from base: URLSessionConfiguration = .ephemeral) -> URLSessionConfiguration {
        Self.configuration(from: base, protocolClass: protocolType, cookieStorage: cookieStorage)
    }

    private static func configuration(
        from base: URLSessionConfiguration, protocolClass: AnyClass,
        cookieStorage: HTTPCookieStorage
    ) -> URLSessionConfiguration {
        // `copy()` of a `URLSessionConfiguration` is always one; the fallback only satisfies the type checker.
        let configuration = (base.copy() as? URLSessionConfiguration) ?? URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [protocolClass] + (base.protocolClasses ?? []).filter { $0 != protocolClass }
        configuration.urlCache = nil
        configuration.httpCookieStorage = cookieStorage
        return configuration
    }

    // MARK: - Policies

    /// The host that registrations without `host:` use. Default `"example.com"`.
    public var defaultDomain: String {
        // One field of the snapshot, not a copy of every setting: the server reads it per request.
        get { registry.settingsSnapshot.value.defaultDomain }
        set { registry.updateSettings { $0.defaultDomain = newValue } }
    }

    /// What requests that no route matches receive. Default ``UnmockedPolicy/notFound``.
    public var unmockedPolicy: UnmockedPolicy {
        get { registry.settings.unmockedPolicy }
        set {
            registry.updateSettings { $0.unmockedPolicy = newValue }
            registry.followRunningTest()
        }
    }

    /// The longest any intercepted request may take, in seconds, dynamic handlers and
    /// passthrough included; past it the request fails with `URLError(.timedOut)` and a later
    /// answer is dropped. Default 15.
    ///
    /// Must be a finite number of seconds greater than 0. Anything else (NaN, 0, a negative or
    /// an infinite value) is a test failure naming the property and the value, and the previous
    /// value stays. A setter cannot take `#fileID`/`#line` parameters, so the failure is
    /// reported at the place this instance was made (``init(passthroughSession:fileID:filePath:line:column:)``'s
    /// call site); Swift Testing also attaches the backtrace of the assignment.
    public var timeout: TimeInterval {
        get { registry.settings.timeout }
        set {
            guard newValue.isFinite, newValue > 0 else {
                rejectSetting(
                    "timeout", newValue, requirement: "a finite number of seconds greater than 0", kept: registry.settings.timeout)
                return
            }
            registry.updateSettings { $0.timeout = newValue }
        }
    }

    /// How long a request forwarded over the server (``MockResponse/forward(to:lifetime:delivery:)``,
    /// WireMock's `proxyBaseUrl`, recording, `httpmock serve --forward-unmatched`) waits for its
    /// `http://` upstream, in seconds: for the answer's head, then between reads of its body.
    /// Default 60.
    ///
    /// An upstream that sends no head in time is answered `504 Gateway Timeout` naming it (and
    /// journaled as 504); one that stops in the middle of its body closes the client's
    /// connection. Either way the upstream connection is closed. `httpmock serve --proxy-timeout`
    /// sets it in milliseconds, as WireMock's flag of that name does. In process, a forward is a
    /// handler bounded by ``timeout``.
    ///
    /// ```swift
    /// mock.forwardTimeout = 5
    /// ```
    ///
    /// Must be a finite number of seconds greater than 0; anything else is a test failure naming
    /// the property and the value (reported like ``timeout``'s), and the previous value stays.
    public var forwardTimeout: TimeInterval {
        get { registry.settings.forwardTimeout }
        set {
            guard newValue.isFinite, newValue > 0 else {
                rejectSetting(
                    "forwardTimeout", newValue, requirement: "a finite number of seconds greater than 0",
                    kept: registry.settings.forwardTimeout)
                return
            }
            registry.updateSettings { $0.forwardTimeout = newValue }
        }
    }

    /// A delay, in seconds, before every response whose `delivery` is `.instant`. Default 0.
    ///
    /// Must be a finite number of seconds, 0 or more; anything else is a test failure naming the
    /// property and the value (reported like ``timeout``'s), and the previous value stays.
    public var defaultDelay: TimeInterval {
        get { registry.settings.defaultDelay }
        set {
            guard newValue.isFinite, newValue >= 0 else {
                rejectSetting(
                    "defaultDelay", newValue, requirement: "a finite number of seconds, 0 or more", kept: registry.settings.defaultDelay)
                return
            }
            registry.updateSettings { $0.defaultDelay = newValue }
        }
    }

    /// Reports an invalid setting. Setters cannot take caller locations, so the instance's
    /// creation site stands for it (the closest user code HTTPMock knows).
    private func rejectSetting(_ name: String, _ value: TimeInterval, requirement: String, kept: TimeInterval) {
        let owner = self === HTTPMock.shared ? "HTTPMock.shared" : "the HTTPMock made at \(registry.creationLocation)"
        Reporter.fail("\(name) must be \(requirement), got \(value); \(owner) keeps \(name) = \(kept)", at: registry.creationLocation)
    }

    /// Whether a 3xx response with a `Location` is followed inside HTTPMock (the client sees
    /// the final response) or returned as is. Default `true`.
    public var followsRedirects: Bool {
        get { registry.settings.followsRedirects }
        set { registry.updateSettings { $0.followsRedirects = newValue } }
    }

    // MARK: - URLSession.shared

    /// Makes requests through `URLSession.shared` (which cannot be given a configuration) be
    /// served by this instance, and checks that they are.
    ///
    /// ```swift
    /// // In the test bundle's setup, before anything creates a URLSession:
    /// HTTPMock.shared.interceptSharedSession()
    /// ```
    ///
    /// On Linux, `URLSession.shared` takes a snapshot of the registered protocol classes when
    /// the process makes its first session, so this works only if it runs before that. HTTPMock
    /// registers its class, then sends a probe to a reserved host through `URLSession.shared`;
    /// if the probe is not answered, it reports a warning naming the cause and the fix and
    /// returns `false`.
    ///
    /// Interceptors form a stack. When another instance already intercepts, this one takes
    /// over and a warning names both call sites (tests running in parallel cannot share
    /// `URLSession.shared`); when this one stops or is deallocated, the previous one serves
    /// again. When the last interceptor is deallocated without
    /// ``stopInterceptingSharedSession()``, `URLSession.shared`'s requests fail with
    /// ``HTTPMockError/Code/instanceDeallocated`` (never the network) until an instance
    /// intercepts or calls ``stopInterceptingSharedSession()``. Requests with schemes other
    /// than http(s) fail with `URLError(.unsupportedURL)` while anyone intercepts.
    ///
    /// - Parameters:
    ///   - fileID: The call site, for the warnings; leave the default.
    ///   - filePath: The call site, for the warnings; leave the default.
    ///   - line: The call site, for the warnings; leave the default.
    ///   - column: The call site, for the warnings; leave the default.
    /// - Returns: whether `URLSession.shared` is now served by this instance.
    @discardableResult
    public func interceptSharedSession(
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Bool {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let (registered, displaced) = SharedSessionBridge.attach(registry, at: location)
        guard registered else {
            Reporter.warn("interceptSharedSession(): URLProtocol.registerClass refused HTTPMock's class", at: location)
            return false
        }
        if let displaced {
            Reporter.warn(
                "interceptSharedSession() at \(location) takes URLSession.shared over from the HTTPMock instance that intercepted at "
                    + "\(displaced.location) and still does; that one serves again when this one stops or is deallocated. "
                    + "URLSession.shared is one per process: tests running in parallel cannot each intercept it (inject mock.urlSession instead).",
                at: location)
        }
        guard SharedSessionBridge.probe() else {
            SharedSessionBridge.stop(registry)
            Reporter.warn(
                "interceptSharedSession(): URLSession.shared is not served by HTTPMock. On Linux, URLSession.shared "
                    + "snapshots the registered URLProtocol classes when the process makes its first URLSession, and "
                    + "one was made before this call. Call interceptSharedSession() before anything makes or uses a "
                    + "URLSession (for example first thing in the test bundle's setup), or inject mock.urlSession instead.",
                at: location)
            return false
        }
        return true
    }

    /// Stops serving `URLSession.shared`. The instance that intercepted before this one (if it
    /// still does) serves again; with none left, `URLSession.shared` goes to the network as if
    /// HTTPMock were not there. (The class cannot be unregistered on Linux; it declines every
    /// request instead.) An instance that is deallocated while serving stops too, but then
    /// requests fail until someone intercepts or stops: see
    /// ``interceptSharedSession(fileID:filePath:line:column:)``.
    public func stopInterceptingSharedSession() {
        SharedSessionBridge.stop(registry)
    }

    // MARK: - Journal

    /// Every request this instance intercepted, in arrival order, matched or not.
    public var recordedRequests: [RecordedRequest] { Array(registry.journal) }

    /// The recorded requests whose path is `path` (normalised as routes are: `/a/`, `a` and
    /// `/a` are one path) and, when given, whose method is `method`.
    public func requests(to path: String, method: HTTPMethod? = nil) -> [RecordedRequest] {
        let path = RoutePath.normalize(path)
        return registry.journal.filter { entry in
            entry.request.normalizedPath == path && (method == nil || entry.request.method == method)
        }
    }

    // MARK: - Clearing

    /// Removes every registration, pending response and journal entry, moves every scenario
    /// back to ``ScenarioState/started`` and empties ``store``. Policies stay.
    public func clearQueues() {
        registry.clear()
    }

    /// Removes the registrations of `host` (any port) and the journal entries of requests to it.
    public func clearQueue(forHost host: String) {
        registry.clear(host: host)
    }
}

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

    /// The session that requests are served from this instance's mocks. Made once, with an
    /// ephemeral configuration and no `URLCache`.
    public let urlSession: URLSession

    /// The session `.passthrough` responses are sent with; `nil` means a plain ephemeral
    /// session without HTTPMock's protocol.
    let passthroughSession: URLSession?

    /// A new, empty instance.
    ///
    /// - Parameter passthroughSession: the session unmatched or `.passthrough` requests are sent
    ///   with when the policy says so; `nil` (the default) means a plain ephemeral session.
    public init(passthroughSession: URLSession? = nil) {
        Reporter.prepare()
        let registry = Registry()
        let protocolType = InstanceTable.makeProtocolClass(for: registry)
        self.registry = registry
        self.protocolType = protocolType
        self.passthroughSession = passthroughSession
        self.urlSession = URLSession(configuration: Self.configuration(from: .ephemeral, protocolClass: protocolType))
    }

    deinit {
        InstanceTable.remove(protocolType)
        urlSession.finishTasksAndInvalidate()
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
    /// The copy's `urlCache` is `nil`: mocked responses are never cached, and on Linux an
    /// ephemeral cache nearly doubles the time of every request.
    public func makeSessionConfiguration(from base: URLSessionConfiguration = .ephemeral) -> URLSessionConfiguration {
        Self.configuration(from: base, protocolClass: protocolType)
    }

    private static func configuration(from base: URLSessionConfiguration, protocolClass: AnyClass) -> URLSessionConfiguration {
        // `copy()` of a `URLSessionConfiguration` is always one; the fallback only satisfies the type checker.
        let configuration = (base.copy() as? URLSessionConfiguration) ?? URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [protocolClass] + (base.protocolClasses ?? []).filter { $0 != protocolClass }
        configuration.urlCache = nil
        return configuration
    }

    // MARK: - Policies

    /// The host that registrations without `host:` use. Default `"example.com"`.
    public var defaultDomain: String {
        get { registry.settings.defaultDomain }
        set { registry.updateSettings { $0.defaultDomain = newValue } }
    }

    /// What requests that no route matches receive. Default ``UnmockedPolicy/notFound``.
    public var unmockedPolicy: UnmockedPolicy {
        get { registry.settings.unmockedPolicy }
        set { registry.updateSettings { $0.unmockedPolicy = newValue } }
    }

    /// The longest any intercepted request may take, in seconds. Default 15.
    public var timeout: TimeInterval {
        get { registry.settings.timeout }
        set { registry.updateSettings { $0.timeout = newValue } }
    }

    /// A delay added to every response, in seconds. Default 0.
    public var defaultDelay: TimeInterval {
        get { registry.settings.defaultDelay }
        set { registry.updateSettings { $0.defaultDelay = newValue } }
    }

    // MARK: - Journal

    /// Every request this instance intercepted, in arrival order, matched or not.
    public var recordedRequests: [RecordedRequest] { registry.journal }

    /// The recorded requests whose path is `path` (normalised as routes are: `/a/`, `a` and
    /// `/a` are one path) and, when given, whose method is `method`.
    public func requests(to path: String, method: HTTPMethod? = nil) -> [RecordedRequest] {
        let path = RoutePath.normalize(path)
        return registry.journal.filter { entry in
            entry.request.normalizedPath == path && (method == nil || entry.request.method == method)
        }
    }

    // MARK: - Clearing

    /// Removes every registration, pending response and journal entry. Policies stay.
    public func clearQueues() {
        registry.clear()
    }

    /// Removes the registrations of `host` (any port) and the journal entries of requests to it.
    public func clearQueue(forHost host: String) {
        registry.clear(host: host)
    }
}

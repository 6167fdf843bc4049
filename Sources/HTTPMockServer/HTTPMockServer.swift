#if Server
import Foundation
import HTTPMock
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// An `HTTPMock` instance served over HTTP/1.1 (and HTTP/2, and HTTPS: ``HTTPMockTLS``) on a loopback socket, for clients that cannot
/// take a `URLSession`: AsyncHTTPClient, an app under UI test in another process, curl.
///
/// The server is a second transport over the same registry: routes, queues, matchers, the
/// journal, near misses and `verify()` are the instance's own.
///
/// ```swift
/// let mock = HTTPMock()
/// mock.addResponses(forPath: "/users/1", host: "api.example.com", responses: [.json(#"{"id":1}"#)])
/// let server = try await mock.startServer(impersonating: "api.example.com")
/// // GET \(server.baseURL)/users/1 is matched as https://api.example.com/users/1
/// await server.stop()
/// ```
public final class HTTPMockServer: Sendable {
    /// The server's address, `http://HOST:PORT` (`https://` for a server started with `tls:`),
    /// without a trailing slash.
    public let baseURL: URL
    /// The certificate authority that signed the server's certificate, in PEM, for clients to
    /// trust (curl `--cacert`, `REQUESTS_CA_BUNDLE`): set for ``HTTPMockTLS/generated`` and
    /// ``HTTPMockTLS/generated(caDirectory:)``, `nil` for a plain server or a certificate of
    /// the user's own.
    public let certificateAuthorityPEM: String?
    /// The port the server listens on (the one picked when `port: 0` was asked).
    public let port: Int
    /// The host the server listens on, the one in ``baseURL`` (`127.0.0.1` for the default
    /// loopback, which listens on ``listeningAddresses``).
    public let host: String
    /// Every address the server listens on, all on ``port``: `["127.0.0.1", "::1"]` for the
    /// default loopback (`["127.0.0.1"]` on a machine without an IPv6 loopback), else the one
    /// `host` given to `startServer`.
    public let listeningAddresses: [String]
    /// The default of `startServer`'s `maximumRequestBody`: 64 MB.
    public static let defaultMaximumRequestBody = 64 * 1024 * 1024

    private let serverChannels: [any Channel]
    private let connections: Connections

    init(
        host: String, port: Int, serverChannels: [(address: String, channel: any Channel)], connections: Connections,
        secure: Bool = false, certificateAuthorityPEM: String? = nil
    ) {
        self.certificateAuthorityPEM = certificateAuthorityPEM
        self.host = host
        self.port = port
        self.listeningAddresses = serverChannels.map(\.address)
        self.serverChannels = serverChannels.map(\.channel)
        self.connections = connections
        let hostInURL = host.contains(":") ? "[\(host)]" : host
        self.baseURL = URL(string: "\(secure ? "https" : "http")://\(hostInURL):\(port)")!
    }

    /// Stops listening and ends every connection, in-flight requests included (their clients
    /// see the connection close). Returns promptly; calling it again does nothing.
    public func stop() async {
        for channel in serverChannels { try? await channel.close() }
        await connections.closeAll()
    }

    /// A server dropped without ``stop()`` stops listening and closes its connections, so it
    /// answers nothing more and releases the instance it serves.
    deinit {
        for channel in serverChannels { channel.close(promise: nil) }
        connections.closeAllNow()
    }
}

/// One line per exchange the server answered, for the CLI.
package struct ServedExchangeRecord: Sendable {
    package let method: String
    package let target: String
    /// The status sent, `nil` when the connection was closed without a response or held.
    package let statusCode: Int?
    package let outcome: String
    package let duration: TimeInterval
}

extension HTTPMock {
    /// Serves this instance over HTTP/1.1.
    ///
    /// A request whose `Host` names the server itself (its address, `localhost`, any port) is
    /// matched as if sent to `impersonating` (default `defaultDomain`, over https unless the
    /// value names a scheme). A request in absolute form (`GET http://api.example.com/x`, as
    /// sent to a proxy), or whose `Host` names another host, is matched against that host, so
    /// the server can be a client's HTTP proxy; a `CONNECT host:port` tunnel (not port 443) is
    /// served as plain HTTP inside.
    ///
    /// By default the server listens on loopback in both families, `127.0.0.1` and `::1`, on
    /// the same port, so `http://localhost:PORT` works whichever address a client resolves
    /// `localhost` to first (Node 17 and later may try `::1` first); ``HTTPMockServer/baseURL``
    /// names `127.0.0.1`. On a machine without an IPv6 loopback (`::1` cannot be bound) it
    /// listens on `127.0.0.1` alone. A `host` binds that one address only.
    ///
    /// ```swift
    /// let server = try await mock.startServer()                 // 127.0.0.1 and ::1, a free port
    /// let server = try await mock.startServer(port: 8080, impersonating: "api.example.com")
    /// let server = try await mock.startServer(host: "127.0.0.1") // IPv4 loopback only
    /// ```
    ///
    /// - Parameters:
    ///   - host: The one address to bind; `nil` (the default): `127.0.0.1` and `::1`.
    ///   - port: The port; `0` (the default) picks a free one, see ``HTTPMockServer/port``.
    ///   - impersonating: The host that requests naming the server are matched as.
    ///   - idleTimeout: Seconds after which a connection with no request in flight is closed.
    ///   - maximumRequestBody: The largest request body, in bytes, the server reads (default
    ///     64 MB); a larger one is answered 413 without being buffered beyond the limit.
    ///   - admin: Serve WireMock's admin API and the dashboard under `/__admin/` (the
    ///     guide *Live control* in HTTPMock's documentation), and Voodoo's `/_admin/` routes;
    ///     off by default. Admin requests are not journaled and never match routes. A web page
    ///     of another origin, a `Host` that does not name the server and a `POST` that is not
    ///     JSON are refused (the guide's *Admin access*).
    ///   - adminToken: The token every admin request must send (`Authorization: Bearer TOKEN`);
    ///     needed for `admin: true` on an address that is not loopback.
    ///   - adminAllowedOrigins: Origins (`http://localhost:3000`) whose pages may call the admin
    ///     API (CORS), as `--admin-allow-origin`.
    ///   - tls: Serve HTTPS instead of plain HTTP, with HTTP/2 offered by ALPN (``HTTPMockTLS``);
    ///     `nil` (the default): plain HTTP/1.1, and HTTP/2 for clients that open with its
    ///     preface (h2c with prior knowledge). Nothing of TLS is loaded without it.
    ///   - trustedUpstreamCertificates: A PEM file of CA certificates that forwards to
    ///     `https://` upstreams trust besides the system's trust store (an upstream with a
    ///     certificate of its own, as in tests).
    ///   - logger: Where the instance's server-side messages go from now on (Voodoo scripts,
    ///     dropped webhooks): sets ``HTTPMock/HTTPMock/serverLogger``, which every server of the
    ///     instance shares. `nil` (the default) leaves it as it is (standard error unless set).
    /// - Returns: The running server; call ``HTTPMockServer/stop()`` when done.
    /// - Throws: An `HTTPMockError` naming the address and the cause when it cannot be bound
    ///   (a port in use, an unknown host), when an argument is out of range, when `admin` is
    ///   asked on an address that is not loopback without `adminToken`, or naming the file when
    ///   a certificate or key of `tls` or `trustedUpstreamCertificates` cannot be read.
    public func startServer(
        host: String? = nil, port: Int = 0, impersonating: String? = nil,
        idleTimeout: TimeInterval = 60, maximumRequestBody: Int = HTTPMockServer.defaultMaximumRequestBody,
        admin: Bool = false, adminToken: String? = nil, adminAllowedOrigins: [String] = [],
        tls: HTTPMockTLS? = nil, trustedUpstreamCertificates: URL? = nil, logger: Logger? = nil
    ) async throws -> HTTPMockServer {
        var api: AdminAPI?
        if admin {
            guard adminToken != nil || AdminAccess.isLoopback(host ?? Self.loopbackV4) else {
                throw HTTPMockError(
                    .invalidRegistration,
                    "startServer: admin: true on \(host ?? Self.loopbackV4), which is not a loopback address, needs adminToken: (every admin request then sends Authorization: Bearer TOKEN)"
                )
            }
            api = AdminAPI(mock: self, access: try AdminAccess(token: adminToken, allowedOrigins: adminAllowedOrigins))
        }
        let server = try await startServer(
            host: host, port: port, impersonating: impersonating, idleTimeout: idleTimeout,
            maximumRequestBody: maximumRequestBody, admin: api, tls: tls, trustedUpstreamCertificates: trustedUpstreamCertificates,
            onExchange: nil)
        if let logger { serverLogger = logger }
        api?.setShutdownHandler { [weak server] in Task { await server?.stop() } }
        return server
    }

    /// The default loopback's addresses: the one ``HTTPMockServer/baseURL`` names, and the
    /// IPv6 one bound beside it on the same port.
    static let loopbackV4 = "127.0.0.1"
    static let loopbackV6 = "::1"

    /// ``startServer(host:port:impersonating:idleTimeout:maximumRequestBody:admin:adminToken:adminAllowedOrigins:tls:trustedUpstreamCertificates:logger:)`` with a
    /// callback per exchange (the CLI's log).
    package func startServer(
        host: String?, port: Int, impersonating: String?, idleTimeout: TimeInterval,
        maximumRequestBody: Int = HTTPMockServer.defaultMaximumRequestBody, admin: AdminAPI? = nil,
        tls: HTTPMockTLS? = nil, trustedUpstreamCertificates: URL? = nil,
        onExchange: (@Sendable (ServedExchangeRecord) -> Void)?
    ) async throws -> HTTPMockServer {
        guard idleTimeout > 0, idleTimeout.isFinite else {
            throw HTTPMockError(.invalidRegistration, "startServer: idleTimeout must be a finite number of seconds > 0, got \(idleTimeout)")
        }
        guard maximumRequestBody >= 0 else {
            throw HTTPMockError(
                .invalidRegistration, "startServer: maximumRequestBody must be a number of bytes ≥ 0, got \(maximumRequestBody)")
        }
        guard (0...65535).contains(port) else {
            throw HTTPMockError(.invalidRegistration, "startServer: port must be in 0...65535, got \(port)")
        }
        let connections = Connections()
        let upstreamTLS = try trustedUpstreamCertificates.map { try UpstreamTLS(trusting: $0) } ?? UpstreamTLS()
        let site = ServingSite(
            mock: self, boundHost: host ?? Self.loopbackV4, impersonating: impersonating, maximumRequestBody: maximumRequestBody,
            admin: admin, upstreamTLS: upstreamTLS, onExchange: onExchange)
        // Made only when HTTPS is asked: a plain server loads nothing of TLS.
        let secure = try tls.map { try $0.makeContext(host: host) }
        // A huge idle timeout (1e10 s) saturates instead of trapping in the conversion.
        let idle = TimeAmount.nanoseconds(Int64(WaitTime.nanoseconds(idleTimeout)))
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            // A request followed by a half-close (`shutdown(SHUT_WR)`) is answered before closing.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                if let context = secure?.context {
                    connections.add(channel)
                    return ConnectionHandler.installSecure(on: channel, site: site, idleTimeout: idle, context: context)
                }
                return channel.eventLoop.makeCompletedFuture {
                    try ConnectionHandler.installPlain(on: channel, site: site, idleTimeout: idle)
                    connections.add(channel)
                }
            }
        let channels = try await Self.bind(bootstrap, host: host, port: port)
        let boundPort = channels[0].channel.localAddress?.port ?? port
        site.setPort(boundPort)
        return HTTPMockServer(
            host: host ?? Self.loopbackV4, port: boundPort, serverChannels: channels, connections: connections, secure: secure != nil,
            certificateAuthorityPEM: secure?.authorityPEM)
    }

    /// Binds `host`, or, for `nil`, `127.0.0.1` and then `::1` on the port the first got (with
    /// `port` 0, a port free in IPv4 but taken in IPv6 is given back and another one picked,
    /// a few times). `::1` is left out when the machine has no IPv6 loopback.
    private static func bind(
        _ bootstrap: ServerBootstrap, host: String?, port: Int
    ) async throws -> [(address: String, channel: any Channel)] {
        func open(_ address: String, _ port: Int) async throws -> (address: String, channel: any Channel) {
            let channel = try await bootstrap.bind(host: address, port: port).get()
            guard channel.localAddress?.port != nil else {
                try? await channel.close()
                throw HTTPMockError(.invalidRegistration, "startServer: the socket bound to \(address):\(port) has no port")
            }
            return (address, channel)
        }
        guard host == nil else {
            let address = host ?? loopbackV4
            do { return [try await open(address, port)] } catch { throw bindError(error, host: address, port: port) }
        }
        var attempts = 0
        while true {
            let first: (address: String, channel: any Channel)
            do { first = try await open(loopbackV4, port) } catch { throw bindError(error, host: loopbackV4, port: port) }
            let boundPort = first.channel.localAddress?.port ?? port
            do {
                return [first, try await open(loopbackV6, boundPort)]
            } catch {
                let code = (error as? IOError)?.errnoCode
                // No IPv6 on this machine (a container without it): IPv4 alone, as before.
                if code == EADDRNOTAVAIL || code == EAFNOSUPPORT || code == EPROTONOSUPPORT || error is SocketAddressError {
                    return [first]
                }
                try? await first.channel.close()
                guard code == EADDRINUSE, port == 0, attempts < 8 else {
                    throw bindError(error, host: loopbackV6, port: boundPort)
                }
                attempts += 1
            }
        }
    }
}

/// The open connections of one server, so `stop()` can end them.
final class Connections: Sendable {
    private let state = NIOLockedValueBox<(channels: [ObjectIdentifier: any Channel], stopped: Bool)>(([:], false))

    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let stopped = state.withLockedValue { state -> Bool in
            if !state.stopped { state.channels[id] = channel }
            return state.stopped
        }
        if stopped {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLockedValue { _ = $0.channels.removeValue(forKey: id) }
        }
    }

    /// Closes every connection without waiting (a dropped server's `deinit`).
    func closeAllNow() {
        let channels = state.withLockedValue { state -> [any Channel] in
            state.stopped = true
            defer { state.channels = [:] }
            return Array(state.channels.values)
        }
        for channel in channels { channel.close(promise: nil) }
    }

    func closeAll() async {
        let channels = state.withLockedValue { state -> [any Channel] in
            state.stopped = true
            defer { state.channels = [:] }
            return Array(state.channels.values)
        }
        for channel in channels {
            try? await channel.close()
        }
    }
}

/// What every connection of one server shares: the instance and the names of the server.
final class ServingSite: Sendable {
    let mock: HTTPMock
    let boundHost: String
    private let boundHostLowercased: String
    let onExchange: (@Sendable (ServedExchangeRecord) -> Void)?
    /// Request bodies over this many bytes get 413.
    let maximumRequestBody: Int
    /// The admin API, asked first for paths under `/__admin`.
    let admin: AdminAPI?
    private let impersonating: String?
    private let boundPort = NIOLockedValueBox(0)
    /// The server's name in the `Via` field of the requests it forwards: a request that comes
    /// back carrying it is a loop (508).
    let hop = "httpmock-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
    /// TLS towards the `https://` upstreams of this server's forwards.
    let upstreamTLS: UpstreamTLS
    /// Where ``onExchange`` runs.
    private let exchanges = DispatchQueue(label: "HTTPMockServer.onExchange")

    init(
        mock: HTTPMock, boundHost: String, impersonating: String?, maximumRequestBody: Int,
        admin: AdminAPI? = nil, upstreamTLS: UpstreamTLS = UpstreamTLS(),
        onExchange: (@Sendable (ServedExchangeRecord) -> Void)?
    ) {
        self.mock = mock
        self.admin = admin
        self.upstreamTLS = upstreamTLS
        self.boundHost = boundHost
        self.boundHostLowercased = boundHost.lowercased()
        self.impersonating = impersonating
        self.maximumRequestBody = maximumRequestBody
        self.onExchange = onExchange
    }

    func setPort(_ port: Int) { boundPort.withLockedValue { $0 = port } }

    /// Hands one finished exchange to ``onExchange``, on a serial queue of the server's: in the
    /// order they finished, and never on the event loop (the CLI writes each to its log, which
    /// may be a pipe that blocks).
    func record(method: String, target: String, statusCode: Int?, outcome: @autoclosure () -> String, started: DispatchTime?) {
        guard let onExchange, let started else { return }
        // An admin target's `?token=` is never printed.
        let record = ServedExchangeRecord(
            method: method, target: target.hasPrefix("/_") ? AdminAccess.masked(target) : target, statusCode: statusCode,
            outcome: outcome(),
            duration: Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9)
        exchanges.async { onExchange(record) }
    }

    /// `host:port` of the server's own address, for a request that sent no `Host`.
    var authority: String {
        let port = boundPort.withLockedValue { $0 }
        let host = boundHost.contains(":") && !boundHost.hasPrefix("[") ? "[\(boundHost)]" : boundHost
        return "\(host):\(port)"
    }

    /// `scheme://host` that requests naming the server are matched as.
    var impersonatedOrigin: String {
        Self.origin(of: matchedDomain)
    }

    /// The host (or origin) that requests naming the server are matched as: `impersonating`,
    /// else the instance's ``HTTPMock/HTTPMock/defaultDomain`` (read each time: it may change).
    var matchedDomain: String {
        impersonating ?? mock.defaultDomain
    }

    /// `host` when it names a scheme (holds `://`), else `https://host`. A loop over the bytes:
    /// Foundation's `contains` and the standard library's `firstRange(of:)` each cost a
    /// measurable share of a request.
    static func origin(of host: String) -> String {
        var matched = 0  // how much of "://" the bytes before end with
        for byte in host.utf8 {
            if byte == UInt8(ascii: "/"), matched > 0 {
                if matched == 2 { return host }
                matched = 2
            } else {
                matched = byte == UInt8(ascii: ":") ? 1 : 0
            }
        }
        return "https://" + host
    }

    /// Whether `hostHeader` (`name[:port]`) names this server.
    func namesServer(_ hostHeader: String) -> Bool {
        let name = Self.hostName(of: hostHeader).lowercased()
        switch name {
        case "127.0.0.1", "localhost", "::1", boundHostLowercased: return true
        default: break
        }
        // Bound to every interface: any address of this machine can be in `Host`, so a
        // dotted or bracketed address is the server, and a name is a host to impersonate.
        if boundHost == "0.0.0.0" || boundHost == "::" {
            return name.allSatisfy { $0.isNumber || $0 == "." } || name.contains(":")
        }
        return false
    }

    /// The host part of `name[:port]` or `[v6]:port`.
    static func hostName(of hostHeader: String) -> String {
        if hostHeader.hasPrefix("["), let end = hostHeader.firstIndex(of: "]") {
            return String(hostHeader[hostHeader.index(after: hostHeader.startIndex)..<end])
        }
        if let colon = hostHeader.lastIndex(of: ":"), hostHeader.firstIndex(of: ":") == colon {
            return String(hostHeader[..<colon])
        }
        return hostHeader
    }
}
#endif

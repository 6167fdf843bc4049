#if Server
import Foundation
import HTTPMock
import HTTPMockServer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Forwarding over the server is bounded (SPEC §23): a forward to the server itself is a 508,
/// not a loop; an upstream that refuses or fails is a 502 naming it; an upstream body streams
/// through with bounded memory and stops when the client leaves (in a child process).
@Suite("Forwarding over the server is bounded (SPEC §23)")
struct ForwardingServerTests {
    /// A server for `api.example.com` forwarding `/slow/**` to `upstream`.
    static func forwarding(to upstream: SilentUpstream, forwardTimeout: TimeInterval) async throws -> (HTTPMock, HTTPMockServer) {
        let mock = HTTPMock()
        mock.forwardTimeout = forwardTimeout
        mock.addResponses(
            forPath: "/slow/**", host: "api.example.com",
            responses: [.forward(to: URL(string: "http://127.0.0.1:\(upstream.port)")!, lifetime: .eternal)])
        return (mock, try await mock.startServer(impersonating: "api.example.com"))
    }

    static func status(of response: String) -> Int? {
        Int(response.split(separator: " ", maxSplits: 2).dropFirst().first ?? "")
    }

    @Test("--forward-unmatched or proxyBaseUrl naming the server itself is answered 508 once, not looped")
    func forwardToItselfIs508() async throws {
        let mock = HTTPMock()
        let server = try await mock.startServer(impersonating: "api.example.com", admin: true)
        defer { Task { await server.stop() } }
        mock.unmockedPolicy = .mock(.forward(to: server.baseURL, lifetime: .eternal))
        let looped = try await rawExchange(port: server.port, "GET /loop HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 20)
        #expect(Self.status(of: looped) == 508, "\(looped)")
        #expect(looped.contains("Via") || looped.contains("loop"), "\(looped)")
        // The one request the client sent is journaled, and nothing goes on in the background.
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(mock.recordedRequests.count == 1, "journal: \(mock.recordedRequests.map(\.request.url))")

        let mapping = #"{"request":{"urlPathPattern":"/proxied/.*"},"response":{"proxyBaseUrl":"\#(server.baseURL.absoluteString)"}}"#
        let created = try await rawExchange(
            port: server.port,
            "POST /__admin/mappings HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(mapping.utf8.count)\r\n\r\n\(mapping)",
            timeout: 30)
        #expect(Self.status(of: created) == 201, "\(created)")
        let proxied = try await rawExchange(port: server.port, "GET /proxied/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 20)
        #expect(Self.status(of: proxied) == 508, "\(proxied)")
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(mock.recordedRequests.count == 2)
    }

    @Test("an upstream that refuses the connection or closes it without answering is a 502 naming it")
    func failingUpstreamIs502() async throws {
        let failing = HTTPMock()
        failing.addResponses(forPath: "/**", responses: [.failure(URLError(.networkConnectionLost), lifetime: .eternal)])
        let broken = try await failing.startServer()
        defer { Task { await broken.stop() } }
        let mock = HTTPMock()
        mock.addResponses(
            forPath: "/refused/**", host: "api.example.com",
            responses: [.forward(to: URL(string: "http://127.0.0.1:1")!, lifetime: .eternal)])
        mock.addResponses(forPath: "/broken/**", host: "api.example.com", responses: [.forward(to: broken.baseURL, lifetime: .eternal)])
        let server = try await mock.startServer(impersonating: "api.example.com")
        defer { Task { await server.stop() } }

        let refused = try await rawExchange(port: server.port, "GET /refused/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 20)
        #expect(Self.status(of: refused) == 502, "\(refused)")
        #expect(refused.contains("http://127.0.0.1:1/refused/x") && refused.contains("cannot be reached"), "\(refused)")
        let closed = try await rawExchange(port: server.port, "GET /broken/y HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 20)
        #expect(Self.status(of: closed) == 502, "\(closed)")
        #expect(closed.contains("\(broken.baseURL.absoluteString)/broken/y"), "\(closed)")
        #expect(mock.recordedRequests.map(\.statusCode) == [502, 502])
    }

    @Test("an upstream that accepts and never answers is a 504 naming it after forwardTimeout, and its connection is closed")
    func silentUpstreamIs504() async throws {
        let upstream = try SilentUpstream()
        defer { upstream.stop() }
        let (mock, server) = try await Self.forwarding(to: upstream, forwardTimeout: 0.5)
        defer { Task { await server.stop() } }
        let answer = try await rawExchange(port: server.port, "GET /slow/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 60)
        #expect(Self.status(of: answer) == 504, "\(answer)")
        #expect(answer.contains("http://127.0.0.1:\(upstream.port)/slow/x") && answer.contains("no answer within 0.5 s"), "\(answer)")
        #expect(mock.recordedRequests.map(\.statusCode) == [504])
        // The upstream connection is closed, not left open.
        #expect(try await upstream.waitUntilClosed(1, within: 60), "\(upstream.closed) of \(upstream.accepted) upstream connections closed")
    }

    @Test("a client that leaves while the upstream says nothing closes the upstream connection (no timeout needed)")
    func leavingClientClosesUpstream() async throws {
        let upstream = try SilentUpstream()
        defer { upstream.stop() }
        let (mock, server) = try await Self.forwarding(to: upstream, forwardTimeout: 3600)
        defer { _ = withExtendedLifetime(mock) { Task { await server.stop() } } }
        let port = server.port
        for round in 1...3 {
            let client = try await blocking { () -> RawClient in
                let client = try RawClient(port: port)
                try client.send("GET /slow/\(round) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                return client
            }
            #expect(try await upstream.waitUntilRead(round, within: 60), "the forward never reached the upstream")
            client.closeNow()
            #expect(
                try await upstream.waitUntilClosed(round, within: 60),
                "round \(round): the upstream connection stayed open after the client left (\(upstream.closed) closed)")
        }
    }

    @Test("httpmock serve --proxy-timeout (milliseconds) bounds --forward-unmatched: a silent upstream is a 504")
    func cliProxyTimeout() async throws {
        let upstream = try SilentUpstream()
        defer { upstream.stop() }
        let folder = try makeMocksFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (cli, port) = try await SafetyServerTests.serve(
            ["--forward-unmatched", "http://127.0.0.1:\(upstream.port)", "--proxy-timeout", "300"], folder: folder)
        defer { cli.process.terminate() }
        let answer = try await rawExchange(port: port, "GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 60)
        #expect(Self.status(of: answer) == 504, "\(answer)")
        #expect(answer.contains("http://127.0.0.1:\(upstream.port)/nowhere"), "\(answer)")
        let refused = try RunningCLI(["serve", "--proxy-timeout", "0"], directory: folder)
        #expect(try await refused.waitForExit(timeout: 30) != 0)
        #expect(refused.text.contains("--proxy-timeout must be"), "\(refused.text)")
    }

    @Test(
        "a 10 GB upstream streams through with bounded memory: paced by the client, stopped when it leaves",
        .enabled(if: ServerChildProcess.isAvailable, "needs a child process"))
    func upstreamBodyIsBounded() async throws {
        let outcome = try await ServerChildProcess.run("forwardBounded", timeout: 240)
        #expect(outcome.passed, "\(outcome)")
    }
}

extension ServerChildScenarios {
    /// Resident set size of this process, from `/proc/self/statm`.
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// A forward of a 10 GB body: a client that stops reading holds the upstream back (at most
    /// socket buffers and the relay's window in between), resident memory grows by less than
    /// 64 MB, and the upstream's writes fail soon after the client leaves.
    static func forwardBounded() async throws {
        let upstream = try EndlessUpstream(size: 10 << 30)
        let mock = HTTPMock()
        mock.addResponses(
            forPath: "/big", host: "api.example.com",
            responses: [.forward(to: URL(string: "http://127.0.0.1:\(upstream.port)")!, lifetime: .eternal)])
        let server = try await mock.startServer(impersonating: "api.example.com")
        let baseline = residentBytes()
        let port = server.port
        let (paused, read, peak) = try await blocking { () -> (Int, Int, Int) in
            let client = try DiscardingClient(port: port)
            try client.send("GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            try client.discard(8 << 20, within: 60)
            // The client stops reading: the upstream may run ahead only by what buffers hold.
            Thread.sleep(forTimeInterval: 2)
            let paused = upstream.sent - client.received
            var peak = residentBytes()
            for _ in 0..<16 {
                try client.discard(16 << 20, within: 60)
                peak = max(peak, residentBytes())
            }
            client.close()
            return (paused, client.received, peak)
        }
        #expect(read >= 256 << 20)
        #expect(paused < 64 << 20, "the upstream ran \(paused >> 20) MB ahead of a client that stopped reading")
        #expect(peak - baseline < 64 << 20, "resident memory grew by \((peak - baseline) >> 20) MB")
        // The client left: the download stops (the upstream's writes fail), long before 10 GB.
        let deadline = Date().addingTimeInterval(30)
        while !upstream.ended, Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
        #expect(upstream.ended, "the upstream was still being read after the client left (\(upstream.sent >> 20) MB sent)")
        #expect(upstream.sent < 10 << 30)
        await server.stop()
    }
}

/// A loopback HTTP server for one request, answered with `size` zero bytes (a `Content-Length`
/// body) written as fast as the reader takes them; it tells how much it sent and whether its
/// writing ended (the reader closed, or all was sent).
final class EndlessUpstream: @unchecked Sendable {
    // @unchecked: `sentBytes` and `isEnded` are guarded by `lock`.
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var sentBytes = 0
    private var isEnded = false

    var sent: Int { lock.withLock { sentBytes } }
    var ended: Bool { lock.withLock { isEnded } }

    init(size: Int) throws {
        (listener, port) = try listenOnLoopback(backlog: 4, for: "EndlessUpstream")
        let thread = Thread { [self] in serve(size: size) }
        thread.start()
    }

    private func serve(size: Int) {
        defer {
            close(listener)
            lock.withLock { isEnded = true }
        }
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }
        defer { close(connection) }
        var request = [UInt8](repeating: 0, count: 65536)
        var head = Data()
        while !String(decoding: head, as: UTF8.self).contains("\r\n\r\n") {
            let count = recv(connection, &request, request.count, 0)
            guard count > 0 else { return }
            head.append(contentsOf: request[0..<count])
        }
        let answer = Array("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(size)\r\n\r\n".utf8)
        guard send(connection, answer, answer.count, Int32(MSG_NOSIGNAL)) == answer.count else { return }
        let chunk = [UInt8](repeating: 0, count: 65536)
        var left = size
        while left > 0 {
            let count = send(connection, chunk, min(chunk.count, left), Int32(MSG_NOSIGNAL))
            guard count > 0 else { return }
            left -= count
            lock.withLock { sentBytes += count }
        }
    }
}

/// A loopback client that counts what it reads and keeps none of it.
final class DiscardingClient {
    private var socket: Int32
    private(set) var received = 0
    private var buffer = [UInt8](repeating: 0, count: 65536)

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw CLITestError("DiscardingClient: cannot connect (\(errno))") }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close() }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(socket, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw CLITestError("send failed") }
    }

    /// Reads and drops `count` more bytes; throws when they do not come within `seconds`.
    func discard(_ count: Int, within seconds: TimeInterval) throws {
        let target = received + count
        let deadline = Date().addingTimeInterval(seconds)
        while received < target {
            guard Date() < deadline else { throw CLITestError("only \(received) bytes arrived, \(target) expected") }
            let read = recv(socket, &buffer, buffer.count, 0)
            if read > 0 {
                received += read
            } else if read == 0 {
                throw CLITestError("the connection closed after \(received) bytes")
            }
        }
    }

    func close() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
    }
}
/// A loopback server that accepts connections, reads each request's head and never answers;
/// it counts the connections it accepted, read a request from, and saw closed by the other side.
final class SilentUpstream: @unchecked Sendable {
    // @unchecked: the counters are guarded by `lock`.
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var counts = (accepted: 0, read: 0, closed: 0)
    private var stopped = false

    var accepted: Int { lock.withLock { counts.accepted } }
    var closed: Int { lock.withLock { counts.closed } }

    init() throws {
        (listener, port) = try listenOnLoopback(backlog: 16, for: "SilentUpstream")
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    func stop() { lock.withLock { stopped = true } }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Whether at least `count` connections were read from / closed by the other side within `seconds`.
    func waitUntilRead(_ count: Int, within seconds: TimeInterval) async throws -> Bool {
        try await wait(within: seconds) { $0.read >= count }
    }

    func waitUntilClosed(_ count: Int, within seconds: TimeInterval) async throws -> Bool {
        try await wait(within: seconds) { $0.closed >= count }
    }

    private func wait(within seconds: TimeInterval, until done: ((accepted: Int, read: Int, closed: Int)) -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if done(lock.withLock({ counts })) { return true }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return done(lock.withLock { counts })
    }

    private func acceptLoop() {
        defer { close(listener) }
        while !isStopped {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            lock.withLock { counts.accepted += 1 }
            Thread.detachNewThread { [self] in hold(connection) }
        }
    }

    /// Reads the request, then waits, answering nothing, until the other side closes.
    private func hold(_ connection: Int32) {
        defer { close(connection) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var received = Data()
        var sawRequest = false
        while !isStopped {
            var poller = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 {
                lock.withLock { counts.closed += 1 }
                return
            }
            guard !sawRequest else { continue }  // the body: read and dropped
            received.append(contentsOf: buffer[0..<count])
            if String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
                sawRequest = true
                lock.withLock { counts.read += 1 }
            }
        }
    }
}
/// A socket listening on 127.0.0.1 at a free port, and the port; `name` is for the error.
private func listenOnLoopback(backlog: Int32, for name: String) throws -> (socket: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound, listen(fd, backlog) == 0 else {
        let failure = errno
        close(fd)
        throw CLITestError("\(name): cannot listen (\(failure))")
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}
#endif

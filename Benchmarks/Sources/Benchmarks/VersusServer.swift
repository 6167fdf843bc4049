import Foundation
import HTTPMock
import Hummingbird

/// HTTPMock against a real HTTP server on 127.0.0.1 (Hummingbird 2) answering the same 100-byte
/// response through a plain URLSession: the speed-up a test suite gains by not running a mock
/// server. Reported, no target.
enum VersusServer {
    static let requests = 1_000
    static let rounds = 5

    static func run() async throws -> [Row] {
        let body = String(repeating: "x", count: 100)
        let (server, boundPort) = try await HummingbirdServer.start(body: body)
        defer { server.cancel() }

        let plain = URLSession(
            configuration: {
                let configuration = URLSessionConfiguration.ephemeral
                configuration.urlCache = nil
                return configuration
            }())
        let serverRequest = URLRequest(url: URL(string: "http://127.0.0.1:\(boundPort)/item")!)

        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/item", host: "127.0.0.1", responses: [.plaintext(body, lifetime: .eternal)])
        let mockSession = mock.urlSession

        let times = try await Harness.interleaved(
            rounds: rounds,
            [
                Harness.perRequest(plain, serverRequest, count: requests),
                Harness.perRequest(mockSession, serverRequest, count: requests),
                Harness.perRequest(plain, serverRequest, count: requests, tasks: 64),
                Harness.perRequest(mockSession, serverRequest, count: requests, tasks: 64),
            ])
        let rows = [
            Row(
                name: "Hummingbird on 127.0.0.1, sequential", value: String(format: "%.1f µs/req", times[0] * 1e6), ratio: 1,
                target: "baseline", met: nil),
            Row(
                name: "HTTPMock, sequential", value: String(format: "%.1f µs/req", times[1] * 1e6),
                ratio: times[0] / times[1], target: "speed-up", met: nil),
            Row(
                name: "Hummingbird on 127.0.0.1, 64 tasks", value: String(format: "%.1f µs/req", times[2] * 1e6), ratio: 1,
                target: "baseline", met: nil),
            Row(
                name: "HTTPMock, 64 tasks", value: String(format: "%.1f µs/req", times[3] * 1e6),
                ratio: times[2] / times[3], target: "speed-up", met: nil),
        ]
        Row.printTable(
            "HTTPMock vs a real loopback server (\(rounds) interleaved rounds × \(requests) requests, median; ratio = speed-up)", rows)
        return rows
    }
}

/// A Hummingbird 2 server on 127.0.0.1 answering `GET /item` with `body`: the baseline the
/// server benchmarks compare with.
enum HummingbirdServer {
    /// Starts it on a free port; cancel the task to stop it.
    static func start(body: String) async throws -> (task: Task<Void, any Error>, port: Int) {
        let router = Router()
        router.get("item") { _, _ in body }
        let port = PortBox()
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.set(channel.localAddress?.port ?? 0) })
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        return (task, try await port.wait())
    }
}

/// The port the server bound, handed from its startup callback to the benchmark.
final class PortBox: @unchecked Sendable {
    // @unchecked: `port` is guarded by `lock`.
    private let lock = NSLock()
    private var port = 0

    func set(_ value: Int) { lock.withLock { port = value } }

    func wait() async throws -> Int {
        for _ in 0..<500 {
            let value = lock.withLock { port }
            if value != 0 { return value }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        throw URLError(.cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey: "Hummingbird did not start"])
    }
}

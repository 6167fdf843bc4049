import AsyncHTTPClient
import Foundation
import HTTPMock
import HTTPMockServer
import NIOCore

/// HTTPMockServer against a Hummingbird 2 server answering the same 100-byte body, both on
/// 127.0.0.1, AsyncHTTPClient as the client (SPEC §9): throughput at 64 connections ≥ 0.8×
/// Hummingbird's, sequential latency ≤ 1.25× it. Then a 1 GB file through HTTPMockServer:
/// peak memory < 64 MB above the baseline.
enum ServerVersusHummingbird {
    static let requests = 2_000
    static let rounds = 5

    static func run() async throws -> [Row] {
        let body = String(repeating: "x", count: 100)
        let (hummingbird, hummingbirdPort) = try await HummingbirdServer.start(body: body)
        defer { hummingbird.cancel() }
        let hummingbirdURL = "http://127.0.0.1:\(hummingbirdPort)/item"

        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/item", responses: [.plaintext(body, lifetime: .eternal)])
        let server = try await mock.startServer()
        let mockURL = server.baseURL.absoluteString + "/item"

        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

        let times = try await Harness.interleaved(
            rounds: rounds,
            [
                perRequest(client, hummingbirdURL, count: requests, tasks: 1),
                perRequest(client, mockURL, count: requests, tasks: 1),
                perRequest(client, hummingbirdURL, count: requests, tasks: 64),
                perRequest(client, mockURL, count: requests, tasks: 64),
            ])
        let latencyRatio = times[1] / times[0]
        let throughputRatio = times[2] / times[3]  // requests per second, HTTPMock over Hummingbird
        var rows = [
            Row(
                name: "Hummingbird 2, sequential (AHC)", value: String(format: "%.1f µs/req", times[0] * 1e6), ratio: 1, target: "baseline",
                met: nil),
            Row(
                name: "HTTPMockServer, sequential latency", value: String(format: "%.1f µs/req", times[1] * 1e6),
                ratio: latencyRatio, target: "≤ 1.25×", met: latencyRatio <= 1.25),
            Row(
                name: "Hummingbird 2, 64 connections", value: String(format: "%.0f req/s", 1 / times[2]), ratio: 1, target: "baseline",
                met: nil),
            Row(
                name: "HTTPMockServer, 64 connections throughput", value: String(format: "%.0f req/s", 1 / times[3]),
                ratio: throughputRatio, target: "≥ 0.8×", met: throughputRatio >= 0.8),
        ]

        rows.append(try await largeFile(client: client, mock: mock, server: server))
        try await client.shutdown()
        await server.stop()
        Row.printTable(
            "HTTPMockServer vs Hummingbird 2 on 127.0.0.1, AsyncHTTPClient (\(rounds) interleaved rounds × \(requests) requests, median)",
            rows)
        return rows
    }

    /// Seconds per request for `count` GETs of `url`, over `tasks` concurrent tasks.
    static func perRequest(_ client: HTTPClient, _ url: String, count: Int, tasks: Int) -> () async throws -> Double {
        {
            try await Harness.time {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for task in 0..<tasks {
                        group.addTask {
                            for _ in stride(from: task, to: count, by: tasks) {
                                let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
                                _ = try await response.body.collect(upTo: 1 << 20)
                                guard response.status == .ok else { throw URLError(.badServerResponse) }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            } / Double(count)
        }
    }

    /// A 1 GB file fixture streamed through the server to AHC, the body counted and dropped.
    static func largeFile(client: HTTPClient, mock: HTTPMock, server: HTTPMockServer) async throws -> Row {
        let size = 1 << 30
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-server-1gb.bin")
        if (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) != size {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
            let handle = try FileHandle(forWritingTo: url)
            let block = Data(repeating: 0x42, count: 8 << 20)
            for _ in 0..<(size / block.count) { handle.write(block) }
            try handle.close()
        }
        defer { try? FileManager.default.removeItem(at: url) }
        mock.addResponses(forPath: "/big", responses: [.file(url: url)])
        let baseline = Harness.residentBytes()
        let peak = PeakSampler()
        let sampler = Task {
            while !Task.isCancelled {
                peak.sample()
                try? await Task.sleep(nanoseconds: 5_000_000)
            }
        }
        let response = try await client.execute(HTTPClientRequest(url: server.baseURL.absoluteString + "/big"), timeout: .seconds(600))
        var received = 0
        for try await buffer in response.body { received += buffer.readableBytes }
        sampler.cancel()
        peak.sample()
        guard received == size else { throw URLError(.networkConnectionLost) }
        let growth = Double(peak.value - baseline) / Double(1 << 20)
        return Row(
            name: "1 GB file through HTTPMockServer, peak RSS", value: String(format: "+%.1f MB", growth),
            ratio: nil, target: "< 64 MB", met: growth < 64)
    }
}

/// The highest resident set size seen.
final class PeakSampler: @unchecked Sendable {
    // @unchecked: `peak` is guarded by `lock`.
    private let lock = NSLock()
    private var peak = 0
    func sample() {
        let now = Harness.residentBytes()
        lock.withLock { peak = max(peak, now) }
    }
    var value: Int { lock.withLock { peak } }
}

import Foundation
import HTTPMock
import HTTPMockServer
import NIOCore

/// Server throughput under `wrk -t2 -c64` (Debian's wrk, a separate process, so the client's
/// cost is not inside the measured process): HTTPMockServer, a Hummingbird 2 server and a bare
/// SwiftNIO HTTP/1 server (``BareNIOServer``), all answering the same 100-byte body on
/// 127.0.0.1 from NIO's singleton event loop group, in interleaved rounds, medians.
/// Targets (issue 28): ≥ 0.9× the bare NIO server and ≥ 1.0× Hummingbird.
///
/// `WRK_SECONDS` (default 3) and `WRK_ROUNDS` (default 7) change the length of a run.
enum WrkVersusServers {
    static let environment = ProcessInfo.processInfo.environment
    static let seconds = environment["WRK_SECONDS"].flatMap(Int.init) ?? 3
    static let rounds = environment["WRK_ROUNDS"].flatMap(Int.init) ?? 7

    struct WrkFailure: Error, CustomStringConvertible {
        let description: String
    }

    static func run() async throws -> [Row] {
        guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk", "/opt/homebrew/bin/wrk"].first(where: FileManager.default.isExecutableFile)
        else {
            print("\nwrk: not installed (apt-get install wrk); section skipped")
            return []
        }
        let servers = try await Servers.start()
        let times = try await Harness.interleaved(
            rounds: rounds, servers.urls.map { url in { try await 1 / measureOffThePool(wrk: wrk, url: url) } })
        let journaled = servers.mock.recordedRequests.count
        await servers.stop()
        guard journaled > 0 else { throw WrkFailure(description: "HTTPMockServer journaled no request") }

        let (bareRate, hummingbirdRate, mockRate) = (1 / times[0], 1 / times[1], 1 / times[2])
        let versusBare = mockRate / bareRate
        let versusHummingbird = mockRate / hummingbirdRate
        let rows = [
            Row(name: "bare SwiftNIO HTTP/1 server", value: String(format: "%.0f req/s", bareRate), ratio: 1, target: "baseline", met: nil),
            Row(
                name: "Hummingbird 2", value: String(format: "%.0f req/s", hummingbirdRate), ratio: hummingbirdRate / bareRate,
                target: "reported", met: nil),
            Row(
                name: "HTTPMockServer vs bare NIO", value: String(format: "%.0f req/s", mockRate), ratio: versusBare, target: "≥ 0.9×",
                met: versusBare >= 0.9),
            Row(
                name: "HTTPMockServer vs Hummingbird 2", value: String(format: "%.0f req/s", mockRate), ratio: versusHummingbird,
                target: "≥ 1.0×", met: versusHummingbird >= 1.0),
        ]
        Row.printTable(
            "Server throughput, wrk -t2 -c64 -d\(seconds)s on 127.0.0.1, 100-byte body (\(rounds) interleaved rounds, median)", rows)
        return rows
    }

    /// The three servers, each answering `GET /item` with the same 100 bytes.
    struct Servers {
        let bare: any Channel
        let hummingbird: Task<Void, any Error>
        let mock: HTTPMock
        let server: HTTPMockServer
        /// Bare NIO, Hummingbird, HTTPMockServer.
        let urls: [String]

        static func start() async throws -> Servers {
            let body = String(repeating: "x", count: 100)
            let bare = try await BareNIOServer.start(body: body)
            let (hummingbird, hummingbirdPort) = try await HummingbirdServer.start(body: body)
            let mock = HTTPMock()
            mock.logHandler = nil
            mock.addResponses(forPath: "/item", responses: [.plaintext(body, lifetime: .eternal)])
            let server = try await mock.startServer()
            return Servers(
                bare: bare.channel, hummingbird: hummingbird, mock: mock, server: server,
                urls: [
                    "http://127.0.0.1:\(bare.port)/item",
                    "http://127.0.0.1:\(hummingbirdPort)/item",
                    server.baseURL.absoluteString + "/item",
                ])
        }

        func stop() async {
            await server.stop()
            hummingbird.cancel()
            try? await bare.close()
        }
    }

    /// `Benchmarks servers SECONDS`: serves for `seconds`, for wrk and a profiler run by hand.
    static func serve(seconds: Int) async throws {
        let servers = try await Servers.start()
        print("pid \(ProcessInfo.processInfo.processIdentifier)")
        for (name, url) in zip(["bare NIO", "Hummingbird", "HTTPMockServer"], servers.urls) { print("\(name): \(url)") }
        try await Task.sleep(nanoseconds: UInt64(seconds) * 1_000_000_000)
        await servers.stop()
    }

    /// ``measure(wrk:url:)`` on a thread of its own: waiting for wrk on one of the two threads
    /// of the cooperative pool would leave HTTPMockServer's and Hummingbird's tasks one thread.
    static func measureOffThePool(wrk: String, url: String) async throws -> Double {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try measure(wrk: wrk, url: url) }) }.start()
        }
    }

    /// Runs wrk against `url`; returns requests per second. Throws when wrk fails or reports
    /// socket errors or non-2xx answers (a fast server that answers wrongly must not win).
    static func measure(wrk: String, url: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrk)
        process.arguments = ["-t2", "-c64", "-d\(seconds)s", url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw WrkFailure(description: "wrk exited \(process.terminationStatus): \(text)") }
        if text.contains("Socket errors") || text.contains("Non-2xx") {
            throw WrkFailure(description: "wrk saw errors against \(url):\n\(text)")
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
            let rate = Double(line.dropFirst("Requests/sec:".count).trimmingCharacters(in: .whitespaces))
        else { throw WrkFailure(description: "no Requests/sec in wrk's output:\n\(text)") }
        return rate
    }
}

import AsyncHTTPClient
import Foundation
import HTTPMock
import HTTPMockServer
import NIOCore

/// WireMock mappings at scale (SPEC §23, issue 37), section `wiremockroutes`:
///
/// - Throughput with `wrk` (as the `wrk` section) against HTTPMockServer serving one
///   `urlPathPattern` mapping, 1,000 of them (`/api/v{i}/users/[0-9]+`, the request hitting
///   number 500) and one `urlPath` mapping, in interleaved rounds. Target: 1,000 patterns ≥ 0.5×
///   one pattern.
/// - Loading: a fresh instance loads a WireMock root of 1,000 (then 10,000) such mappings,
///   starts its server and answers a first request; the time from `HTTPMock()` to that answer.
///   Targets: < 100 ms and < 1 s (the CLI adds its process start; `HTTPMOCK_BIN=path` measures
///   that too).
/// - Adding through the admin API: 100,000 `POST /__admin/mappings`, 16 at a time; the rate of
///   the last 10,000 against the first 10,000. Target: ≥ 0.8× (O(1) amortised per mapping).
///
/// `WRK_SECONDS`, `WRK_ROUNDS` as for `wrk`; `WIREMOCK_POSTS` (default 100,000).
enum WireMockRoutes {
    static let posts = ProcessInfo.processInfo.environment["WIREMOCK_POSTS"].flatMap(Int.init) ?? 100_000

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A WireMock root with `count` `urlPathPattern` mappings (or one `urlPath` mapping).
    static func root(count: Int, literal: Bool = false) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        let mappings = (0..<count).map { index in
            let url = literal ? #""urlPath": "/api/v\#(index)/users/42""# : #""urlPathPattern": "/api/v\#(index)/users/[0-9]+""#
            return #"{"request": {"method": "GET", \#(url)}, "response": {"status": 200, "body": "user"}}"#
        }
        try Data(("{\"mappings\": [\n" + mappings.joined(separator: ",\n") + "\n]}").utf8)
            .write(to: root.appendingPathComponent("mappings/all.json"))
        return root
    }

    static func run() async throws -> [Row] {
        var rows: [Row] = []
        rows += try await throughput()
        rows += try await loading()
        rows += try await adminPosts()
        Row.printTable("WireMock mappings at scale (wrk -t2 -c64, interleaved rounds, medians; loading and admin POSTs once)", rows)
        return rows
    }

    static func throughput() async throws -> [Row] {
        guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk", "/opt/homebrew/bin/wrk"].first(where: FileManager.default.isExecutableFile)
        else {
            print("\nwrk: not installed; WireMock throughput skipped")
            return []
        }
        var servers: [(HTTPMock, HTTPMockServer, URL)] = []
        for (count, literal) in [(1, false), (1_000, false), (1, true)] {
            let folder = try root(count: count, literal: literal)
            let mock = HTTPMock()
            mock.logHandler = nil
            mock.journalLimit = 1_000
            try mock.loadWireMock(from: folder)
            let server = try await mock.startServer()
            servers.append((mock, server, folder))
        }
        let urls = [
            servers[0].1.baseURL.absoluteString + "/api/v0/users/42", servers[1].1.baseURL.absoluteString + "/api/v500/users/42",
            servers[2].1.baseURL.absoluteString + "/api/v0/users/42",
        ]
        let times = try await Harness.interleaved(
            rounds: WrkVersusServers.rounds, urls.map { url in { try await 1 / WrkVersusServers.measureOffThePool(wrk: wrk, url: url) } })
        for (_, server, folder) in servers {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
        let (one, thousand, literal) = (1 / times[0], 1 / times[1], 1 / times[2])
        return [
            Row(name: "1 urlPathPattern mapping", value: String(format: "%.0f req/s", one), ratio: 1, target: "baseline", met: nil),
            Row(
                name: "1,000 urlPathPattern mappings", value: String(format: "%.0f req/s", thousand), ratio: thousand / one,
                target: "≥ 0.5×",
                met: thousand / one >= 0.5),
            Row(
                name: "1 urlPath mapping", value: String(format: "%.0f req/s", literal), ratio: literal / one, target: "reported", met: nil),
        ]
    }

    static func loading() async throws -> [Row] {
        var rows: [Row] = []
        for (count, limit) in [(1_000, 0.1), (10_000, 1.0)] {
            let folder = try root(count: count)
            defer { try? FileManager.default.removeItem(at: folder) }
            let session = URLSession(configuration: .ephemeral)
            let seconds = try await Harness.time {
                let mock = HTTPMock()
                mock.logHandler = nil
                try mock.loadWireMock(from: folder)
                let server = try await mock.startServer()
                let (data, _) = try await session.data(from: URL(string: server.baseURL.absoluteString + "/api/v\(count - 1)/users/7")!)
                guard data == Data("user".utf8) else { throw Failure(description: "the first answer was not the mapping's") }
                await server.stop()
            }
            rows.append(
                Row(
                    name: "load \(count) mappings, first answer (in process)", value: String(format: "%.0f ms", seconds * 1000),
                    ratio: nil, target: String(format: "< %.0f ms", limit * 1000), met: seconds < limit))
            if let binary = ProcessInfo.processInfo.environment["HTTPMOCK_BIN"] {
                let cli = try await cliFirstAnswer(binary: binary, folder: folder, path: "/api/v\(count - 1)/users/7")
                rows.append(
                    Row(
                        name: "httpmock serve, \(count) mappings: process start → first answer",
                        value: String(format: "%.0f ms", cli * 1000),
                        ratio: nil, target: String(format: "< %.0f ms", limit * 1000), met: cli < limit))
            }
        }
        return rows
    }

    /// Seconds from launching `httpmock serve --wiremock-root folder` to its first answer.
    static func cliFirstAnswer(binary: String, folder: URL, path: String) async throws -> Double {
        let port = 20_000 + Int.random(in: 0..<20_000)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--wiremock-root", folder.path, "--port", String(port)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let url = URL(string: "http://127.0.0.1:\(port)\(path)")!
        let session = URLSession(configuration: .ephemeral)
        while clock.now - start < .seconds(30) {
            if let (data, _) = try? await session.data(from: url), data == Data("user".utf8) {
                return Harness.seconds(clock.now - start)
            }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        throw Failure(description: "httpmock serve did not answer within 30 s")
    }

    static func adminPosts() async throws -> [Row] {
        let mock = HTTPMock()
        mock.logHandler = nil
        let server = try await mock.startServer(admin: true)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let url = server.baseURL.absoluteString + "/__admin/mappings"
        let window = min(10_000, posts / 4)
        var rates: [Double] = []
        let clock = ContinuousClock()
        var windowStart = clock.now
        let tasks = 16
        var sent = 0
        while sent < posts {
            let batch = min(tasks * 64, posts - sent)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for offset in 0..<batch {
                    let index = sent + offset
                    group.addTask {
                        var request = HTTPClientRequest(url: url)
                        request.method = .POST
                        request.headers.add(name: "Content-Type", value: "application/json")
                        request.body = .bytes(
                            ByteBuffer(string: #"{"request": {"urlPathPattern": "/p\#(index)/[a-z]+"}, "response": {"body": "x"}}"#))
                        let response = try await client.execute(request, timeout: .seconds(30))
                        guard response.status.code == 201 else { throw Failure(description: "POST \(index): \(response.status)") }
                        _ = try await response.body.collect(upTo: 1 << 20)
                    }
                }
                try await group.waitForAll()
            }
            let before = sent
            sent += batch
            if before / window != sent / window || sent == posts {
                rates.append(Double(window) / Harness.seconds(clock.now - windowStart))
                windowStart = clock.now
            }
        }
        try await client.shutdown()
        await server.stop()
        guard let first = rates.first, let last = rates.last, rates.count >= 2 else { return [] }
        return [
            Row(name: "admin POST, first \(window)", value: String(format: "%.0f/s", first), ratio: 1, target: "baseline", met: nil),
            Row(
                name: "admin POST, last \(window) of \(posts)", value: String(format: "%.0f/s", last), ratio: last / first,
                target: "≥ 0.8×",
                met: last / first >= 0.8),
        ]
    }
}

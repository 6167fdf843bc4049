import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The `wiremock` section (SPEC §23): release `httpmock serve` against WireMock 2.35.1's JVM on
/// the same WireMock root folders — 1 `urlPath` mapping, 1,000 `urlPathPattern` mappings, and
/// 10,000 for start-up — in one run: start-up to the first answer, idle RSS, wrk throughput
/// (interleaved rounds, medians), and what admin traffic costs the routes (a client polling
/// `GET /__admin/requests?limit=20` 20×/s, 10 open dashboards).
///
/// `WIREMOCK_ROUNDS` (default 3) sets the rounds; `WRK_SECONDS` the length of each wrk run.
enum WireMockVersusJVM {
    static let rounds = WireMockProcesses.environment["WIREMOCK_ROUNDS"].flatMap(Int.init) ?? 3

    static func run() async throws -> [Row] {
        guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: FileManager.default.isExecutableFile) else {
            print("\nwiremock: wrk is not installed (apt-get install wrk); section skipped")
            return []
        }
        guard FileManager.default.isExecutableFile(atPath: WireMockProcesses.httpmock),
            FileManager.default.fileExists(atPath: WireMockProcesses.jar)
        else {
            print(
                "\nwiremock: needs a release httpmock at \(WireMockProcesses.httpmock) (HTTPMOCK_BIN) and WireMock's jar at \(WireMockProcesses.jar) (WIREMOCK_JAR); section skipped"
            )
            return []
        }
        let one = try WireMockRoots.one()
        let thousand = try WireMockRoots.patterns(1_000)
        let tenThousand = try WireMockRoots.patterns(10_000)
        defer { for root in [one, thousand, tenThousand] { try? FileManager.default.removeItem(at: root) } }

        let startUp = try startUpRows(one: one, thousand: thousand, tenThousand: tenThousand)
        let throughput = try await throughputRows(wrk: wrk, one: one, thousand: thousand)
        let admin = try await adminTrafficRows(wrk: wrk, one: one)
        Row.printTable("httpmock serve vs WireMock 2.35.1 (JVM): start-up to first answer and idle RSS (\(rounds) rounds, median)", startUp)
        Row.printTable(
            "httpmock serve vs WireMock 2.35.1 (JVM): wrk -t2 -c64 -d\(WrkVersusServers.seconds)s on 127.0.0.1 (\(rounds) interleaved rounds, median)",
            throughput)
        Row.printTable("httpmock serve: route throughput under admin traffic (\(rounds) interleaved rounds, median)", admin)
        return startUp + throughput + admin
    }

    // MARK: - Start-up and idle memory

    static func startUpRows(one: URL, thousand: URL, tenThousand: URL) throws -> [Row] {
        // Each: start a fresh process, time it to the first 200, read its RSS after 1 s idle, stop it.
        typealias Case = (server: WireMockProcesses.Server, root: URL, path: String)
        let cases: [Case] = [
            (.httpmock, one, "/item"), (.wiremock, one, "/item"),
            (.httpmock, thousand, WireMockRoots.middle(of: 1_000)), (.wiremock, thousand, WireMockRoots.middle(of: 1_000)),
            (.httpmock, tenThousand, WireMockRoots.middle(of: 10_000)), (.wiremock, tenThousand, WireMockRoots.middle(of: 10_000)),
        ]
        var times = Array(repeating: [Double](), count: cases.count)
        var resident = Array(repeating: [Double](), count: cases.count)
        for _ in 0..<rounds {
            for (index, item) in cases.enumerated() {
                let running = try WireMockProcesses.Running(item.server, root: item.root)
                defer { running.stop() }
                times[index].append(try running.startAndWait(for: item.path))
                Thread.sleep(forTimeInterval: 1)
                resident[index].append(Double(running.residentBytes))
            }
        }
        let time = times.map(Harness.median)
        let rss = resident.map(Harness.median)
        func ms(_ seconds: Double) -> String { seconds.isFinite ? String(format: "%.0f ms", seconds * 1000) : "> 120 s" }
        func mb(_ bytes: Double) -> String { String(format: "%.1f MB", bytes / 1_048_576) }
        return [
            Row(name: "start-up, 1 mapping: WireMock", value: ms(time[1]), ratio: 1, target: "baseline", met: nil),
            Row(name: "start-up, 1 mapping: httpmock", value: ms(time[0]), ratio: time[0] / time[1], target: "reported", met: nil),
            Row(name: "start-up, 1,000 patterns: WireMock", value: ms(time[3]), ratio: 1, target: "baseline", met: nil),
            Row(
                name: "start-up, 1,000 patterns: httpmock", value: ms(time[2]), ratio: time[2] / time[3], target: "< 100 ms",
                met: time[2] < 0.1),
            Row(name: "start-up, 10,000 patterns: WireMock", value: ms(time[5]), ratio: 1, target: "baseline", met: nil),
            Row(
                name: "start-up, 10,000 patterns: httpmock", value: ms(time[4]), ratio: time[4] / time[5], target: "< 1 s",
                met: time[4] < 1),
            Row(name: "idle RSS, 1 mapping: WireMock", value: mb(rss[1]), ratio: 1, target: "baseline", met: nil),
            Row(
                name: "idle RSS, 1 mapping: httpmock", value: mb(rss[0]), ratio: rss[0] / rss[1], target: "< 25 MB",
                met: rss[0] < 25 * 1_048_576),
            Row(name: "idle RSS, 1,000 patterns: httpmock", value: mb(rss[2]), ratio: rss[2] / rss[3], target: "reported", met: nil),
        ]
    }

    // MARK: - Throughput

    static func throughputRows(wrk: String, one: URL, thousand: URL) async throws -> [Row] {
        let servers = [
            try WireMockProcesses.Running(.httpmock, root: one), try WireMockProcesses.Running(.wiremock, root: one),
            try WireMockProcesses.Running(.httpmock, root: thousand), try WireMockProcesses.Running(.wiremock, root: thousand),
        ]
        defer { for server in servers { server.stop() } }
        let paths = ["/item", "/item", WireMockRoots.middle(of: 1_000), WireMockRoots.middle(of: 1_000)]
        for (server, path) in zip(servers, paths) {
            guard try server.startAndWait(for: path).isFinite else {
                throw BenchmarkFailure("\(server.server.rawValue) did not answer \(path)")
            }
        }
        let periods = try await Harness.interleaved(
            rounds: rounds,
            zip(servers, paths).map { server, path in
                { try await 1 / WrkVersusServers.measureOffThePool(wrk: wrk, url: server.url + path) }
            })
        let rate = periods.map { 1 / $0 }
        func perSecond(_ value: Double) -> String { String(format: "%.0f req/s", value) }
        return [
            Row(name: "1 urlPath mapping: WireMock", value: perSecond(rate[1]), ratio: 1, target: "baseline", met: nil),
            Row(name: "1 urlPath mapping: httpmock", value: perSecond(rate[0]), ratio: rate[0] / rate[1], target: "reported", met: nil),
            Row(name: "1,000 urlPathPattern: WireMock", value: perSecond(rate[3]), ratio: 1, target: "baseline", met: nil),
            Row(
                name: "1,000 urlPathPattern: httpmock vs WireMock", value: perSecond(rate[2]), ratio: rate[2] / rate[3], target: "> 1×",
                met: rate[2] > rate[3]),
            Row(
                name: "1,000 urlPathPattern vs 1 mapping (httpmock)", value: perSecond(rate[2]), ratio: rate[2] / rate[0],
                target: "≥ 0.5×", met: rate[2] >= 0.5 * rate[0]),
        ]
    }

    // MARK: - Admin traffic

    /// Route throughput with no admin traffic, with a client polling the journal 20×/s, and
    /// with 10 dashboards' event streams open and read; and the server's CPU time per route
    /// request in each case.
    ///
    /// Why both: on two cores wrk, the admin clients (a poller, 10 reading threads) and the
    /// server share the CPUs, so the throughput ratio also charges the clients' own work, and a
    /// 3 s wrk run swings by more than the 5% it is read against. The server's utime + stime
    /// over the run, divided by the route requests served, counts what the server spent on
    /// routes and admin traffic together, and nothing the clients spent: its ratio to the
    /// routes-alone figure is the admin traffic's cost to the server.
    static func adminTrafficRows(wrk: String, one: URL) async throws -> [Row] {
        let server = try WireMockProcesses.Running(.httpmock, root: one)
        defer { server.stop() }
        _ = try server.startAndWait(for: "/item")
        let url = server.url + "/item"
        let port = server.port
        var cpuPerRequest: [[Double]] = [[], [], []]
        /// One wrk run; records the server's CPU seconds per route request under `scenario`.
        func run(_ scenario: Int) async throws -> Double {
            let before = server.cpuSeconds
            let rate = try await WrkVersusServers.measureOffThePool(wrk: wrk, url: url)
            let spent = server.cpuSeconds - before
            cpuPerRequest[scenario].append(spent / (rate * Double(WrkVersusServers.seconds)))
            return 1 / rate
        }
        let periods = try await Harness.interleaved(
            rounds: rounds,
            [
                { try await run(0) },
                {
                    let traffic = AdminTraffic.polling(port: port)
                    defer { traffic.stop() }
                    return try await run(1)
                },
                {
                    let traffic = AdminTraffic.dashboards(port: port, count: 10)
                    defer { traffic.stop() }
                    return try await run(2)
                },
            ])
        let rate = periods.map { 1 / $0 }
        // The warm-up run of each scenario is the first sample; the medians leave it out.
        let cpu = cpuPerRequest.map { Harness.median(Array($0.dropFirst())) }
        func perSecond(_ value: Double) -> String { String(format: "%.0f req/s", value) }
        func microseconds(_ value: Double) -> String { String(format: "%.2f µs", value * 1e6) }
        return [
            Row(name: "routes alone", value: perSecond(rate[0]), ratio: 1, target: "baseline", met: nil),
            Row(
                name: "routes + GET /__admin/requests?limit=20 20×/s", value: perSecond(rate[1]), ratio: rate[1] / rate[0],
                target: "≥ 0.95×", met: rate[1] >= 0.95 * rate[0]),
            Row(
                name: "routes + 10 open dashboards", value: perSecond(rate[2]), ratio: rate[2] / rate[0], target: "≥ 0.95×",
                met: rate[2] >= 0.95 * rate[0]),
            Row(name: "server CPU per route request, alone", value: microseconds(cpu[0]), ratio: 1, target: "baseline", met: nil),
            Row(
                name: "server CPU per route request + poller", value: microseconds(cpu[1]), ratio: cpu[1] / cpu[0],
                target: "≤ 1.05×", met: cpu[1] <= 1.05 * cpu[0]),
            Row(
                name: "server CPU per route request + dashboards", value: microseconds(cpu[2]), ratio: cpu[2] / cpu[0],
                target: "≤ 1.05×", met: cpu[2] <= 1.05 * cpu[0]),
        ]
    }
}

/// Admin traffic beside a wrk run, on threads of its own, until stopped.
final class AdminTraffic: @unchecked Sendable {
    // @unchecked: `stopped` is guarded by `lock`; each thread owns its socket.
    private let lock = NSLock()
    private var stopped = false
    private var threads = 0
    private let done = DispatchSemaphore(value: 0)

    private var isStopped: Bool { lock.withLock { stopped } }

    /// A client on one kept-alive connection asking `GET /__admin/requests?limit=20` every 50 ms.
    static func polling(port: Int) -> AdminTraffic {
        let traffic = AdminTraffic()
        traffic.spawn {
            var fd = WireMockProcesses.connect(port: port)
            var buffer = [UInt8](repeating: 0, count: 65536)
            let request = Array("GET /__admin/requests?limit=20 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
            while !traffic.isStopped {
                if fd < 0 { fd = WireMockProcesses.connect(port: port) }
                if fd >= 0, send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count {
                    // Read one answer: its head, then the length it names.
                    var received = [UInt8]()
                    var expected: Int?
                    while expected.map({ received.count < $0 }) ?? true {
                        let count = recv(fd, &buffer, buffer.count, 0)
                        guard count > 0 else {
                            close(fd)
                            fd = -1
                            break
                        }
                        received += buffer[0..<count]
                        if expected == nil, let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                            let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
                            let length =
                                head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                            expected = end.upperBound + length
                        }
                    }
                }
                usleep(50_000)
            }
            if fd >= 0 { close(fd) }
        }
        return traffic
    }

    /// `count` dashboards: each holds `GET /__admin/events` open and reads what comes.
    static func dashboards(port: Int, count: Int) -> AdminTraffic {
        let traffic = AdminTraffic()
        for _ in 0..<count {
            traffic.spawn {
                let fd = WireMockProcesses.connect(port: port, timeout: 1)
                guard fd >= 0 else { return }
                defer { close(fd) }
                let request = Array("GET /__admin/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n".utf8)
                guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return }
                var buffer = [UInt8](repeating: 0, count: 65536)
                while !traffic.isStopped {
                    let read = recv(fd, &buffer, buffer.count, 0)
                    if read == 0 { return }
                }
            }
        }
        return traffic
    }

    private func spawn(_ body: @escaping @Sendable () -> Void) {
        lock.withLock { threads += 1 }
        Thread { [self] in
            body()
            done.signal()
        }.start()
    }

    func stop() {
        let count = lock.withLock {
            stopped = true
            return threads
        }
        for _ in 0..<count { done.wait() }
    }
}

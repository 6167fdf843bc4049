import Foundation

/// The `wiremockregex` section (issue 46): release `httpmock serve` against WireMock 2.35.1's
/// JVM on 1,000 `urlPathPattern` mappings *without* distinct literal prefixes —
/// `/api/v[0-9]+/items/[a-z]+-N`, N = 0…999, as real mapping folders look — asked
/// `/api/v3/items/xyz-999` and `/api/v3/items/xyz-0`; beside the same server with one such
/// mapping. Both servers run with their journal off (`--journal-limit 0`,
/// `--no-request-journal`), WireMock's JIT warmed by two extra runs before the rounds.
///
/// Targets: httpmock ≥ 2× WireMock on the 1,000 mappings; ≥ 0.5× its own one mapping; the
/// folder loaded and answering in < 300 ms from process start.
///
/// `WIREMOCK_ROUNDS` (default 3) sets the rounds; `WRK_SECONDS` the length of each wrk run.
enum WireMockRegexShapes {
    /// `count` mappings `/api/v[0-9]+/items/[a-z]+-N`.
    static func unprefixed(_ count: Int) throws -> URL {
        try WireMockRoots.make(
            "unprefixed-\(count)",
            (0..<count).map { index in
                #"{"request":{"method":"GET","urlPathPattern":"/api/v[0-9]+/items/[a-z]+-\#(index)"},"response":{"status":200,"body":"\#(WireMockRoots.body)"}}"#
            })
    }

    static func run() async throws -> [Row] {
        guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: FileManager.default.isExecutableFile) else {
            print("\nwiremockregex: wrk is not installed (apt-get install wrk); section skipped")
            return []
        }
        guard FileManager.default.isExecutableFile(atPath: WireMockProcesses.httpmock),
            FileManager.default.fileExists(atPath: WireMockProcesses.jar)
        else {
            print(
                "\nwiremockregex: needs a release httpmock at \(WireMockProcesses.httpmock) (HTTPMOCK_BIN) and WireMock's jar at \(WireMockProcesses.jar) (WIREMOCK_JAR); section skipped"
            )
            return []
        }
        let one = try unprefixed(1)
        let thousand = try unprefixed(1_000)
        defer { for root in [one, thousand] { try? FileManager.default.removeItem(at: root) } }
        let rounds = WireMockVersusJVM.rounds

        // Start-up: process start → first answer, 1,000 mappings.
        var startUps: [Double] = []
        for _ in 0..<rounds {
            let running = try WireMockProcesses.Running(.httpmock, root: thousand, extra: ["--journal-limit", "0"])
            defer { running.stop() }
            startUps.append(try running.startAndWait(for: "/api/v3/items/xyz-999"))
        }

        let servers = [
            try WireMockProcesses.Running(.httpmock, root: one, extra: ["--journal-limit", "0"]),
            try WireMockProcesses.Running(.httpmock, root: thousand, extra: ["--journal-limit", "0"]),
            try WireMockProcesses.Running(.wiremock, root: thousand, extra: ["--no-request-journal"]),
        ]
        defer { for server in servers { server.stop() } }
        for server in servers {
            guard try server.startAndWait(for: "/api/v3/items/xyz-0").isFinite else {
                throw BenchmarkFailure("\(server.server.rawValue) did not answer /api/v3/items/xyz-0")
            }
        }
        // The JVM's JIT: two runs on each path before the measured ones.
        for path in ["/api/v3/items/xyz-999", "/api/v3/items/xyz-0"] {
            for _ in 0..<2 { _ = try await WrkVersusServers.measureOffThePool(wrk: wrk, url: servers[2].url + path) }
        }
        let cases: [(server: Int, path: String)] = [
            (0, "/api/v3/items/xyz-0"),
            (1, "/api/v3/items/xyz-999"), (2, "/api/v3/items/xyz-999"),
            (1, "/api/v3/items/xyz-0"), (2, "/api/v3/items/xyz-0"),
        ]
        let periods = try await Harness.interleaved(
            rounds: rounds,
            cases.map { item in
                { try await 1 / WrkVersusServers.measureOffThePool(wrk: wrk, url: servers[item.server].url + item.path) }
            })
        let rate = periods.map { 1 / $0 }
        let startUp = Harness.median(startUps)
        func perSecond(_ value: Double) -> String { String(format: "%.0f req/s", value) }
        return [
            Row(name: "1 mapping [a-z]+-0: httpmock", value: perSecond(rate[0]), ratio: 1, target: "baseline", met: nil),
            Row(
                name: "1,000 unprefixed, -999: WireMock", value: perSecond(rate[2]), ratio: rate[2] / rate[0], target: "reported", met: nil),
            Row(
                name: "1,000 unprefixed, -999: httpmock vs WireMock", value: perSecond(rate[1]), ratio: rate[1] / rate[2],
                target: "≥ 2×", met: rate[1] >= 2 * rate[2]),
            Row(
                name: "1,000 unprefixed, -999: httpmock vs 1 mapping", value: perSecond(rate[1]), ratio: rate[1] / rate[0],
                target: "≥ 0.5×", met: rate[1] >= 0.5 * rate[0]),
            Row(name: "1,000 unprefixed, -0: WireMock", value: perSecond(rate[4]), ratio: rate[4] / rate[0], target: "reported", met: nil),
            Row(
                name: "1,000 unprefixed, -0: httpmock vs WireMock", value: perSecond(rate[3]), ratio: rate[3] / rate[4],
                target: "≥ 2×", met: rate[3] >= 2 * rate[4]),
            Row(
                name: "1,000 unprefixed, -0: httpmock vs 1 mapping", value: perSecond(rate[3]), ratio: rate[3] / rate[0],
                target: "≥ 0.5×", met: rate[3] >= 0.5 * rate[0]),
            Row(
                name: "1,000 unprefixed: start → first 200", value: String(format: "%.0f ms", startUp * 1000),
                ratio: nil, target: "< 300 ms", met: startUp < 0.3),
        ]
    }
}

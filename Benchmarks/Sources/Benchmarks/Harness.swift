import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Measurement helpers: every figure is a ratio to a baseline measured in the same run,
/// from interleaved rounds, so machine noise hits both sides alike.
enum Harness {
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    /// Time of one call of `body`, in seconds.
    static func time(_ body: () async throws -> Void) async rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try await body()
        return seconds(clock.now - start)
    }

    /// Runs each scenario `rounds` times, interleaved, after one warm-up round; returns the
    /// median of each scenario's per-round value (what `measure` returns).
    static func interleaved(rounds: Int, _ scenarios: [() async throws -> Double]) async throws -> [Double] {
        for scenario in scenarios { _ = try await scenario() }
        var samples = Array(repeating: [Double](), count: scenarios.count)
        for _ in 0..<rounds {
            for (index, scenario) in scenarios.enumerated() {
                samples[index].append(try await scenario())
            }
        }
        return samples.map(median)
    }

    /// Compares `candidate` with `baseline` in `rounds` adjacent pairs whose order alternates
    /// (baseline first in even rounds, candidate first in odd ones), after one warm-up pair.
    /// Returns the median of each side and the median of the per-round ratios
    /// (candidate / baseline).
    ///
    /// Why not `interleaved` with both sides of several comparisons in one fixed cycle: what ran
    /// just before a scenario changes its time on FoundationNetworking (a burst of 64 tasks
    /// leaves the dispatch pool's threads awake for the next scenario), so a fixed order gives
    /// one side a systematic advantage. The per-request overhead swung from 1.10–1.29× to
    /// 1.01–1.09× just by swapping the order (Benchmarks/README.md). Alternating the order gives
    /// both sides each position equally often, and a ratio within a pair compares two runs made
    /// under the same machine state.
    static func paired(
        rounds: Int, baseline: () async throws -> Double, candidate: () async throws -> Double
    ) async throws -> (baseline: Double, candidate: Double, ratio: Double) {
        _ = try await baseline()
        _ = try await candidate()
        var baselines: [Double] = []
        var candidates: [Double] = []
        var ratios: [Double] = []
        for round in 0..<rounds {
            let first: Double
            let second: Double
            if round.isMultiple(of: 2) {
                first = try await baseline()
                second = try await candidate()
                baselines.append(first)
                candidates.append(second)
            } else {
                first = try await candidate()
                second = try await baseline()
                candidates.append(first)
                baselines.append(second)
            }
            ratios.append(candidates[round] / baselines[round])
        }
        return (median(baselines), median(candidates), median(ratios))
    }

    /// A scenario: seconds per request for `count` requests through `session`, one after another
    /// (`tasks == 1`) or spread over `tasks` concurrent tasks.
    static func perRequest(_ session: URLSession, _ request: URLRequest, count: Int, tasks: Int = 1) -> () async throws -> Double {
        {
            try await time {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for task in 0..<tasks {
                        group.addTask {
                            for _ in stride(from: task, to: count, by: tasks) {
                                let (_, response) = try await session.data(for: request)
                                guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            } / Double(count)
        }
    }

    /// Resident set size from /proc/self/statm, in bytes.
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// One line of the results table.
struct Row {
    var name: String
    var value: String
    var ratio: Double?
    var target: String
    var met: Bool?

    static func printTable(_ title: String, _ rows: [Row]) {
        print("\n\(title)")
        print(
            "scenario".padding(toLength: 46, withPad: " ", startingAt: 0) + "value".padding(toLength: 18, withPad: " ", startingAt: 0)
                + "ratio    target")
        for row in rows {
            let ratio = row.ratio.map { String(format: "%.2f×", $0) } ?? "—"
            let verdict = row.met.map { $0 ? "  ✓" : "  ✗ MISSED" } ?? ""
            print(
                row.name.padding(toLength: 46, withPad: " ", startingAt: 0)
                    + row.value.padding(toLength: 18, withPad: " ", startingAt: 0)
                    + ratio.padding(toLength: 9, withPad: " ", startingAt: 0) + row.target + verdict)
        }
    }
}

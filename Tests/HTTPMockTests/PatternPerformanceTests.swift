import Foundation
import Testing

@testable import HTTPMock

/// Runs `work` on its own thread and returns the CPU time it took (not wall-clock time, which a
/// busy machine inflates: SPEC §23), or `nil` (with a recorded issue) when it did not finish
/// within `limit` seconds: an exponential regression fails the test instead of hanging the suite.
private func timed(
    limit: Double, sourceLocation: Testing.SourceLocation = #_sourceLocation,
    _ work: @escaping @Sendable () -> Void
) -> Duration? {
    let limit = limit * TestEnvironment.slowdown
    let done = DispatchSemaphore(value: 0)
    let used = Locked<Duration?>(nil)
    let thread = Thread {
        let ((), cpu) = TestEnvironment.threadCPUTime { work() }
        used.withLock { $0 = cpu }
        done.signal()
    }
    thread.start()
    guard done.wait(timeout: .now() + limit) == .success else {
        Issue.record("did not finish within \(limit) s", sourceLocation: sourceLocation)
        return nil
    }
    return used.withLock { $0 }
}

/// Generous bounds on the matching cost (SPEC §3.4: polynomial whatever the number of `**`).
/// The bounds are far above what the code needs (microseconds) and far below what the old
/// exponential code took (7 `**` × 22 segments: seconds; 10 × 100: years).
@Suite("Pattern matching cost (pure logic, under a watchdog)")
struct PatternPerformanceTests {
    static let stars = "/" + Array(repeating: "**", count: 10).joined(separator: "/")
    static let segments = (0..<100).map { "s\($0)" }

    @Test("path: 10 ** against 100 segments, hit and miss, under 50 ms")
    func pathMatch() throws {
        let miss = try PathPattern.parse(Self.stars + "/end")
        let hit = try PathPattern.parse(Self.stars + "/:last")
        let nested = try PathPattern.parse("/" + Array(repeating: "**/s1", count: 10).joined(separator: "/"))
        let segments = Self.segments
        let elapsed = timed(limit: 60) {
            #expect(miss.match(segments) == nil)
            #expect(hit.match(segments) == ["last": "s99"])
            #expect(nested.match(segments) == nil)
        }
        #expect((elapsed ?? .seconds(99)) < .milliseconds(50) * TestEnvironment.slowdown)
    }

    @Test("route index: a trie walk with 10 ** against 100 segments under 50 ms")
    func trieWalk() throws {
        var index = RouteIndex()
        index.insert(RouteKey(host: try HostPattern.parse("example.com"), path: try PathPattern.parse(Self.stars + "/end")), at: 0)
        index.insert(RouteKey(host: try HostPattern.parse("example.com"), path: try PathPattern.parse(Self.stars + "/s99")), at: 1)
        index.insert(RouteKey(host: try HostPattern.parse("**.com"), path: try PathPattern.parse(Self.stars + "/**")), at: 2)
        let frozen = index
        let segments = Self.segments
        let elapsed = timed(limit: 60) {
            let found = frozen.candidates(
                host: "example.com", port: nil, path: "/" + segments.joined(separator: "/"), rawPath: "/", rawQuery: nil,
                segments: { segments })
            #expect(Set(found) == [1, 2])
        }
        #expect((elapsed ?? .seconds(99)) < .milliseconds(50) * TestEnvironment.slowdown)
    }

    @Test("host: 10 ** against 100 labels under 50 ms")
    func hostMatch() throws {
        let pattern = try HostPattern.parse(Array(repeating: "**", count: 10).joined(separator: ".") + ".end")
        let matching = try HostPattern.parse(Array(repeating: "**", count: 10).joined(separator: ".") + ".l99")
        let host = (0..<100).map { "l\($0)" }.joined(separator: ".")
        let elapsed = timed(limit: 60) {
            #expect(!pattern.matches(host: host, port: nil))
            #expect(matching.matches(host: host, port: nil))
        }
        #expect((elapsed ?? .seconds(99)) < .milliseconds(50) * TestEnvironment.slowdown)
    }

    @Test("near-miss ranking over 10,000-character paths, and 50 short-against-4 KB, under 2 s")
    func nearMissDifference() {
        let a = String(repeating: "abcdefghij/", count: 1_000)
        let b = String(repeating: "jihgfedcba/", count: 1_000)
        let elapsed = timed(limit: 120) {
            #expect(NearMissAnalysis.difference(a, a) == 0)
            #expect(NearMissAnalysis.difference(a, b) > 0.5)
            #expect(NearMissAnalysis.difference(a, a + "x") < 0.01)
            #expect(NearMissAnalysis.difference("kitten", "sitting") == 3.0 / 7.0)
            // A short route against a 4 KB path: the exact table (5 × 4,000 cells), many times
            // over, as a server's worker threads compute it for a burst of long misses.
            let long = "/missing/" + String(repeating: "x", count: 4_000)
            for _ in 0..<50 {
                #expect(NearMissAnalysis.difference("/ping", long) == 4_005.0 / 4_009.0)
            }
        }
        #expect((elapsed ?? .seconds(99)) < .seconds(2) * TestEnvironment.slowdown)
    }
}

/// The fast matchers agree with a plain backtracking reference on random small patterns and
/// paths (same result, same captures), and the trie finds exactly the routes whose pattern
/// matches.
@Suite("Pattern matching agrees with a backtracking reference (pure logic)")
struct PatternReferenceTests {
    /// SplitMix64: deterministic, so a failure reproduces.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Tries every split in order, `**` taking as few segments as it can first.
    static func reference(
        _ pattern: ArraySlice<PathPattern.Segment>, _ path: ArraySlice<String>,
        _ captures: [String: String]
    ) -> [String: String]? {
        guard let first = pattern.first else { return path.isEmpty ? captures : nil }
        let rest = pattern.dropFirst()
        switch first {
        case .multi:
            var remaining = path
            while true {
                if let found = reference(rest, remaining, captures) { return found }
                guard !remaining.isEmpty else { return nil }
                remaining = remaining.dropFirst()
            }
        case .literal(let text):
            guard path.first == text else { return nil }
            return reference(rest, path.dropFirst(), captures)
        case .single:
            guard !path.isEmpty else { return nil }
            return reference(rest, path.dropFirst(), captures)
        case .parameter(let name):
            guard let value = path.first else { return nil }
            var captures = captures
            captures[name] = value
            return reference(rest, path.dropFirst(), captures)
        case .glob(let glob):
            guard let value = path.first, glob.matches(value) else { return nil }
            return reference(rest, path.dropFirst(), captures)
        }
    }

    @Test("200 random patterns against 60 random paths")
    func randomPatterns() throws {
        var random = Generator(state: 20_261_123)
        let pieces = ["a", "b", "ab", "*", "**", "a*", "*b", ":p"]
        var index = RouteIndex()
        var patterns: [PathPattern] = []
        for _ in 0..<200 {
            var parameter = 0
            let count = Int.random(in: 0...6, using: &random)
            let raw = (0..<count).map { _ -> String in
                let piece = pieces.randomElement(using: &random) ?? "a"
                if piece == ":p" {
                    parameter += 1
                    return ":p\(parameter)"
                }
                return piece
            }
            let pattern = try PathPattern.parse("/" + raw.joined(separator: "/"))
            index.insert(RouteKey(host: try HostPattern.parse("example.com"), path: pattern), at: patterns.count)
            patterns.append(pattern)
        }
        for _ in 0..<60 {
            let path = (0..<Int.random(in: 0...7, using: &random)).map { _ in
                ["a", "b", "ab", "ba", "c"].randomElement(using: &random) ?? "a"
            }
            var expected: Set<Int> = []
            for (position, pattern) in patterns.enumerated() {
                let want = Self.reference(pattern.segments[...], path[...], [:])
                #expect(pattern.match(path) == want, "\(pattern) against \(path)")
                if want != nil { expected.insert(position) }
            }
            let found = index.candidates(
                host: "example.com", port: nil, path: RoutePath.join(path), rawPath: RoutePath.join(path), rawQuery: nil, segments: { path }
            )
            // Literal patterns live in the exact index, found through the joined path.
            #expect(Set(found) == expected, "trie against \(path)")
        }
    }

    /// `*` and globs take one label, `**` one or more, tried fewest first.
    static func hostReference(_ pattern: ArraySlice<HostPattern.Label>, _ host: ArraySlice<Substring>) -> Bool {
        guard let first = pattern.first else { return host.isEmpty }
        let rest = pattern.dropFirst()
        switch first {
        case .multi:
            guard !host.isEmpty else { return false }
            var remaining = host.dropFirst()
            while true {
                if hostReference(rest, remaining) { return true }
                guard !remaining.isEmpty else { return false }
                remaining = remaining.dropFirst()
            }
        case .literal(let text):
            return host.first.map { $0 == text } == true && hostReference(rest, host.dropFirst())
        case .single:
            return !host.isEmpty && hostReference(rest, host.dropFirst())
        case .glob(let glob):
            return host.first.map { glob.matches($0) } == true && hostReference(rest, host.dropFirst())
        }
    }

    @Test("200 random host patterns against 60 random hosts")
    func randomHosts() throws {
        var random = Generator(state: 3_492)
        let pieces = ["a", "b", "ab", "*", "**", "a*", "*-*"]
        var patterns: [HostPattern] = []
        for _ in 0..<200 {
            let raw = (0..<Int.random(in: 1...5, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "a" }
            patterns.append(try HostPattern.parse(raw.joined(separator: ".")))
        }
        for _ in 0..<60 {
            let host = (0..<Int.random(in: 1...6, using: &random)).map { _ in
                ["a", "b", "ab", "a-b", "c"].randomElement(using: &random) ?? "a"
            }
            .joined(separator: ".")
            for pattern in patterns {
                let labels = host.split(separator: ".", omittingEmptySubsequences: false)
                #expect(
                    pattern.matches(host: host, port: nil) == Self.hostReference(pattern.labels[...], labels[...]),
                    "\(pattern) against \(host)")
            }
        }
    }
}

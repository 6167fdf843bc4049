import Foundation
import HTTPMock
import Testing

/// The admin API and the dashboard write JSON and dates without `JSONEncoder` and
/// `ISO8601DateFormatter` (SPEC §23, admin traffic): their output must stay the same, byte for
/// byte, as what Foundation writes.
@Suite("Fast writers: JSON text and ISO 8601 dates as Foundation writes them")
struct FastWriterTests {
    /// SplitMix64, the pattern tests' generator: the same values in every run.
    typealias Seeded = PatternReferenceTests.Generator

    static let pieces: [String] = [
        "", "a", "B", "a10", "a9", "é", "e", "Z", "_", "/", "\\", "\"", "\u{2028}", "😀", "\u{7F}", "\u{FEFF}",
        "e\u{301}", "\u{E9}x", "line\nbreak", "tab\there", "\u{0}", "\u{1F}", "\u{8}\u{C}\r",
    ]

    static func randomValue(depth: Int, using random: inout Seeded) -> JSONValue {
        switch Int.random(in: 0..<(depth > 3 ? 6 : 8), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .integer(Int.random(in: Int.min...Int.max, using: &random) >> Int.random(in: 0..<63, using: &random))
        case 3:
            let doubles: [Double] = [0.1, 1e300, -0.0, 123_456_789_012.5, 1e-7, .leastNonzeroMagnitude, 100, 1e16, 1e21, 2.5]
            return .double(doubles.randomElement(using: &random)!)
        case 4, 5:
            return .string((0..<Int.random(in: 0..<4, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined())
        case 6:
            return .array((0..<Int.random(in: 0..<5, using: &random)).map { _ in randomValue(depth: depth + 1, using: &random) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0..<6, using: &random) {
                let key = (0..<Int.random(in: 0..<3, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
                members[key] = randomValue(depth: depth + 1, using: &random)
            }
            return .object(members)
        }
    }

    @Test("JSONValue's text is JSONEncoder's (.sortedKeys, .withoutEscapingSlashes), byte for byte, for 2,000 documents")
    func writerMatchesJSONEncoder() async throws {
        // Seconds of CPU in a debug build: off Swift's cooperative pool (offCooperativePool).
        let mismatches = try await offCooperativePool { try Self.writerMismatches() }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
    }

    /// The documents whose text differs from JSONEncoder's, with both texts.
    static func writerMismatches() throws -> [String] {
        var mismatches: [String] = []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var random = Seeded(state: 37)
        var control = ""
        for value in 0..<0x80 { control.unicodeScalars.append(Unicode.Scalar(value)!) }
        let fixed: [JSONValue] = [.string(control), ["b": 1, "B": 2, "a10": 3, "a9": 4, "é": 5, "": 6], [], [:], .double(1.5)]
        for value in fixed + (0..<2_000).map({ _ in randomValue(depth: 0, using: &random) }) {
            let expected = String(decoding: try encoder.encode(value), as: UTF8.self)
            if value.description != expected { mismatches.append("\(value.description) ≠ \(expected)") }
        }
        return mismatches
    }

    @Test(
        "ISO8601Text writes what ISO8601DateFormatter writes, with and without milliseconds, years 1 to 9999 (the Julian calendar before 1583, as Foundation's)"
    )
    func datesMatchTheFormatter() async throws {
        let mismatches = try await offCooperativePool { Self.dateMismatches() }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
    }

    /// The dates whose text differs from the formatter's, with both texts.
    static func dateMismatches() -> [String] {
        var mismatches: [String] = []
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var random = Seeded(state: 7)
        let edges: [TimeInterval] = [
            0, -0.001, 0.999, 951_782_400, 951_868_800, 1_798_761_599.999, -62_135_596_800, 253_402_300_799.999,
            -2_208_988_800, 4_107_542_400, 1_709_164_800, 1_000_000_000.5,
        ]
        let spread = (0..<3_000).map { _ in TimeInterval.random(in: -62_135_596_800..<253_402_300_799, using: &random) }
        let recent = (0..<1_000).map { _ in TimeInterval.random(in: 1_700_000_000..<1_900_000_000, using: &random) }
        for seconds in edges + spread + recent {
            let date = Date(timeIntervalSince1970: seconds)
            for (ours, theirs) in [
                (ISO8601Text.string(from: date), plain.string(from: date)),
                (ISO8601Text.string(from: date, fractional: true), fractional.string(from: date)),
            ] where ours != theirs {
                mismatches.append("\(seconds): \(ours) ≠ \(theirs)")
            }
        }
        return mismatches
    }
}

/// The loaders' parallel map (SPEC §23, start-up).
@Suite("Concurrently.map: loaders on every core, results and the first error in order")
struct ConcurrentlyTests {
    struct Failure: Error, Equatable { let index: Int }

    @Test("results come back in the items' order, below and above the threshold")
    func order() throws {
        for count in [0, 1, Concurrently.threshold - 1, Concurrently.threshold, 10_000] {
            let items = Array(0..<count)
            let squares = Concurrently.map(items) { $0 * $0 }
            #expect(squares == items.map { $0 * $0 })
        }
    }

    @Test("the error thrown is the first in the items' order, whichever worker met it first")
    func firstErrorInOrder() {
        let items = Array(0..<5_000)
        #expect(throws: Failure(index: 1_234)) {
            try Concurrently.map(items) { (item: Int) throws(Failure) -> Int in
                if item == 1_234 || item == 4_000 || item == 4_999 { throw Failure(index: item) }
                return item
            }
        }
    }

    @Test(
        "callers on Swift's cooperative pool never wait for each other: 20 rounds of 4 concurrent 256-item maps",
        .timeLimit(.minutes(1)))
    func callersOnThePool() async {
        // Concurrently.map is DispatchQueue.concurrentPerform: were its helpers to wait behind
        // the pool's blocked callers (once suspected, never reproduced on Linux with Swift
        // 6.3.1; see Concurrently.swift), each round would stall until Dispatch's monitor added a
        // thread, and 20 rounds would run past the limit.
        for _ in 0..<20 {
            let sums = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask { Concurrently.map(Array(0..<256)) { $0 * 2 }.reduce(0, +) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(sums == Array(repeating: 255 * 256, count: 4))
        }
    }

    @Test("each run of items has its own context, and the runs are contiguous")
    func contexts() {
        let items = Array(0..<4_096)
        let previous = Concurrently.map(items, context: -1) { (last: inout Int, item: Int) -> Int in
            defer { last = item }
            return last
        }
        // Within a run, each item sees the one before it; a run starts at -1.
        let starts = zip(items, previous).filter { item, seen in seen != item - 1 }
        #expect(starts.allSatisfy { $0.1 == -1 })
        #expect(!starts.isEmpty)
    }
}

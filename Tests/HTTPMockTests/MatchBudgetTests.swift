import Foundation
import Testing

@testable import HTTPMock

/// One request's matching shares one budget (``MatchBudget``), and a huge character class
/// costs a binary search per character (issue 43, items 8–10).
@Suite("The work one request's matching may do", .serialized, .timeLimit(.minutes(2)))
struct MatchBudgetTests {
    /// 28 `a`s, then `xb`: `(a+)+\1b` backtracks through 2²⁸ ways before it fails, so each
    /// evaluation runs out its own million steps (it ends with the `b` the pattern must end
    /// with, so the literal check does not refuse it first).
    static let hostile = String(repeating: "a", count: 28) + "xb"

    @Test("a backtracking filter over 2,000 elements stops at the request's budget, not 2,000 evaluations' budgets")
    func jsonPathFilterSharesTheRequestsBudget() throws {
        let elements: [JSONValue] = (0..<2_000).map { _ in ["s": .string(Self.hostile)] }
        let document = OrderedJSON(.array(elements))
        let path = try JSONPath(#"$[?(@.s =~ /(a+)+\1b/)]"#)
        // A smaller request budget than the default, to keep the test short; the sharing is the same.
        let budget = MatchBudget(steps: 3 * TextRegex.stepBudget)
        let outcome = MatchBudget.$current.withValue(budget) { path.evaluate(document) }
        #expect(outcome.nodes.isEmpty)
        // Spent, and by no more than one evaluation's own budget past it: before, each of the
        // 2,000 elements had a million steps of its own (minutes of CPU for one request).
        #expect(MatchBudget.$current.withValue(budget) { MatchBudget.isSpent })
        #expect(MatchBudget.$current.withValue(budget) { MatchBudget.steps(upTo: .max) } == 0)
    }

    @Test("once a request's steps are spent, a backtracking pattern gives up at once; a linear one still matches")
    func spentBudget() throws {
        let backtracking = try TextRegex(#"(a+)+\1b"#)
        let linear = try TextRegex("(?s).*needle.*")
        let body = String(repeating: "x", count: 300_000) + "needle"
        MatchBudget.$current.withValue(MatchBudget(steps: 0)) {
            #expect(backtracking.evaluate("aab") == .gaveUp)
            #expect(linear.evaluate(body) == .match, "linear-time patterns are not counted: any body the server accepts matches")
        }
        // Without a request (a matcher called directly), one evaluation's own budget applies.
        #expect(backtracking.evaluate("aab") == .match)
        #expect(backtracking.evaluate(Self.hostile) == .gaveUp)
    }

    @Test("the budget is spent by every evaluation of one request, each charged what it took")
    func evaluationsAreCharged() throws {
        let regex = try TextRegex(#"(a+)+\1b"#)
        let budget = MatchBudget(steps: 2_500_000)
        var results: [TextRegex.Evaluation] = []
        MatchBudget.$current.withValue(budget) {
            for _ in 0..<4 { results.append(regex.evaluate(Self.hostile)) }
        }
        // Two full evaluations, a third cut at half a million steps, a fourth given up at once.
        #expect(results == [.gaveUp, .gaveUp, .gaveUp, .gaveUp])
        #expect(MatchBudget.$current.withValue(budget) { MatchBudget.steps(upTo: .max) } == 0)
        let small = MatchBudget(steps: 2_500_000)
        MatchBudget.$current.withValue(small) { _ = regex.evaluate("aaab") }
        let left = MatchBudget.$current.withValue(small) { MatchBudget.steps(upTo: .max) }
        #expect(left > 2_400_000 && left < 2_500_000, "a short evaluation is charged its few steps: \(left) left")
    }

    @Test("a regular expression with a 200,000-item class costs a binary search per character")
    func hugeClass() throws {
        // 100,000 single scalars two apart (none adjacent, so none merge), and the letters.
        var items = "a-z/"
        items.unicodeScalars.append(contentsOf: (0..<100_000).map { Unicode.Scalar(0x10000 + 2 * $0)! })
        let huge = try TextRegex("[\(items)]*")
        let small = try TextRegex("[a-z/]*")
        let text = "/" + String(repeating: "abcdefghij", count: 2_000)
        #expect(huge.evaluate(text) == .match && small.evaluate(text) == .match)
        #expect(huge.evaluate(text + "-") == .noMatch)
        // Compared with a small class on the same text, in the same run: a scan of the 100,000
        // ranges per character was thousands of times slower; a binary search is a few times.
        let ratio = Self.medianRatio(rounds: 5) {
            _ = huge.evaluate(text)
        } baseline: {
            _ = small.evaluate(text)
        }
        #expect(ratio < 100, "the huge class costs \(ratio)× the small one")
    }

    @Test("look-around repeated 38,888 times is a pattern too large, found by FuzzRegex, not 38,888 compilations")
    func repeatedLookAroundIsTooLarge() throws {
        #expect(throws: TextRegex.SyntaxError.self) { try TextRegex("(?i)(?=wwwwwwwwwwwwwwwwwwwws!=a&){1,38888}") }
        #expect(throws: TextRegex.SyntaxError.self) { try TextRegex("(?>abc){1,40000}") }
        // A few copies are fine.
        #expect(try TextRegex("(?=a)(?:a(?=b)b){1,3}").matchesWhole("abab"))
    }

    @Test("merging a class's ranges keeps its members")
    func normalizedClasses() throws {
        let cases: [(String, [String], [String])] = [
            ("[a-cb-fx]+", ["abcdef", "x", "fx"], ["g", "w"]),
            ("[a-ce-g]+", ["abc", "efg"], ["d"]),
            ("[^a-cd-f]+", ["g", "z"], ["a", "d", "f"]),
            ("[a-z&&[^d-f]]+", ["abc", "xyz"], ["e"]),
            ("[\\x{0}-\\x{10FFFF}]+", ["a", "😀"], []),
        ]
        for (pattern, matching, notMatching) in cases {
            let regex = try TextRegex(pattern)
            for text in matching { #expect(regex.matchesWhole(text), "\(pattern) should match \(text)") }
            for text in notMatching { #expect(!regex.matchesWhole(text), "\(pattern) should not match \(text)") }
        }
    }

    /// The median over `rounds` of `measured`'s time over `baseline`'s, interleaved.
    static func medianRatio(rounds: Int, _ measured: () -> Void, baseline: () -> Void) -> Double {
        var ratios: [Double] = []
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            baseline()
            let middle = DispatchTime.now().uptimeNanoseconds
            measured()
            let end = DispatchTime.now().uptimeNanoseconds
            ratios.append(Double(end - middle) / Double(max(1, middle - start)))
        }
        return ratios.sorted()[rounds / 2]
    }
}

import Foundation

/// The work matching one request may do, shared by every matcher that runs for it: the
/// backtracking regular expressions (in a URL, a header, a body, a JSONPath filter, each part
/// of a multipart body), JSONPath's visits, XPath's steps and the text XPath builds.
///
/// Each matcher also has a bound of its own per evaluation (``TextRegex/stepBudget``,
/// ``JSONPath/maximumSteps``); the request's budget bounds their sum, so a pattern that gives
/// up only after its full million steps on each of 2,000 array elements or 1,000 parts stops
/// after ``steps`` in all instead of billions. Once the budget is spent, every later
/// evaluation for the same request gives up at once and counts as no match (issue 43).
///
/// Linear-time work is not counted: a Pike-VM pattern, parsing a body, comparing JSON. It is
/// bounded by the body's size already, and a legitimate large body must keep matching.
///
/// The registry installs a budget around matching one request (``measure(_:)``) and another
/// around its near-miss report; matchers read ``current``. Outside one (a matcher called
/// directly), only the per-evaluation bounds apply.
package final class MatchBudget: Sendable {
    /// Steps one request's matching may take: ten evaluations that run out their own budget.
    static let steps = 10 * TextRegex.stepBudget
    /// Bytes of text one request's matchers may build (XPath's string values, `concat`):
    /// four times the largest body the server reads by default.
    static let bytes = 256 << 20

    private let left: Locked<(steps: Int, bytes: Int)>

    init(steps: Int = MatchBudget.steps, bytes: Int = MatchBudget.bytes) {
        left = Locked((steps, bytes))
    }

    /// The budget of the request being matched on this thread or task, if any.
    @TaskLocal static var current: MatchBudget?

    /// Runs `body` with a fresh budget as ``current``.
    package static func measure<Result>(_ body: () throws -> Result) rethrows -> Result {
        try $current.withValue(MatchBudget(), operation: body)
    }

    /// Steps the request has left, at most `cap`: what one evaluation may spend.
    static func steps(upTo cap: Int) -> Int {
        guard let current else { return cap }
        return max(0, min(cap, current.left.withLock { $0.steps }))
    }

    /// Counts `count` steps an evaluation took against the current request's budget.
    static func spend(steps count: Int) {
        current?.left.withLock { $0.steps -= count }
    }

    /// Counts `count` bytes of text a matcher built; `false` once the request has built more
    /// than ``bytes`` (the matcher then gives up).
    static func spend(bytes count: Int) -> Bool {
        guard let current else { return true }
        return current.left.withLock { left in
            left.bytes -= count
            return left.bytes >= 0
        }
    }

    /// Whether the current request's steps are spent (later evaluations give up at once).
    static var isSpent: Bool { steps(upTo: 1) == 0 }
}

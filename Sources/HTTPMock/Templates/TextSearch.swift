import Foundation

/// The first match of a Java-syntax pattern inside a text, with its groups (Java's
/// `Matcher.find()`, what WireMock's `regexExtract` helper does), on ``TextRegex``'s bounded
/// backtracking machine: one search costs at most ``TextRegex/stepBudget`` steps, whatever
/// the pattern and the text (`(a+)+b` against a long run of `a`s gives up, it does not hang).
///
/// ```swift
/// let search = try TextSearch("([a-z])([0-9]+)")
/// search.firstMatch(in: "a1b22")   // .found(match: "a1", groups: ["a", "1"])
/// ```
package struct TextSearch: Sendable {
    package enum Outcome: Sendable, Equatable {
        /// The matched text and each group's text (`nil` for a group that took no part).
        case found(match: String, groups: [String?])
        case none
        /// The step budget ran out before a match was found.
        case gaveUp
    }

    private let program: RegexProgram
    private let groupCount: Int
    package let pattern: String

    /// Compiles `pattern`.
    /// - Throws: `TextRegex.SyntaxError` naming what is wrong and where.
    package init(_ pattern: String) throws(TextRegex.SyntaxError) {
        var parser = RegexParser(pattern)
        let tree = try parser.parse()
        self.pattern = pattern
        self.groupCount = parser.captureCount
        self.program = try RegexCompiler.compile(tree, captureCount: parser.captureCount, capturing: true)
    }

    /// The leftmost match in `text`, as Java's matcher finds it.
    package func firstMatch(in text: String) -> Outcome {
        let scalars = Array(text.unicodeScalars)
        let input = scalars.map(\.value)
        var budget = TextRegex.stepBudget
        var captures = [Int](repeating: -1, count: program.captureSlots)
        for start in 0...input.count {
            for index in captures.indices { captures[index] = -1 }
            if let end = Backtracker.run(program, input, start: start, requiredEnd: nil, captures: &captures, budget: &budget) {
                func slice(_ from: Int, _ to: Int) -> String { String(String.UnicodeScalarView(scalars[from..<to])) }
                let groups: [String?] = (1...max(groupCount, 1)).prefix(groupCount).map { group in
                    let (from, to) = (captures[group * 2], captures[group * 2 + 1])
                    return from >= 0 && to >= from ? slice(from, to) : nil
                }
                return .found(match: slice(start, end), groups: groups)
            }
            if budget < 0 { return .gaveUp }
        }
        return .none
    }
}

import Foundation

/// A regular expression from a mock file, in Java's syntax (as WireMock and Jayway compile it),
/// compiled once and matched against whole strings (Java's `Matcher.matches()`).
///
/// Matching is bounded whatever the pattern and the input. Patterns without back-references,
/// look-around or atomic groups (nearly all) run on a Pike VM, whose cost is at most the
/// input's length times the pattern's size: `(a+)+$` against 40 characters is a few hundred
/// steps, not 2⁴⁰; they match inputs of any length (a 1 MB body too). The others run on a
/// backtracking machine that stops after ``stepBudget`` steps: an evaluation that would go past
/// it ends as ``Evaluation/gaveUp`` (no match). All the evaluations for one request share
/// ``MatchBudget/steps`` too, so one request's regular expressions cost that request a bounded
/// amount of work however many values, elements or parts they run on.
///
/// Before either machine runs, the text must start with ``literalPrefix``, end with the text
/// every match ends with, and contain each of ``requiredLiterals`` (a byte search): most texts
/// a pattern does not match are refused there, in well under a microsecond, and a route index
/// files URL patterns by them (``RouteIndex``).
package struct TextRegex: Sendable, CustomStringConvertible {
    /// A pattern Java would refuse, or one this engine does not support; the message says which
    /// and where.
    package struct SyntaxError: Error, Sendable, CustomStringConvertible {
        package let message: String
        package var description: String { message }
    }

    /// How one evaluation ended.
    package enum Evaluation: Sendable, Equatable {
        case match
        case noMatch
        /// The step budget ran out: counted as no match.
        case gaveUp
    }

    /// Steps one evaluation may take.
    static let stepBudget = 1_000_000

    /// The pattern as written.
    package let pattern: String
    let program: RegexProgram
    /// Text every match starts with (case-sensitively): the index's key for a URL pattern.
    package let literalPrefix: String
    /// Whether the pattern matches exactly one string, ``literalPrefix``.
    package let isLiteral: Bool
    /// Texts (UTF-8, case-sensitive) every match contains, longest first, none inside another:
    /// derived conservatively from the tree (an alternation, an optional part, a
    /// case-insensitive letter or a class yields nothing), so a text without one of them cannot
    /// match.
    let requiredLiterals: [[UInt8]]
    /// Text (UTF-8) every match ends with: a whole text that does not end with it cannot match.
    let literalSuffix: [UInt8]
    /// Whether matching runs on the linear Pike VM (else: backtracking, bounded by the budget).
    var isLinear: Bool { program.isLinear }

    /// Compiles `pattern`.
    /// - Throws: ``SyntaxError`` naming what is wrong and where.
    package init(_ pattern: String) throws(SyntaxError) {
        var parser = RegexParser(pattern)
        let tree = try parser.parse()
        let hasBackreferences = Self.containsBackreference(tree)
        self.pattern = pattern
        self.program = try RegexCompiler.compile(tree, captureCount: parser.captureCount, capturing: hasBackreferences)
        let (prefix, complete) = Self.literalPrefix(of: tree, atStart: true)
        self.literalPrefix = String(String.UnicodeScalarView(prefix.compactMap(Unicode.Scalar.init)))
        self.isLiteral = complete
        (self.requiredLiterals, self.literalSuffix) = RequiredLiterals.of(tree)
    }

    package var description: String { pattern }

    /// Whether all of `text` matches (a budget that ran out counts as no match).
    package func matchesWhole(_ text: String) -> Bool { evaluate(text) == .match }

    /// Matches all of `text`.
    package func evaluate(_ text: String) -> Evaluation {
        if isLiteral { return text == literalPrefix ? .match : .noMatch }
        if !literalPrefix.isEmpty, !text.hasPrefix(literalPrefix) { return .noMatch }
        if !requiredLiterals.isEmpty, !RequiredLiterals.admits(text, suffix: literalSuffix, literals: requiredLiterals) {
            return .noMatch
        }
        if program.isLinear {
            // Input × program steps at most: no budget, so a long body matches too.
            var unbounded = Int.max
            return PikeVM.matchesWhole(program, text.unicodeScalars, budget: &unbounded)
        }
        // At most ``stepBudget``, and no more than the request being matched has left: its
        // evaluations share one budget (``MatchBudget``).
        let allowed = MatchBudget.steps(upTo: Self.stepBudget)
        guard allowed > 0 else { return .gaveUp }
        var budget = allowed
        let input = text.unicodeScalars.map(\.value)
        var captures = [Int](repeating: -1, count: program.captureSlots)
        let end = Backtracker.run(program, input, start: 0, requiredEnd: input.count, captures: &captures, budget: &budget)
        MatchBudget.spend(steps: allowed - max(budget, 0))
        if budget < 0 { return .gaveUp }
        return end == nil ? .noMatch : .match
    }

    /// An upper bound of the steps matching `length` characters takes: small means it can run
    /// anywhere (an event loop); large, or a backtracking pattern, means it belongs on a thread
    /// that may wait.
    func cost(forLength length: Int) -> Int {
        if isLiteral { return length }
        guard program.isLinear else { return Self.stepBudget }
        // Capped (a linear pattern runs to the end however long): what matters is above or below
        // the inline limit.
        let (product, overflow) = length.addingReportingOverflow(1).partialValue.multipliedReportingOverflow(by: program.instructions.count)
        return overflow ? Self.stepBudget : min(Self.stepBudget, product)
    }

    private static func containsBackreference(_ node: RegexNode) -> Bool {
        switch node {
        case .backreference: return true
        case .empty, .set, .assertion: return false
        case .concat(let items), .alternate(let items): return items.contains(where: containsBackreference)
        case .repeated(let inner, _, _, _, _), .group(let inner, _), .look(let inner, _, _), .atomic(let inner):
            return containsBackreference(inner)
        }
    }

    /// The scalars every match starts with, and whether the node is exactly them.
    private static func literalPrefix(of node: RegexNode, atStart: Bool) -> (prefix: [UInt32], complete: Bool) {
        switch node {
        case .empty:
            return ([], true)
        case .set(let set):
            guard let scalar = set.singleScalar else { return ([], false) }
            return ([scalar], true)
        case .group(let inner, _):
            return literalPrefix(of: inner, atStart: atStart)
        case .assertion(.inputStart), .assertion(.lineStart):
            // Zero-width and always true where a whole match starts.
            return ([], atStart)
        case .concat(let items):
            var prefix: [UInt32] = []
            for item in items {
                let (part, complete) = literalPrefix(of: item, atStart: atStart && prefix.isEmpty)
                prefix += part
                if !complete { return (prefix, false) }
            }
            return (prefix, true)
        case .repeated(let inner, let min, let max, _, let possessive):
            guard min >= 1, !possessive else { return ([], false) }
            let (part, complete) = literalPrefix(of: inner, atStart: atStart)
            guard complete else { return (part, false) }
            return (Array([[UInt32]](repeating: part, count: min).joined()), max == min)
        default:
            return ([], false)
        }
    }
}

/// The Pike VM: all threads advance together, one input scalar at a time; a thread is a
/// program counter, kept at most once per position, so the cost is at most input × program.
enum PikeVM {
    /// Threads by program counter, each at most once (a sparse set: O(1) insert, clear and test).
    struct ThreadList {
        var dense: [Int]
        var sparse: [Int]
        var count = 0

        init(capacity: Int) {
            dense = [Int](repeating: 0, count: capacity)
            sparse = [Int](repeating: 0, count: capacity)
        }

        func contains(_ pc: Int) -> Bool {
            let slot = sparse[pc]
            return slot < count && dense[slot] == pc
        }

        mutating func insert(_ pc: Int) {
            sparse[pc] = count
            dense[count] = pc
            count += 1
        }
    }

    static func matchesWhole(_ program: RegexProgram, _ text: String.UnicodeScalarView, budget: inout Int) -> TextRegex.Evaluation {
        let instructions = program.instructions
        var current = ThreadList(capacity: instructions.count)
        var next = ThreadList(capacity: instructions.count)
        var stack: [Int] = []
        var iterator = text.makeIterator()
        var previous: UInt32?
        var scalar = iterator.next()?.value
        var lookahead = scalar == nil ? nil : iterator.next()?.value
        var position = 0
        addThread(0, to: &current, instructions, previous: nil, current: scalar, following: lookahead, position: 0, stack: &stack)
        while let input = scalar {
            if current.count == 0 { return .noMatch }
            budget -= current.count
            if budget < 0 { return .gaveUp }
            next.count = 0
            let afterScalar = lookahead
            let afterAfter = lookahead == nil ? nil : iterator.next()?.value
            for slot in 0..<current.count {
                let pc = current.dense[slot]
                let advances: Bool
                switch instructions[pc] {
                case .scalar(let expected): advances = expected == input
                case .set(let index): advances = program.sets[index].contains(input)
                default: advances = false
                }
                if advances {
                    addThread(
                        pc + 1, to: &next, instructions, previous: input, current: afterScalar, following: afterAfter,
                        position: position + 1, stack: &stack)
                }
            }
            swap(&current, &next)
            previous = input
            scalar = afterScalar
            lookahead = afterAfter
            position += 1
        }
        _ = previous
        for slot in 0..<current.count {
            if case .match = instructions[current.dense[slot]] { return .match }
        }
        return .noMatch
    }

    /// Adds `pc` and everything reachable from it without consuming input.
    private static func addThread(
        _ start: Int, to list: inout ThreadList, _ instructions: [RegexInstruction], previous: UInt32?, current: UInt32?,
        following: UInt32?, position: Int, stack: inout [Int]
    ) {
        stack.removeAll(keepingCapacity: true)
        stack.append(start)
        while let pc = stack.popLast() {
            guard !list.contains(pc) else { continue }
            list.insert(pc)
            switch instructions[pc] {
            case .jump(let target):
                stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assert(let assertion):
                if RegexContext.holds(assertion, previous: previous, current: current, following: following, position: position) {
                    stack.append(pc + 1)
                }
            case .save, .loopStart, .loopProgress:
                stack.append(pc + 1)
            default:
                break
            }
        }
    }
}

/// Zero-width assertions, from the scalars around a position.
enum RegexContext {
    static func isLineTerminator(_ scalar: UInt32, unixLines: Bool) -> Bool {
        unixLines ? scalar == 0x0A : (scalar == 0x0A || scalar == 0x0D || scalar == 0x85 || scalar == 0x2028 || scalar == 0x2029)
    }

    static func isWord(_ scalar: UInt32?) -> Bool {
        guard let scalar else { return false }
        return ScalarProperty(kind: .javaWord).contains(scalar)
    }

    /// `previous`: the scalar before the position; `current`, `following`: the two after it.
    static func holds(_ assertion: RegexAssertion, previous: UInt32?, current: UInt32?, following: UInt32?, position: Int) -> Bool {
        switch assertion {
        case .inputStart:
            return position == 0
        case .inputEnd:
            return current == nil
        case .inputEndBeforeTerminator:
            return endOrBeforeFinalTerminator(current: current, following: following, unixLines: false)
        case .lineStart(let multiline, let unixLines):
            if position == 0 { return true }
            guard multiline, let previous, current != nil else { return false }
            // Not between \r and \n.
            if previous == 0x0D, current == 0x0A, !unixLines { return false }
            return isLineTerminator(previous, unixLines: unixLines)
        case .lineEnd(let multiline, let unixLines):
            if multiline {
                guard let current else { return true }
                if current == 0x0A, previous == 0x0D, !unixLines { return false }
                return isLineTerminator(current, unixLines: unixLines)
            }
            return endOrBeforeFinalTerminator(current: current, following: following, unixLines: unixLines)
        case .wordBoundary:
            return isWord(previous) != isWord(current)
        case .notWordBoundary:
            return isWord(previous) == isWord(current)
        }
    }

    private static func endOrBeforeFinalTerminator(current: UInt32?, following: UInt32?, unixLines: Bool) -> Bool {
        guard let current else { return true }
        if !unixLines, current == 0x0D, following == 0x0A { return true }  // before a final \r\n
        return following == nil && isLineTerminator(current, unixLines: unixLines)
    }
}

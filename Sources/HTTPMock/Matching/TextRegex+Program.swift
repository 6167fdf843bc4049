import Foundation

// A parsed regular expression compiled into instructions, and the two machines that run them:
// a Pike VM (every possible thread advanced in step over the input: linear, whatever the
// pattern) for patterns without back-references, look-around or atomic groups, and a
// backtracking machine with an explicit stack and a step budget for those that have them.

enum RegexInstruction: Sendable {
    case scalar(UInt32)
    case set(Int)
    /// Try the first target, then the second.
    case split(Int, Int)
    case jump(Int)
    case assert(RegexAssertion)
    /// Records the position in a capture slot (only programs with back-references keep them).
    case save(Int)
    /// Records the position a loop iteration starts at, and fails an iteration that consumed
    /// nothing (so `(a*)*` cannot loop forever in the backtracking machine).
    case loopStart(Int)
    case loopProgress(Int)
    case backreference(Int, caseInsensitive: Bool)
    case look(Int, ahead: Bool, negated: Bool, minimumLength: Int, maximumLength: Int)
    case atomic(Int)
    case match
}

/// Compiled instructions; sub-programs for look-around and atomic groups.
final class RegexProgram: Sendable {
    let instructions: [RegexInstruction]
    let sets: [ScalarSet]
    let subprograms: [RegexProgram]
    let captureSlots: Int
    let loopSlots: Int
    /// Its instructions and all its sub-programs', however deep.
    let size: Int

    init(instructions: [RegexInstruction], sets: [ScalarSet], subprograms: [RegexProgram], captureSlots: Int, loopSlots: Int) {
        self.instructions = instructions
        self.sets = sets
        self.subprograms = subprograms
        self.captureSlots = captureSlots
        self.loopSlots = loopSlots
        size = subprograms.reduce(instructions.count) { $0 + $1.size }
    }

    /// Whether the Pike VM can run it (nothing that needs backtracking).
    var isLinear: Bool {
        subprograms.isEmpty
            && !instructions.contains {
                switch $0 {
                case .backreference, .look, .atomic: return true
                default: return false
                }
            }
    }
}

/// Turns a tree into instructions.
struct RegexCompiler {
    static let maximumInstructions = 50_000

    private var instructions: [RegexInstruction] = []
    private var sets: [ScalarSet] = []
    private var setIndexes: [ScalarSet: Int] = [:]
    private var subprograms: [RegexProgram] = []
    private var loopSlots = 0
    /// The instructions of the sub-programs compiled so far: they count against
    /// ``maximumInstructions`` too, so `(?=…){1,40000}` stops at the limit instead of compiling
    /// its look-ahead 40,000 times (a 52-byte pattern took 0.4 s before; found by FuzzRegex).
    private var nestedSize = 0
    private let capturing: Bool
    private let captureCount: Int

    private init(capturing: Bool, captureCount: Int) {
        self.capturing = capturing
        self.captureCount = captureCount
    }

    /// Compiles `node`; captures are recorded only when `capturing` (a back-reference needs them).
    static func compile(_ node: RegexNode, captureCount: Int, capturing: Bool) throws(TextRegex.SyntaxError) -> RegexProgram {
        var compiler = RegexCompiler(capturing: capturing, captureCount: captureCount)
        try compiler.emit(node)
        compiler.instructions.append(.match)
        return RegexProgram(
            instructions: compiler.instructions, sets: compiler.sets, subprograms: compiler.subprograms,
            captureSlots: capturing ? (captureCount + 1) * 2 : 0, loopSlots: compiler.loopSlots)
    }

    private mutating func append(_ instruction: RegexInstruction) throws(TextRegex.SyntaxError) {
        guard instructions.count + nestedSize < Self.maximumInstructions else {
            throw TextRegex.SyntaxError(message: "the pattern is too large once its repetitions are expanded")
        }
        instructions.append(instruction)
    }

    private mutating func addSubprogram(_ program: RegexProgram) throws(TextRegex.SyntaxError) {
        nestedSize += program.size
        guard instructions.count + nestedSize < Self.maximumInstructions else {
            throw TextRegex.SyntaxError(message: "the pattern is too large once its repetitions are expanded")
        }
        subprograms.append(program)
    }

    private mutating func emit(_ node: RegexNode) throws(TextRegex.SyntaxError) {
        switch node {
        case .empty:
            break
        case .set(let given):
            if let scalar = given.singleScalar {
                try append(.scalar(scalar))
            } else {
                // Keyed by the set as written: a repeated class is normalized once, not per copy.
                let index = setIndexes[given] ?? sets.count
                if index == sets.count {
                    sets.append(given.normalized())
                    setIndexes[given] = index
                }
                try append(.set(index))
            }
        case .concat(let items):
            for item in items { try emit(item) }
        case .alternate(let branches):
            var jumps: [Int] = []
            for (position, branch) in branches.enumerated() {
                if position < branches.count - 1 {
                    let split = instructions.count
                    try append(.split(split + 1, -1))
                    try emit(branch)
                    jumps.append(instructions.count)
                    try append(.jump(-1))
                    instructions[split] = .split(split + 1, instructions.count)
                } else {
                    try emit(branch)
                }
            }
            for jump in jumps { instructions[jump] = .jump(instructions.count) }
        case .group(let inner, let capture):
            if capturing, let capture { try append(.save(capture * 2)) }
            try emit(inner)
            if capturing, let capture { try append(.save(capture * 2 + 1)) }
        case .assertion(let assertion):
            try append(.assert(assertion))
        case .backreference(let number, let caseInsensitive):
            try append(.backreference(number, caseInsensitive: caseInsensitive))
        case .look(let inner, let ahead, let negated):
            let lengths = Self.lengths(of: inner)
            guard ahead || lengths.max != nil else {
                throw TextRegex.SyntaxError(message: "a look-behind group needs a bounded length (no * or + inside)")
            }
            let program = try Self.compile(inner, captureCount: captureCount, capturing: capturing)
            try addSubprogram(program)
            try append(
                .look(subprograms.count - 1, ahead: ahead, negated: negated, minimumLength: lengths.min, maximumLength: lengths.max ?? 0))
        case .atomic(let inner):
            try addSubprogram(try Self.compile(inner, captureCount: captureCount, capturing: capturing))
            try append(.atomic(subprograms.count - 1))
        case .repeated(let inner, let min, let max, let greedy, let possessive):
            if possessive {
                try emit(.atomic(.repeated(inner, min: min, max: max, greedy: true, possessive: false)))
                return
            }
            for _ in 0..<min { try emit(inner) }
            if let max {
                // Each optional copy skips to the end when not taken.
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(instructions.count)
                    try append(.split(-1, -1))
                    try emit(inner)
                }
                for split in splits {
                    instructions[split] = greedy ? .split(split + 1, instructions.count) : .split(instructions.count, split + 1)
                }
            } else {
                let slot = loopSlots
                loopSlots += 1
                let split = instructions.count
                try append(.split(-1, -1))
                try append(.loopStart(slot))
                try emit(inner)
                try append(.loopProgress(slot))
                try append(.jump(split))
                instructions[split] = greedy ? .split(split + 1, instructions.count) : .split(instructions.count, split + 1)
            }
        }
    }

    /// The shortest and longest input a node can match (`nil`: unbounded). Sums and products
    /// saturate (`((a{100000}){100000}){100000}` is a length no input reaches, not a trap): a
    /// saturated minimum is `Int.max`, a saturated maximum unbounded.
    static func lengths(of node: RegexNode) -> (min: Int, max: Int?) {
        switch node {
        case .empty, .assertion, .look: return (0, 0)
        case .set: return (1, 1)
        case .backreference: return (0, nil)
        case .group(let inner, _), .atomic(let inner): return lengths(of: inner)
        case .concat(let items):
            var low = 0
            var high: Int? = 0
            for item in items {
                let (a, b) = lengths(of: item)
                low = saturatingSum(low, a)
                high = high.flatMap { total in b.flatMap { checkedSum(total, $0) } }
            }
            return (low, high)
        case .alternate(let branches):
            let all = branches.map(lengths(of:))
            let high = all.contains { $0.max == nil } ? nil : all.compactMap(\.max).max()
            return (all.map(\.min).min() ?? 0, high)
        case .repeated(let inner, let min, let max, _, _):
            let (a, b) = lengths(of: inner)
            return (saturatingProduct(a, min), max.flatMap { count in b.flatMap { checkedProduct($0, count) } })
        }
    }

    static func saturatingSum(_ a: Int, _ b: Int) -> Int { checkedSum(a, b) ?? Int.max }
    static func saturatingProduct(_ a: Int, _ b: Int) -> Int { checkedProduct(a, b) ?? Int.max }

    static func checkedSum(_ a: Int, _ b: Int) -> Int? {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? nil : sum
    }

    static func checkedProduct(_ a: Int, _ b: Int) -> Int? {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? nil : product
    }
}

/// The backtracking machine, for patterns with back-references, look-around or atomic groups:
/// an explicit stack (no recursion, whatever the input), and a step budget shared with the
/// sub-programs it runs, after which it gives up.
enum Backtracker {
    private enum Frame {
        case branch(pc: Int, position: Int)
        case restoreCapture(slot: Int, value: Int)
        case restoreLoop(slot: Int, value: Int)
    }

    /// The end of the first match of `program` starting at `start` (ending at `requiredEnd`
    /// when given), in the priority order Java's matcher tries; `nil` when there is none or the
    /// budget ran out (then `budget` is negative).
    static func run(
        _ program: RegexProgram, _ input: [UInt32], start: Int, requiredEnd: Int?, captures: inout [Int],
        budget: inout Int
    ) -> Int? {
        let instructions = program.instructions
        var stack: [Frame] = []
        var pc = 0
        var position = start
        var localLoops = [Int](repeating: -1, count: program.loopSlots)
        while true {
            budget -= 1
            if budget < 0 { return nil }
            var failed = false
            switch instructions[pc] {
            case .scalar(let expected):
                if position < input.count, input[position] == expected {
                    pc += 1
                    position += 1
                } else {
                    failed = true
                }
            case .set(let index):
                if position < input.count, program.sets[index].contains(input[position]) {
                    pc += 1
                    position += 1
                } else {
                    failed = true
                }
            case .split(let first, let second):
                stack.append(.branch(pc: second, position: position))
                pc = first
            case .jump(let target):
                pc = target
            case .assert(let assertion):
                let previous = position > 0 ? input[position - 1] : nil
                let current = position < input.count ? input[position] : nil
                let following = position + 1 < input.count ? input[position + 1] : nil
                if RegexContext.holds(assertion, previous: previous, current: current, following: following, position: position) {
                    pc += 1
                } else {
                    failed = true
                }
            case .save(let slot):
                stack.append(.restoreCapture(slot: slot, value: captures[slot]))
                captures[slot] = position
                pc += 1
            case .loopStart(let slot):
                stack.append(.restoreLoop(slot: slot, value: localLoops[slot]))
                localLoops[slot] = position
                pc += 1
            case .loopProgress(let slot):
                if localLoops[slot] == position { failed = true } else { pc += 1 }
            case .backreference(let number, let caseInsensitive):
                let from = captures.indices.contains(number * 2) ? captures[number * 2] : -1
                let to = captures.indices.contains(number * 2 + 1) ? captures[number * 2 + 1] : -1
                guard from >= 0, to >= from else {
                    failed = true
                    break
                }
                let length = to - from
                if position + length <= input.count,
                    (0..<length).allSatisfy({ same(input[from + $0], input[position + $0], caseInsensitive: caseInsensitive) })
                {
                    position += length
                    pc += 1
                } else {
                    failed = true
                }
            case .look(let index, let ahead, let negated, let minimumLength, let maximumLength):
                let sub = program.subprograms[index]
                var found = false
                if ahead {
                    found = run(sub, input, start: position, requiredEnd: nil, captures: &captures, budget: &budget) != nil
                } else {
                    var from = position - minimumLength
                    while !found, from >= max(0, position - maximumLength) {
                        found =
                            run(sub, input, start: from, requiredEnd: position, captures: &captures, budget: &budget) != nil
                        from -= 1
                    }
                }
                if budget < 0 { return nil }
                if found != negated { pc += 1 } else { failed = true }
            case .atomic(let index):
                let end = run(program.subprograms[index], input, start: position, requiredEnd: nil, captures: &captures, budget: &budget)
                if budget < 0 { return nil }
                if let end {
                    position = end
                    pc += 1
                } else {
                    failed = true
                }
            case .match:
                if requiredEnd == nil || requiredEnd == position { return position }
                failed = true
            }
            guard failed else { continue }
            var resumed = false
            while let frame = stack.popLast() {
                switch frame {
                case .restoreCapture(let slot, let value):
                    captures[slot] = value
                case .restoreLoop(let slot, let value):
                    localLoops[slot] = value
                case .branch(let target, let at):
                    pc = target
                    position = at
                    resumed = true
                }
                if resumed { break }
            }
            if !resumed { return nil }
        }
    }

    private static func same(_ a: UInt32, _ b: UInt32, caseInsensitive: Bool) -> Bool {
        guard a != b else { return true }
        guard caseInsensitive else { return false }
        return RegexParser.caseVariants(a, unicode: false).contains(b)
    }
}

import Foundation

// Reads Java's regular-expression syntax (what WireMock and Jayway compile with
// `java.util.regex.Pattern`) into a tree: literals and escapes, `.`, classes with ranges,
// negation, nesting, `&&` and `\p{…}`, groups (capturing, named, non-capturing, flag groups),
// alternation, greedy, lazy and possessive quantifiers, anchors and `\b`, back-references,
// look-around and atomic groups. Flags `i`, `s`, `m`, `x`, `u`, `d`.

struct RegexParser {
    let scalars: [Unicode.Scalar]
    var index = 0
    var flags = RegexFlags()
    private(set) var captureCount = 0
    var names: [String: Int] = [:]
    var depth = 0
    static let maximumDepth = 200

    init(_ pattern: String) {
        scalars = Array(pattern.unicodeScalars)
    }

    mutating func parse() throws(TextRegex.SyntaxError) -> RegexNode {
        let node = try alternation()
        if index < scalars.count {
            throw error(scalars[index] == ")" ? "unmatched )" : "unexpected \(scalars[index])")
        }
        return node
    }

    mutating func alternation() throws(TextRegex.SyntaxError) -> RegexNode {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw error("groups are nested deeper than \(Self.maximumDepth) levels") }
        var branches = [try sequence()]
        while peek() == "|" {
            index += 1
            branches.append(try sequence())
        }
        return branches.count == 1 ? branches[0] : .alternate(branches)
    }

    mutating func sequence() throws(TextRegex.SyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while true {
            skipComments()
            guard let scalar = peek(), scalar != "|", scalar != ")" else { break }
            var atom = try self.atom()
            atom = try quantified(atom)
            items.append(atom)
        }
        return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .concat(items))
    }

    mutating func quantified(_ atom: RegexNode) throws(TextRegex.SyntaxError) -> RegexNode {
        var node = atom
        while true {
            skipComments()
            let bounds: (Int, Int?)
            switch peek() {
            case "*": bounds = (0, nil)
            case "+": bounds = (1, nil)
            case "?": bounds = (0, 1)
            case "{":
                guard let counted = try countedBounds() else { return node }
                bounds = counted
            default: return node
            }
            if peek() != "}" || bounds != (0, nil) { index += 1 }
            if case .assertion = node { continue }  // Java allows ^* and ignores it
            var greedy = true
            var possessive = false
            if peek() == "?" {
                greedy = false
                index += 1
            } else if peek() == "+" {
                possessive = true
                index += 1
            }
            if case .repeated = node {
                // `a**` is an error in Java; `(?:a*)*` is fine.
                throw error("a quantifier follows another quantifier")
            }
            node = .repeated(node, min: bounds.0, max: bounds.1, greedy: greedy, possessive: possessive)
        }
    }

    /// `{n}`, `{n,}`, `{n,m}`; leaves the index on the closing `}`. A `{` that does not start
    /// one is an error, as in Java.
    mutating func countedBounds() throws(TextRegex.SyntaxError) -> (Int, Int?)? {
        let start = index
        index += 1
        guard let low = number() else {
            index = start
            throw error("{ does not start a repetition such as {2} or {1,3}; write \\{ for a literal {")
        }
        var high: Int? = low
        if peek() == "," {
            index += 1
            high = number()
        }
        guard peek() == "}" else {
            index = start
            throw error("a repetition such as {2} or {1,3} is not closed")
        }
        if let high, high < low { throw error("the repetition {\(low),\(high)} has its bounds reversed") }
        if low > 100_000 || (high ?? 0) > 100_000 { throw error("repetition counts above 100000 are not supported") }
        return (low, high)
    }

    mutating func number() -> Int? {
        let start = index
        while let scalar = peek(), ("0"..."9").contains(scalar) { index += 1 }
        guard index > start, index - start <= 6 else { return nil }
        return Int(String(String.UnicodeScalarView(scalars[start..<index])))
    }

    mutating func atom() throws(TextRegex.SyntaxError) -> RegexNode {
        guard let scalar = peek() else { throw error("the pattern ends too early") }
        index += 1
        switch scalar {
        case "(": return try group()
        case "[": return .set(try characterClass())
        case ".":
            if flags.dotAll { return .set(ScalarSet(negated: true)) }
            return .set(ScalarSet(ranges: lineTerminators, negated: true))
        case "^": return .assertion(.lineStart(multiline: flags.multiline, unixLines: flags.unixLines))
        case "$": return .assertion(.lineEnd(multiline: flags.multiline, unixLines: flags.unixLines))
        case "\\": return try escape()
        case "*", "+", "?": throw error("\(scalar) has nothing to repeat")
        case "{": throw error("{ does not start a repetition; write \\{ for a literal {")
        default: return literal(scalar.value)
        }
    }

    var lineTerminators: [ClosedRange<UInt32>] {
        flags.unixLines ? [0x0A...0x0A] : [0x0A...0x0A, 0x0D...0x0D, 0x85...0x85, 0x2028...0x2029]
    }

    /// A literal scalar, with its other case when case-insensitive.
    func literal(_ value: UInt32) -> RegexNode {
        .set(literalSet(value))
    }

    func literalSet(_ value: UInt32) -> ScalarSet {
        guard flags.caseInsensitive else { return .single(value) }
        let variants = Self.caseVariants(value, unicode: flags.unicodeCase)
        return ScalarSet(ranges: variants.map { $0...$0 })
    }

    /// The scalar and its other cases: ASCII letters only, as Java's CASE_INSENSITIVE without UNICODE_CASE.
    static func caseVariants(_ value: UInt32, unicode: Bool) -> [UInt32] {
        if (0x41...0x5A).contains(value) { return [value, value + 0x20] }
        if (0x61...0x7A).contains(value) { return [value, value - 0x20] }
        guard unicode, value >= 0x80, let scalar = Unicode.Scalar(value) else { return [value] }
        var variants: [UInt32] = [value]
        for other in [scalar.properties.lowercaseMapping, scalar.properties.uppercaseMapping] {
            let mapped = Array(other.unicodeScalars)
            if mapped.count == 1, !variants.contains(mapped[0].value) { variants.append(mapped[0].value) }
        }
        return variants
    }

    mutating func group() throws(TextRegex.SyntaxError) -> RegexNode {
        guard peek() == "?" else {
            captureCount += 1
            let number = captureCount
            return try closeGroup(.group(try alternation(), capture: number), saved: flags)
        }
        index += 1
        let saved = flags
        switch peek() {
        case ":":
            index += 1
            return try closeGroup(.group(try alternation(), capture: nil), saved: saved)
        case "=", "!":
            let negated = peek() == "!"
            index += 1
            return try closeGroup(.look(try alternation(), ahead: true, negated: negated), saved: saved)
        case ">":
            index += 1
            return try closeGroup(.atomic(try alternation()), saved: saved)
        case "<":
            index += 1
            if peek() == "=" || peek() == "!" {
                let negated = peek() == "!"
                index += 1
                return try closeGroup(.look(try alternation(), ahead: false, negated: negated), saved: saved)
            }
            let start = index
            while let scalar = peek(), scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) { index += 1 }
            let name = String(String.UnicodeScalarView(scalars[start..<index]))
            guard !name.isEmpty, peek() == ">" else { throw error("a named group is written (?<name>…)") }
            index += 1
            guard names[name] == nil else { throw error("the group name \(name) is used twice") }
            captureCount += 1
            names[name] = captureCount
            let number = captureCount
            return try closeGroup(.group(try alternation(), capture: number), saved: saved)
        default:
            // Flags: (?imsx-imsx) for the rest of the group, or (?imsx-imsx:…) for its own.
            var on = true
            var changed = flags
            while let scalar = peek(), scalar != ")", scalar != ":" {
                index += 1
                switch scalar {
                case "-": on = false
                case "i": changed.caseInsensitive = on
                case "s": changed.dotAll = on
                case "m": changed.multiline = on
                case "x": changed.comments = on
                case "u": changed.unicodeCase = on
                case "d": changed.unixLines = on
                case "U":
                    changed.unicodeClasses = on
                    changed.unicodeCase = on
                default: throw error("unsupported flag \(scalar) in (?…)")
                }
            }
            guard let end = peek() else { throw error("the group (? is not closed") }
            index += 1
            flags = changed
            if end == ")" { return .empty }  // applies to the rest of the enclosing group
            return try closeGroup(.group(try alternation(), capture: nil), saved: saved)
        }
    }

    mutating func closeGroup(_ node: RegexNode, saved: RegexFlags) throws(TextRegex.SyntaxError) -> RegexNode {
        guard peek() == ")" else { throw error("a group ( is not closed") }
        index += 1
        flags = saved
        return node
    }

    /// After `\`, outside a class.
    mutating func escape() throws(TextRegex.SyntaxError) -> RegexNode {
        guard let scalar = peek() else { throw error("the pattern ends with \\") }
        switch scalar {
        case "A":
            index += 1
            return .assertion(.inputStart)
        case "z":
            index += 1
            return .assertion(.inputEnd)
        case "Z":
            index += 1
            return .assertion(.inputEndBeforeTerminator)
        case "b":
            index += 1
            return .assertion(.wordBoundary)
        case "B":
            index += 1
            return .assertion(.notWordBoundary)
        case "G":
            index += 1
            return .assertion(.inputStart)  // the end of the previous match: the start, for one match
        case "Q":
            index += 1
            var items: [RegexNode] = []
            while index < scalars.count {
                if scalars[index] == "\\", index + 1 < scalars.count, scalars[index + 1] == "E" {
                    index += 2
                    return .concat(items)
                }
                items.append(literal(scalars[index].value))
                index += 1
            }
            return .concat(items)
        case "1"..."9":
            index += 1
            let number = Int(scalar.value - 0x30)
            guard number <= captureCount else { throw error("\\\(number) refers to a group that does not exist yet") }
            return .backreference(number, caseInsensitive: flags.caseInsensitive)
        case "k":
            index += 1
            guard peek() == "<" else { throw error("a named back-reference is written \\k<name>") }
            index += 1
            let start = index
            while let next = peek(), next != ">" { index += 1 }
            let name = String(String.UnicodeScalarView(scalars[start..<index]))
            guard peek() == ">", let number = names[name] else { throw error("\\k<\(name)> names no group") }
            index += 1
            return .backreference(number, caseInsensitive: flags.caseInsensitive)
        case "R":
            index += 1
            // \R: \r\n, or any one line terminator.
            return .alternate([
                .concat([.set(.single(0x0D)), .set(.single(0x0A))]),
                .set(ScalarSet(ranges: [0x0A...0x0D, 0x85...0x85, 0x2028...0x2029])),
            ])
        default:
            return .set(try classEscape())
        }
    }

    /// Skips whitespace and `#` comments in the `x` (comments) mode.
    mutating func skipComments() {
        guard flags.comments else { return }
        while let scalar = peek() {
            if scalar.properties.isWhitespace {
                index += 1
            } else if scalar == "#" {
                while let next = peek(), next != "\n" { index += 1 }
            } else {
                return
            }
        }
    }

    func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    func error(_ message: String) -> TextRegex.SyntaxError {
        TextRegex.SyntaxError(message: "\(message) (at character \(min(index, scalars.count) + 1))")
    }
}

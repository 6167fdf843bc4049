import Foundation

// The literal texts every match of a regular expression contains, read from its tree, and a
// byte search for them: a text missing one cannot match, whatever the machine would say.

/// What a node says about the texts it matches, for ``RequiredLiterals``.
private struct LiteralFacts {
    /// The one text the node matches, when it matches exactly one (`nil`: several, or unknown).
    var exact: [UInt32]?
    /// Every match starts with it.
    var prefix: [UInt32]
    /// Every match ends with it.
    var suffix: [UInt32]
    /// Every match contains each.
    var required: [[UInt32]]

    static let nothing = LiteralFacts(exact: nil, prefix: [], suffix: [], required: [])

    static func exactly(_ text: [UInt32]) -> LiteralFacts {
        LiteralFacts(exact: text, prefix: text, suffix: text, required: [])
    }

    var start: [UInt32] { exact ?? prefix }
    var end: [UInt32] { exact ?? suffix }
}

enum RequiredLiterals {
    /// The longest exact text followed through a concatenation or a repetition; beyond it only
    /// the prefix and suffix are kept (still required, just shorter).
    static let maximumLength = 256

    /// The texts (UTF-8) every match of `node` contains, longest first, none inside another;
    /// and the text every match ends with (a whole-string match: the text's end).
    ///
    /// Conservative: a part that may be absent (`?`, `*`, `{0,n}`), an alternation (only what
    /// all branches start or end with is kept), a class, a case-insensitive letter, a
    /// back-reference or a look-around contributes nothing of its own; zero-width parts
    /// (anchors, `\b`, look-around) match the empty text.
    static func of(_ node: RegexNode) -> (required: [[UInt8]], suffix: [UInt8]) {
        let facts = self.facts(node)
        var texts = facts.required + [facts.start, facts.end]
        texts = texts.filter { !$0.isEmpty }
        let encoded = texts.map(utf8).sorted { $0.count > $1.count }
        var kept: [[UInt8]] = []
        for text in encoded where !kept.contains(where: { contains($0, text) }) {
            kept.append(text)
        }
        return (kept, utf8(facts.end))
    }

    private static func utf8(_ scalars: [UInt32]) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in scalars {
            guard let scalar = Unicode.Scalar(value) else { continue }
            bytes.append(contentsOf: String(Character(scalar)).utf8)
        }
        return bytes
    }

    private static func facts(_ node: RegexNode) -> LiteralFacts {
        switch node {
        case .empty, .assertion, .look:
            return .exactly([])
        case .set(let set):
            guard let scalar = set.singleScalar, Unicode.Scalar(scalar) != nil else { return .nothing }
            return .exactly([scalar])
        case .group(let inner, _), .atomic(let inner):
            return facts(inner)
        case .backreference:
            return .nothing
        case .concat(let items):
            var combined = LiteralFacts.exactly([])
            for item in items { combined = concatenate(combined, facts(item)) }
            return combined
        case .alternate(let branches):
            let all = branches.map(facts)
            guard let first = all.first else { return .exactly([]) }
            if let exact = first.exact, all.allSatisfy({ $0.exact == exact }) { return .exactly(exact) }
            var prefix = first.start
            var suffix = first.end
            for other in all.dropFirst() {
                prefix = commonPrefix(prefix, other.start)
                suffix = commonSuffix(suffix, other.end)
            }
            return LiteralFacts(exact: nil, prefix: prefix, suffix: suffix, required: [])
        case .repeated(let inner, let min, let max, _, _):
            if max == 0 { return .exactly([]) }
            guard min >= 1 else { return .nothing }
            let one = facts(inner)
            if let exact = one.exact, max == min, exact.count.multipliedReportingOverflow(by: min).partialValue <= maximumLength,
                !exact.count.multipliedReportingOverflow(by: min).overflow
            {
                return .exactly(Array([[UInt32]](repeating: exact, count: min).joined()))
            }
            // At least one copy: its facts hold; two copies meet end to start.
            var required = one.required
            if min >= 2, !one.end.isEmpty || !one.start.isEmpty { required.append(bounded(one.end + one.start)) }
            return LiteralFacts(exact: nil, prefix: one.start, suffix: one.end, required: required)
        }
    }

    private static func concatenate(_ left: LiteralFacts, _ right: LiteralFacts) -> LiteralFacts {
        if let a = left.exact, let b = right.exact, a.count + b.count <= maximumLength {
            return .exactly(a + b)
        }
        var required = left.required + right.required
        // Where the two meet: the left's end then the right's start. When either side is exact,
        // that text is the new prefix or suffix, which grows on and is counted once complete.
        if left.exact == nil, right.exact == nil {
            let junction = left.suffix + right.prefix
            if !junction.isEmpty { required.append(bounded(junction)) }
        }
        let prefix = left.exact.map { bounded($0 + right.prefix) } ?? left.prefix
        let suffix = right.exact.map { Array((left.suffix + $0).suffix(maximumLength)) } ?? right.suffix
        // Keep the list short (the latest kept; fewer texts only refuse less).
        return LiteralFacts(exact: nil, prefix: prefix, suffix: suffix, required: Array(required.suffix(32)))
    }

    private static func bounded(_ text: [UInt32]) -> [UInt32] { Array(text.prefix(maximumLength)) }

    private static func commonPrefix(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        Array(zip(a, b).prefix { $0 == $1 }.map(\.0))
    }

    private static func commonSuffix(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        commonPrefix(a.reversed(), b.reversed()).reversed()
    }

    /// Whether `haystack` contains `needle`.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.withUnsafeBufferPointer { buffer in
            needle.withUnsafeBufferPointer { find($0, in: buffer) }
        }
    }

    /// Whether `text` ends with `suffix` and contains each of `literals`.
    static func admits(_ text: String, suffix: [UInt8], literals: [[UInt8]]) -> Bool {
        var text = text
        return text.withUTF8 { buffer in
            guard buffer.count >= suffix.count, buffer.suffix(suffix.count).elementsEqual(suffix) else { return false }
            return literals.allSatisfy { literal in literal.withUnsafeBufferPointer { find($0, in: buffer) } }
        }
    }

    /// A byte search: the first byte by `memchr`, then a comparison.
    static func find(_ needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first else { return true }
        guard needle.count <= haystack.count, let base = haystack.baseAddress, let needleBase = needle.baseAddress else {
            return false
        }
        var offset = 0
        let last = haystack.count - needle.count
        while offset <= last {
            guard let found = memchr(base + offset, Int32(first), last - offset + 1) else { return false }
            let position = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if memcmp(base + position, needleBase, needle.count) == 0 { return true }
            offset = position + 1
        }
        return false
    }
}

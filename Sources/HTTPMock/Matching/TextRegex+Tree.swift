import Foundation

// The tree a regular expression is parsed into: nodes, assertions, sets of scalars, flags.

/// A parsed regular expression.
indirect enum RegexNode: Sendable {
    case empty
    case set(ScalarSet)
    case concat([RegexNode])
    case alternate([RegexNode])
    case repeated(RegexNode, min: Int, max: Int?, greedy: Bool, possessive: Bool)
    case group(RegexNode, capture: Int?)
    case assertion(RegexAssertion)
    case backreference(Int, caseInsensitive: Bool)
    case look(RegexNode, ahead: Bool, negated: Bool)
    case atomic(RegexNode)
}

enum RegexAssertion: Sendable, Hashable {
    /// `^`: the start, or (multi-line) after a line terminator.
    case lineStart(multiline: Bool, unixLines: Bool)
    /// `$`: the end or before a final line terminator, or (multi-line) before any.
    case lineEnd(multiline: Bool, unixLines: Bool)
    /// `\A`
    case inputStart
    /// `\z`
    case inputEnd
    /// `\Z`: the end or before a final line terminator.
    case inputEndBeforeTerminator
    case wordBoundary
    case notWordBoundary
}

/// A set of Unicode scalars: ranges and character properties, possibly negated, possibly
/// intersected with other sets (`[a-z&&[^aeiou]]`).
struct ScalarSet: Sendable, Hashable {
    var ranges: [ClosedRange<UInt32>] = []
    var properties: [ScalarProperty] = []
    /// Nested sets joined to this one (`[a[^b]]`).
    var unions: [ScalarSet] = []
    /// Sets every member must also be in (`&&`).
    var intersections: [ScalarSet] = []
    var negated = false

    static func single(_ scalar: UInt32) -> ScalarSet { ScalarSet(ranges: [scalar...scalar]) }

    /// Ranges and properties only, not negated: merged into another set by concatenation.
    var isPlain: Bool { !negated && unions.isEmpty && intersections.isEmpty }

    /// The one scalar the set holds, when it holds exactly one (a literal).
    var singleScalar: UInt32? {
        guard isPlain, properties.isEmpty, ranges.count == 1, ranges[0].count == 1 else { return nil }
        return ranges[0].lowerBound
    }

    /// Joins `other` to this set.
    mutating func add(_ other: ScalarSet) {
        if other.isPlain {
            ranges += other.ranges
            properties += other.properties
        } else {
            unions.append(other)
        }
    }

    /// Whether ``ranges`` are sorted, disjoint and not adjacent (``normalized()``): then a
    /// lookup is a binary search, so a class of 200,000 items costs 18 comparisons per
    /// character, not 200,000 (issue 43).
    private(set) var isNormalized = false

    /// The same set with its ranges sorted and merged, nested sets too: what the compiler keeps.
    func normalized() -> ScalarSet {
        var result = self
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<UInt32>] = []
        merged.reserveCapacity(sorted.count)
        for range in sorted {
            if let last = merged.last, UInt64(range.lowerBound) <= UInt64(last.upperBound) + 1 {
                if range.upperBound > last.upperBound { merged[merged.count - 1] = last.lowerBound...range.upperBound }
            } else {
                merged.append(range)
            }
        }
        result.ranges = merged
        result.properties = Array(Set(properties))
        result.unions = unions.map { $0.normalized() }
        result.intersections = intersections.map { $0.normalized() }
        result.isNormalized = true
        return result
    }

    private func rangesContain(_ scalar: UInt32) -> Bool {
        guard isNormalized, ranges.count > 8 else { return ranges.contains { $0.contains(scalar) } }
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < scalar {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low < ranges.count && ranges[low].lowerBound <= scalar
    }

    func contains(_ scalar: UInt32) -> Bool {
        var found = rangesContain(scalar)
        if !found, !properties.isEmpty { found = properties.contains { $0.contains(scalar) } }
        if !found, !unions.isEmpty { found = unions.contains { $0.contains(scalar) } }
        if found, !intersections.isEmpty { found = intersections.allSatisfy { $0.contains(scalar) } }
        return found != negated
    }
}

/// `\d`, `\w`, `\p{L}` and the like.
struct ScalarProperty: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case category(Set<Unicode.GeneralCategory>)
        case alphabetic, lowercase, uppercase, whitespace
        case javaWord  // Java's \b: a letter, a digit or _
    }

    var kind: Kind
    var negated = false

    func contains(_ value: UInt32) -> Bool {
        guard let scalar = Unicode.Scalar(value) else { return negated }
        let properties = scalar.properties
        let holds: Bool
        switch kind {
        case .category(let categories): holds = categories.contains(properties.generalCategory)
        case .alphabetic: holds = properties.isAlphabetic
        case .lowercase: holds = properties.isLowercase
        case .uppercase: holds = properties.isUppercase
        case .whitespace: holds = properties.isWhitespace
        case .javaWord:
            holds = value == 0x5F || properties.isAlphabetic || properties.numericType == .decimal
        }
        return holds != negated
    }
}

/// The flags in force at a point of the pattern.
struct RegexFlags: Sendable {
    var caseInsensitive = false
    var dotAll = false
    var multiline = false
    var comments = false
    var unicodeCase = false
    var unixLines = false
    /// `U`: `\\w`, `\\d`, `\\s` and the POSIX classes take Unicode's definitions.
    var unicodeClasses = false
}

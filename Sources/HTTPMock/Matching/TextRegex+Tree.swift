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

    func contains(_ scalar: UInt32) -> Bool {
        var found = ranges.contains { $0.contains(scalar) }
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

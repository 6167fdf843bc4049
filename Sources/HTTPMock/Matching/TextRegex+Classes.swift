import Foundation

// Escapes, character classes and properties inside Java's regular-expression syntax.

extension RegexParser {
    /// An escape that stands for scalars (inside or outside a class); the index is after `\`.
    mutating func classEscape() throws(TextRegex.SyntaxError) -> ScalarSet {
        guard let scalar = peek() else { throw error("the pattern ends with \\") }
        index += 1
        switch scalar {
        case "d", "D", "w", "W", "s", "S":
            let set = flags.unicodeClasses ? Self.unicodeClass(scalar) : Self.asciiClass(scalar)
            return ScalarSet(ranges: set.ranges, properties: set.properties, negated: scalar.properties.isUppercase)
        case "h": return ScalarSet(ranges: Self.horizontalSpace)
        case "H": return ScalarSet(ranges: Self.horizontalSpace, negated: true)
        case "v": return ScalarSet(ranges: Self.verticalSpace)
        case "V": return ScalarSet(ranges: Self.verticalSpace, negated: true)
        case "p", "P": return try property(negated: scalar == "P")
        case "t": return .single(0x09)
        case "n": return .single(0x0A)
        case "r": return .single(0x0D)
        case "f": return .single(0x0C)
        case "a": return .single(0x07)
        case "e": return .single(0x1B)
        case "0":
            var value: UInt32 = 0
            var digits = 0
            while digits < 3, let next = peek(), ("0"..."7").contains(next) {
                value = value * 8 + (next.value - 0x30)
                index += 1
                digits += 1
            }
            guard digits > 0, value <= 0o377 else { throw error("\\0 needs octal digits") }
            return literalSet(value)
        case "x":
            if peek() == "{" {
                index += 1
                let start = index
                while let next = peek(), next != "}" { index += 1 }
                guard peek() == "}", let value = UInt32(String(String.UnicodeScalarView(scalars[start..<index])), radix: 16),
                    Unicode.Scalar(value) != nil
                else { throw error("\\x{…} needs a hexadecimal code point") }
                index += 1
                return literalSet(value)
            }
            return literalSet(try hex(2))
        case "u": return literalSet(try utf16Escape())
        case "c":
            guard let next = peek() else { throw error("\\c needs a letter") }
            index += 1
            return literalSet(next.value ^ 0x40)
        default:
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                throw error("\\\(scalar) is not an escape Java knows")
            }
            return literalSet(scalar.value)
        }
    }

    /// `\uXXXX`, the index after `u`: a scalar, or a high surrogate joined with the `\uXXXX`
    /// low surrogate that must follow it (Java reads `\uD83D\uDE00` as one code point, 😀). A
    /// lone surrogate is an error: no text holds one.
    mutating func utf16Escape() throws(TextRegex.SyntaxError) -> UInt32 {
        let value = try hex(4)
        switch value {
        case 0xD800...0xDBFF:
            let high = "\\u" + String(value, radix: 16, uppercase: true)
            guard peek() == "\\", peek(1) == "u" else {
                throw error("\(high) is a high surrogate without the low surrogate (\\uDC00…\\uDFFF) that must follow it")
            }
            index += 2
            let low = try hex(4)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw error("\(high) is a high surrogate followed by \\u\(String(low, radix: 16, uppercase: true)), not by a low surrogate")
            }
            return 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
        case 0xDC00...0xDFFF:
            throw error("\\u\(String(value, radix: 16, uppercase: true)) is a low surrogate without the high surrogate before it")
        default:
            return value
        }
    }

    mutating func hex(_ count: Int) throws(TextRegex.SyntaxError) -> UInt32 {
        guard index + count <= scalars.count,
            let value = UInt32(String(String.UnicodeScalarView(scalars[index..<(index + count)])), radix: 16)
        else { throw error("expected \(count) hexadecimal digits") }
        index += count
        return value
    }

    /// `\\d`, `\\w`, `\\s` as Java defines them by default (ASCII).
    static func asciiClass(_ name: Unicode.Scalar) -> ScalarSet {
        switch name {
        case "d", "D": return ScalarSet(ranges: [0x30...0x39])
        case "w", "W": return ScalarSet(ranges: wordRanges)
        default: return ScalarSet(ranges: spaceRanges)
        }
    }

    /// `\\d`, `\\w`, `\\s` under `(?U)`.
    static func unicodeClass(_ name: Unicode.Scalar) -> ScalarSet {
        switch name {
        case "d", "D": return ScalarSet(properties: [ScalarProperty(kind: .category([.decimalNumber]))])
        case "w", "W":
            return ScalarSet(properties: [
                ScalarProperty(kind: .alphabetic),
                ScalarProperty(kind: .category([.nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation])),
            ])
        default: return ScalarSet(properties: [ScalarProperty(kind: .whitespace)])
        }
    }

    static let wordRanges: [ClosedRange<UInt32>] = [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A]
    static let spaceRanges: [ClosedRange<UInt32>] = [0x09...0x0D, 0x20...0x20]
    static let horizontalSpace: [ClosedRange<UInt32>] = [
        0x09...0x09, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x180E...0x180E, 0x2000...0x200A, 0x202F...0x202F,
        0x205F...0x205F, 0x3000...0x3000,
    ]
    static let verticalSpace: [ClosedRange<UInt32>] = [0x0A...0x0D, 0x85...0x85, 0x2028...0x2029]

    /// `\p{Name}` / `\pL`: POSIX classes (ASCII, as Java defines them) and Unicode categories.
    mutating func property(negated: Bool) throws(TextRegex.SyntaxError) -> ScalarSet {
        var name: String
        if peek() == "{" {
            index += 1
            let start = index
            while let next = peek(), next != "}" { index += 1 }
            guard peek() == "}" else { throw error("\\p{ is not closed") }
            name = String(String.UnicodeScalarView(scalars[start..<index]))
            index += 1
        } else {
            guard let next = peek() else { throw error("\\p needs a property name") }
            index += 1
            name = String(next)
        }
        if name.hasPrefix("Is") { name.removeFirst(2) }
        if let ranges = Self.posix[name] { return ScalarSet(ranges: ranges, negated: negated) }
        let kind: ScalarProperty.Kind
        switch name {
        case "Alphabetic": kind = .alphabetic
        case "Lowercase", "javaLowerCase": kind = .lowercase
        case "Uppercase", "javaUpperCase": kind = .uppercase
        case "White_Space", "WhiteSpace", "javaWhitespace": kind = .whitespace
        default:
            guard let categories = Self.categories[name] else { throw error("\\p{\(name)} is not a supported property") }
            kind = .category(categories)
        }
        return ScalarSet(properties: [ScalarProperty(kind: kind)], negated: negated)
    }

    static let posix: [String: [ClosedRange<UInt32>]] = [
        "Lower": [0x61...0x7A], "Upper": [0x41...0x5A], "ASCII": [0x00...0x7F], "Alpha": [0x41...0x5A, 0x61...0x7A],
        "Digit": [0x30...0x39], "Alnum": [0x30...0x39, 0x41...0x5A, 0x61...0x7A],
        "Punct": [0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E], "Graph": [0x21...0x7E], "Print": [0x20...0x7E],
        "Blank": [0x09...0x09, 0x20...0x20], "Cntrl": [0x00...0x1F, 0x7F...0x7F], "XDigit": [0x30...0x39, 0x41...0x46, 0x61...0x66],
        "Space": [0x09...0x0D, 0x20...0x20],
    ]

    static let categories: [String: Set<Unicode.GeneralCategory>] = {
        let letters: Set<Unicode.GeneralCategory> = [.uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter]
        return [
            "L": letters, "Letter": letters, "Lu": [.uppercaseLetter], "Ll": [.lowercaseLetter], "Lt": [.titlecaseLetter],
            "Lm": [.modifierLetter], "Lo": [.otherLetter], "M": [.nonspacingMark, .spacingMark, .enclosingMark],
            "Mn": [.nonspacingMark], "N": [.decimalNumber, .letterNumber, .otherNumber], "Nd": [.decimalNumber],
            "P": [
                .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation,
                .otherPunctuation,
            ],
            "S": [.mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol], "Sc": [.currencySymbol], "Sm": [.mathSymbol],
            "Z": [.spaceSeparator, .lineSeparator, .paragraphSeparator], "Zs": [.spaceSeparator],
            "C": [.control, .format, .surrogate, .privateUse, .unassigned], "Cc": [.control],
        ]
    }()

    /// After `[`: `^`, then items, ranges, nested classes (union) and `&&` (intersection), up to `]`.
    mutating func characterClass() throws(TextRegex.SyntaxError) -> ScalarSet {
        var negated = false
        if peek() == "^" {
            negated = true
            index += 1
        }
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw error("classes are nested deeper than \(Self.maximumDepth) levels") }
        var set = try classBody(first: true)
        guard peek() == "]" else { throw error("a class [ is not closed") }
        index += 1
        if negated {
            set =
                set.isPlain
                ? ScalarSet(ranges: set.ranges, properties: set.properties, negated: true) : ScalarSet(unions: [set], negated: true)
        }
        return set
    }

    /// A class's items up to (not including) its closing `]`; `&&` intersects what came before
    /// with what follows.
    mutating func classBody(first: Bool) throws(TextRegex.SyntaxError) -> ScalarSet {
        var items = ScalarSet()
        var isFirst = first
        while true {
            guard let scalar = peek() else { throw error("a class [ is not closed") }
            if scalar == "]", !isFirst { return items }
            isFirst = false
            if scalar == "[" {
                index += 1
                items.add(try characterClass())
                continue
            }
            if scalar == "&", peek(1) == "&" {
                index += 2
                let rest = try classBody(first: false)
                return ScalarSet(unions: [items], intersections: [rest])
            }
            let low = try classAtom()
            if peek() == "-", let next = peek(1), next != "]", next != "[", let lowValue = low.singleScalar {
                index += 1
                let high = try classAtom()
                guard let highValue = high.singleScalar, highValue >= lowValue else {
                    throw error("the class range is reversed or its end is not one character")
                }
                items.ranges.append(lowValue...highValue)
                if flags.caseInsensitive { items.ranges += Self.caseFoldedRanges(lowValue...highValue) }
            } else {
                items.add(low)
            }
        }
    }

    /// One scalar or escape inside a class.
    mutating func classAtom() throws(TextRegex.SyntaxError) -> ScalarSet {
        guard let scalar = peek() else { throw error("a class [ is not closed") }
        index += 1
        if scalar == "\\" {
            if peek() == "Q" {
                throw error("\\Q…\\E inside a class is not supported")
            }
            return try classEscape()
        }
        return literalSet(scalar.value)
    }

    /// A range's other-case counterparts for ASCII letters.
    static func caseFoldedRanges(_ range: ClosedRange<UInt32>) -> [ClosedRange<UInt32>] {
        var result: [ClosedRange<UInt32>] = []
        let upper = range.clamped(to: 0x41...0x5A)
        if !upper.isEmpty, range.overlaps(0x41...0x5A) { result.append((upper.lowerBound + 0x20)...(upper.upperBound + 0x20)) }
        let lower = range.clamped(to: 0x61...0x7A)
        if !lower.isEmpty, range.overlaps(0x61...0x7A) { result.append((lower.lowerBound - 0x20)...(lower.upperBound - 0x20)) }
        return result
    }

}

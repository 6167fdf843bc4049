import Foundation

/// A compiled JSONPath expression in Jayway's dialect (the one WireMock's `matchesJsonPath`
/// and its `jsonPath` template helper use), evaluated over a ``JSONValue``.
///
/// Supported: `$`, `.name`, `['name']` and `["name"]`, `['a','b']`, `[n]` and negative
/// indexes, `[n,m]`, `[*]` and `.*`, deep scan `..`, slices `[a:b]`, `[a:]`, `[:b]`, `[a:b:c]`,
/// filters `[?(…)]` with `==`, `!=`, `===`, `!==`, `<`, `<=`, `>`, `>=`, `=~ /re/i`, `in`,
/// `nin`, `subsetof`, `anyof`, `noneof`, `contains`, `size`, `empty`, `&&`, `||`, `!`,
/// parentheses, existence (`[?(@.isbn)]`) and paths from the root (`$.limit`) inside a filter;
/// tail functions `length()`, `size()`, `min()`, `max()`, `avg()`, `stddev()`, `sum()`,
/// `keys()`, `first()`, `last()`. A path that does not start with `$` is read as `$.` + path,
/// as Jayway reads it.
///
/// Results follow Jayway: a *definite* path (no wildcard, deep scan, filter, slice or union)
/// gives one value or ``Outcome/missing``; any other gives the list of what it found, skipping
/// members that are absent. Members are visited in document order when the document is an
/// ``OrderedJSON`` (``JSONReader/parseOrdered(_:lenient:)``), in key order for a ``JSONValue``.
/// One difference from Jayway: a slice's step is honoured (Jayway ignores it).
///
/// Bounded: a path is at most ``maximumLength`` characters with filters nested at most
/// ``maximumNesting`` deep, and an evaluation visits at most ``maximumSteps`` values (then it
/// ends with ``Outcome/exceededBudget``), so neither a hostile path nor a hostile document
/// costs more than a bounded amount of work.
///
/// ```swift
/// let path = try JSONPath("$.store.book[?(@.price < 10)].title")
/// path.evaluate(document).values   // [.string("Sayings of the Century"), .string("Moby Dick")]
/// ```
package struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// What an evaluation found.
    package enum Outcome: Sendable, Equatable {
        /// The value of a definite path (or of a tail function).
        case value(OrderedJSON)
        /// A definite path that names nothing in the document.
        case missing
        /// What an indefinite path found, in document order (possibly empty).
        case list([OrderedJSON])
        /// The evaluation went over ``JSONPath/maximumSteps``; treat as no match.
        case exceededBudget
        /// The path cannot be applied to this document (an aggregate over no numbers, as
        /// Jayway's `sum()` of nothing); the message says why.
        case failed(String)
    }

    /// A mistake in a path: where (a 0-based character offset) and what.
    package struct ParseError: Error, Sendable, CustomStringConvertible {
        let offset: Int
        package let message: String
        package var description: String { "\(message) (at character \(offset + 1))" }
    }

    /// Paths longer than this are refused.
    static let maximumLength = 10_000
    /// Filters nested deeper than this (`[?(@.a[?(@.b …)])]`, parentheses) are refused.
    static let maximumNesting = 32
    /// Values one evaluation may visit before it gives up.
    static let maximumSteps = 1_000_000

    /// The expression as written.
    package let text: String
    let root: Root
    let segments: [Segment]
    let function: Function?

    /// Where a path starts: the document (`$`) or, inside a filter, the current value (`@`).
    enum Root: Sendable, Hashable {
        case document
        case current
    }

    /// One step: a selector applied to each current value's children, or to every value below it.
    struct Segment: Sendable {
        var selector: Selector
        var isDeepScan: Bool
    }

    enum Selector: Sendable {
        /// `.name`, `['name']` (one name: definite) or `['a','b']`.
        case names([String])
        case wildcard
        /// `[n]` (one index: definite) or `[n,m]`.
        case indices([Int])
        case slice(start: Int?, end: Int?, step: Int?)
        case filter(JSONPathFilter)
    }

    /// A function at the tail of a path.
    enum Function: String, Sendable, Hashable, CaseIterable {
        case length, size, min, max, avg, stddev, sum, keys, first, last
    }

    /// Compiles `text`.
    /// - Throws: ``ParseError`` naming the position and what was expected there.
    package init(_ text: String) throws(ParseError) {
        self = try JSONPathParser.parse(text)
    }

    init(text: String, root: Root, segments: [Segment], function: Function?) {
        self.text = text
        self.root = root
        self.segments = segments
        self.function = function
    }

    /// Whether the path names at most one value (Jayway's "definite" path): no wildcard, deep
    /// scan, filter, slice or union.
    var isDefinite: Bool {
        segments.allSatisfy { segment in
            guard !segment.isDeepScan else { return false }
            switch segment.selector {
            case .names(let names): return names.count == 1
            case .indices(let indices): return indices.count == 1
            case .wildcard, .slice, .filter: return false
            }
        }
    }

    package var description: String { text }

    package static func == (lhs: JSONPath, rhs: JSONPath) -> Bool { lhs.text == rhs.text }
    package func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// Evaluates the path against `document` (members in document order).
    package func evaluate(_ document: OrderedJSON) -> Outcome {
        // At most ``maximumSteps``, and no more than the request being matched has left.
        let allowed = MatchBudget.steps(upTo: Self.maximumSteps)
        var budget = JSONPathBudget(remaining: allowed)
        let outcome = evaluate(document, root: document, budget: &budget)
        MatchBudget.spend(steps: allowed - max(budget.remaining, 0))
        return outcome
    }

    /// Evaluates the path against `document` (members in key order).
    package func evaluate(_ document: JSONValue) -> Outcome {
        evaluate(OrderedJSON(document))
    }
}

/// The steps an evaluation has left, shared by the filters it runs.
struct JSONPathBudget {
    var remaining = JSONPath.maximumSteps
    var exceeded: Bool { remaining < 0 }

    /// Counts `count` visited values; `false` once the budget is spent.
    mutating func spend(_ count: Int = 1) -> Bool {
        remaining -= count
        return remaining >= 0
    }
}

extension JSONPath.Outcome {
    /// The values found: the one value, the list, or none.
    var nodes: [OrderedJSON] {
        switch self {
        case .value(let value): return [value]
        case .list(let values): return values
        case .missing, .exceededBudget, .failed: return []
        }
    }

    /// ``nodes`` as ``JSONValue``s.
    package var values: [JSONValue] { nodes.map(\.value) }
}

extension JSONValue {
    /// The text Java gives the value with `String.valueOf` (what WireMock's `matchesJsonPath`
    /// sub-matchers compare): strings as they are, integers in decimal, other numbers as Java's
    /// `Double.toString` writes them (`8.95`, `100.0`, `1.0E10`), booleans `true`/`false`,
    /// arrays and objects as compact JSON; `nil` for `null`.
    package var javaText: String? {
        switch self {
        case .null: return nil
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .double(let number): return Self.javaDouble(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .array, .object: return compactJSON
        }
    }

    /// Compact JSON with numbers as Java writes them, for comparing with WireMock.
    package var compactJSON: String {
        switch self {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let number): return String(number)
        case .double(let number): return number.isFinite ? Self.javaDouble(number) : "null"
        case .string(let text): return JSONValue.quoted(text)
        case .array(let values): return "[" + values.map(\.compactJSON).joined(separator: ",") + "]"
        case .object(let members):
            return "{"
                + members.keys.sorted().map { JSONValue.quoted($0) + ":" + (members[$0] ?? .null).compactJSON }.joined(separator: ",")
                + "}"
        }
    }

    /// `text` as a JSON string (RFC 8259 §7): in double quotes, with quotes, backslashes and
    /// control characters escaped. The one quoting of the package: JSON written out, and (with
    /// `limit`) a received value in a message, shortened to `limit` scalars and "…", DEL
    /// escaped too so that nothing unprintable reaches a terminal.
    static func quoted(_ text: String, shortenedTo limit: Int? = nil) -> String {
        var result = "\""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if index == limit {
                result += "…"
                break
            }
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || (limit != nil && scalar.value == 0x7F):
                result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Java's `Double.toString`: the shortest digits that read back as the same double, in
    /// plain notation from 10⁻³ up to 10⁷ (always with a fraction: `100.0`), else as
    /// `d.dddE±n` (`1.0E10`, `1.0E-4`).
    static func javaDouble(_ number: Double) -> String {
        guard number.isFinite else { return number.isNaN ? "NaN" : (number < 0 ? "-Infinity" : "Infinity") }
        if number == 0 { return number.sign == .minus ? "-0.0" : "0.0" }
        let magnitude = abs(number)
        // Swift's description is the shortest round-tripping form; only its layout differs.
        var digits = "\(magnitude)"
        var exponent = 0
        if let e = digits.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(digits[digits.index(after: e)...]) ?? 0
            digits = String(digits[..<e])
        }
        // Now digits is "a.b" or "a": move the point to find the significand and the exponent.
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        var integer = String(parts[0])
        var fraction = parts.count > 1 ? String(parts[1]) : ""
        if fraction == "0" { fraction = "" }
        // Normalise to one significant digit before the point.
        var significand = (integer + fraction)
        var pointExponent = integer.count - 1 + exponent
        while significand.hasPrefix("0"), significand.count > 1 {
            significand.removeFirst()
            pointExponent -= 1
        }
        while significand.hasSuffix("0"), significand.count > 1 { significand.removeLast() }
        let sign = number < 0 ? "-" : ""
        if magnitude >= 1e-3, magnitude < 1e7 {
            if pointExponent >= 0 {
                let padded = significand.padding(toLength: max(significand.count, pointExponent + 1), withPad: "0", startingAt: 0)
                integer = String(padded.prefix(pointExponent + 1))
                fraction = String(padded.dropFirst(pointExponent + 1))
            } else {
                integer = "0"
                fraction = String(repeating: "0", count: -pointExponent - 1) + significand
            }
            return sign + integer + "." + (fraction.isEmpty ? "0" : fraction)
        }
        let head = significand.prefix(1)
        let tail = significand.dropFirst()
        return sign + head + "." + (tail.isEmpty ? "0" : tail) + "E" + String(pointExponent)
    }
}

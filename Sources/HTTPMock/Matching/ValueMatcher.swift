import Foundation

/// A matcher for one value of a request — a header, a query parameter, a cookie, a form field,
/// a path parameter, the host, the body, a JSONPath result — compiled once: WireMock's string
/// matchers and body patterns, usable by every front end that turns a file into routes.
///
/// Semantics follow WireMock (2.35, and 3.x for what 3.x added): `equalTo`, `contains`,
/// `matches` and the numeric and date matchers fail on a missing value; `absent` holds only for
/// one; `doesNotMatch` and `doesNotContain` hold for one; `not` inverts; `and` needs all, `or`
/// one. Regular expressions are bounded (``TextRegex``); a JSONPath is bounded (``JSONPath``).
package indirect enum ValueMatcher: Sendable, CustomStringConvertible {
    case equalTo(String, caseInsensitive: Bool)
    case contains(String)
    case doesNotContain(String)
    case matches(TextRegex)
    case doesNotMatch(TextRegex)
    case absent
    /// Any value, present or not (WireMock's `anything`).
    case anything
    case number(NumberComparison, Double)
    case dateTime(DateTimeCondition)
    case equalToJSON(JSONEquality)
    /// The JSONPath finds something (`nil`), or what it finds satisfies the matcher.
    case jsonPath(JSONPath, ValueMatcher?)
    case binaryEqualTo(Data)
    case not(ValueMatcher)
    case and([ValueMatcher])
    case or([ValueMatcher])
    /// WireMock's `equalToXml`: the body is XML similar to the expected document.
    case equalToXML(XMLEqualityMatcher)
    /// WireMock's `matchesXPath`: the expression selects nodes, one of which satisfies the
    /// sub-matcher when there is one.
    case matchesXPath(XPathMatcher)

    /// `equalToNumber`, `greaterThanNumber` and the rest.
    package enum NumberComparison: String, Sendable {
        case equalTo = "equalToNumber"
        case greaterThan = "greaterThanNumber"
        case greaterThanOrEqual = "greaterThanEqualNumber"
        case lessThan = "lessThanNumber"
        case lessThanOrEqual = "lessThanEqualNumber"

        func holds(_ actual: Double, _ expected: Double) -> Bool {
            switch self {
            case .equalTo: return actual == expected
            case .greaterThan: return actual > expected
            case .greaterThanOrEqual: return actual >= expected
            case .lessThan: return actual < expected
            case .lessThanOrEqual: return actual <= expected
            }
        }
    }

    /// Whether `input` satisfies the matcher.
    package func matches(_ input: MatchInput) -> Bool {
        switch self {
        case .equalTo(let expected, let caseInsensitive):
            guard let value = input.text else { return false }
            return caseInsensitive ? Self.equalIgnoringCase(value, expected) : value == expected
        case .contains(let part):
            guard let value = input.text else { return false }
            return value.containsText(part)
        case .doesNotContain(let part):
            guard let value = input.text else { return true }
            return !value.containsText(part)
        case .matches(let regex):
            guard let value = input.text else { return false }
            return regex.evaluate(value) == .match
        case .doesNotMatch(let regex):
            guard let value = input.text else { return true }
            return regex.evaluate(value) == .noMatch
        case .absent:
            return input.isAbsent
        case .anything:
            return true
        case .number(let comparison, let expected):
            guard let text = input.text, let actual = Self.number(text) else { return false }
            return comparison.holds(actual, expected)
        case .dateTime(let condition):
            return condition.matches(input.text)
        case .equalToJSON(let equality):
            guard let actual = input.json else { return false }
            return equality.matches(actual)
        case .jsonPath(let path, let matcher):
            guard let document = input.orderedJSON else { return false }
            return Self.jsonPathMatches(path, matcher, document)
        case .binaryEqualTo(let expected):
            guard let bytes = input.bytes else { return expected.isEmpty }
            return bytes == expected
        case .not(let inner):
            return !inner.matches(input)
        case .and(let all):
            return all.allSatisfy { $0.matches(input) }
        case .or(let any):
            return any.contains { $0.matches(input) }
        case .equalToXML(let matcher):
            return matcher.matches(input)
        case .matchesXPath(let matcher):
            return matcher.matches(input)
        }
    }

    /// WireMock's `matchesJsonPath` (as its 2.35 jar behaves): without a matcher, the path finds
    /// something that is not `null`, an empty list or an empty object. With one: when the path
    /// finds nothing, `null` or an empty list, only `absent` holds; `equalToJson` compares what
    /// it found as a whole; any other matcher holds when one element of a list (or of an array
    /// found) holds, else when the value does — as text: a string as is, a number as Java
    /// writes it, an object as Jackson prints it.
    static func jsonPathMatches(_ path: JSONPath, _ matcher: ValueMatcher?, _ document: OrderedJSON) -> Bool {
        let outcome = path.evaluate(document)
        guard let matcher else {
            switch outcome {
            case .value(.scalar(.null)), .missing, .exceededBudget, .failed: return false
            case .value(.array(let items)), .list(let items): return !items.isEmpty
            case .value(.object(let members)): return !members.isEmpty
            case .value: return true
            }
        }
        let found: [OrderedJSON]
        switch outcome {
        case .missing, .exceededBudget, .failed, .value(.scalar(.null)): found = []
        case .list(let items), .value(.array(let items)): found = items
        case .value(let value): found = [value]
        }
        if case .absent = matcher { return found.isEmpty }
        if case .equalToJSON(let equality) = matcher {
            guard case .value(let value) = outcome else {
                guard case .list(let items) = outcome else { return false }
                return equality.matches(JSONValue.array(items.map(\.value)))
            }
            return equality.matches(value.value)
        }
        return found.contains { matcher.matches(.text($0.javaText)) }
    }

    /// What a JSONPath found, as reports quote it.
    static func jsonPathText(_ outcome: JSONPath.Outcome) -> String? {
        switch outcome {
        case .value(let value): return value.compactJSON
        case .list(let values): return OrderedJSON.array(values).compactJSON
        case .missing, .exceededBudget, .failed: return nil
        }
    }

    /// Java's `BigDecimal` reading of a number, as WireMock's numeric matchers parse values.
    static func number(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) else { return nil }
        return Double(trimmed).flatMap { $0.isFinite ? $0 : nil }
    }

    static func equalIgnoringCase(_ a: String, _ b: String) -> Bool {
        a.count == b.count && a.lowercased() == b.lowercased()
    }

    /// The matcher as a mapping file writes it: `equalTo "x"`, `matches ^a.*$`.
    package var description: String {
        switch self {
        case .equalTo(let text, let caseInsensitive):
            return "equalTo \(JSONValue.quoted(text))\(caseInsensitive ? " (case-insensitive)" : "")"
        case .contains(let text): return "contains \(JSONValue.quoted(text))"
        case .doesNotContain(let text): return "doesNotContain \(JSONValue.quoted(text))"
        case .matches(let regex): return "matches \(regex.pattern)"
        case .doesNotMatch(let regex): return "doesNotMatch \(regex.pattern)"
        case .absent: return "absent"
        case .anything: return "anything"
        case .number(let comparison, let expected): return "\(comparison.rawValue) \(JSONValue.double(expected).javaText ?? "")"
        case .dateTime(let condition): return condition.description
        case .equalToJSON(let equality): return equality.description
        case .jsonPath(let path, let matcher): return "matchesJsonPath \(path.text)" + (matcher.map { " with \($0)" } ?? "")
        case .binaryEqualTo(let data): return "binaryEqualTo \(data.count) bytes (\(data.base64EncodedString().prefix(40)))"
        case .not(let inner): return "not (\(inner))"
        case .and(let all): return "and (" + all.map(\.description).joined(separator: "; ") + ")"
        case .or(let any): return "or (" + any.map(\.description).joined(separator: "; ") + ")"
        case .equalToXML(let matcher): return matcher.description
        case .matchesXPath(let matcher): return matcher.description
        }
    }

    /// Whether evaluating it may read the whole value as JSON, XML or bytes, or backtrack:
    /// such matching runs off the event loop and outside the registry's lock.
    var isExpensive: Bool {
        switch self {
        case .equalTo, .contains, .doesNotContain, .absent, .anything, .number, .dateTime, .binaryEqualTo: return false
        case .matches(let regex), .doesNotMatch(let regex): return !regex.isLinear
        case .equalToJSON, .jsonPath, .equalToXML, .matchesXPath: return true
        case .not(let inner): return inner.isExpensive
        case .and(let all), .or(let all): return all.contains(where: \.isExpensive)
        }
    }

    /// The most steps a regular expression in it takes on a value of `length` characters.
    func regexCost(forLength length: Int) -> Int {
        switch self {
        case .matches(let regex), .doesNotMatch(let regex): return regex.cost(forLength: length)
        case .not(let inner): return inner.regexCost(forLength: length)
        case .and(let all), .or(let all): return all.reduce(0) { $0 + $1.regexCost(forLength: length) }
        default: return 0
        }
    }
}

/// What a ``ValueMatcher`` reads: a text value (a header, a parameter) or a body, whose text,
/// JSON and bytes are decoded at most once per request however many matchers ask.
package enum MatchInput: Sendable {
    case text(String?)
    case body(RequestBody)

    package var text: String? {
        switch self {
        case .text(let text): return text
        case .body(let body): return body.text
        }
    }

    var bytes: Data? {
        switch self {
        case .text(let text): return text.map { Data($0.utf8) }
        case .body(let body): return body.bytes
        }
    }

    var json: JSONValue? {
        switch self {
        case .text(let text): return text.flatMap { try? JSONReader.parse($0, lenient: true) }
        case .body(let body): return body.json
        }
    }

    /// The value as JSON with members in document order (JSONPath's reading).
    var orderedJSON: OrderedJSON? {
        switch self {
        case .text(let text): return text.flatMap { try? JSONReader.parseOrdered($0, lenient: true) }
        case .body(let body): return body.orderedJSON
        }
    }

    /// No value: a missing header, or a body that is empty.
    var isAbsent: Bool {
        switch self {
        case .text(let text): return text == nil
        case .body(let body): return body.bytes?.isEmpty ?? true
        }
    }
}

/// A request body as matchers read it: text, JSON and form fields decoded once, on first use.
package final class RequestBody: @unchecked Sendable {
    // @unchecked: the lazily filled caches are written only by the one thread that matches a
    // request (a RequestBody is made per request evaluation and never shared).
    let bytes: Data?
    private var cachedXML: Result<XMLTree, XMLTree.ParseError>?
    private var cachedText: String??
    private var cachedOrdered: OrderedJSON??
    private var cachedJSON: JSONValue??

    package init(_ bytes: Data?) { self.bytes = bytes }

    /// The body as an XML tree (its text as UTF-8), or why it is not XML: parsed once however
    /// many XML matchers ask.
    var xml: Result<XMLTree, XMLTree.ParseError> {
        if let cachedXML { return cachedXML }
        let tree = XMLTree.parse(text ?? "")
        cachedXML = tree
        return tree
    }

    /// The body as UTF-8 text; `nil` when there is none or it is empty (WireMock's absent body).
    package var text: String? {
        if let cachedText { return cachedText }
        let text = bytes.flatMap { $0.isEmpty ? nil : String(decoding: $0, as: UTF8.self) }
        cachedText = .some(text)
        return text
    }

    /// The body as JSON, members in document order; read leniently, as WireMock reads bodies
    /// (single quotes, comments).
    var orderedJSON: OrderedJSON? {
        if let cachedOrdered { return cachedOrdered }
        let json = bytes.flatMap { try? JSONReader.parseOrdered($0, lenient: true) }
        cachedOrdered = .some(json)
        return json
    }

    var json: JSONValue? {
        if let cachedJSON { return cachedJSON }
        let json = orderedJSON?.value
        cachedJSON = .some(json)
        return json
    }
}

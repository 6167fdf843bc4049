#if Server
import Foundation
import HTTPMock

// WireMock's matcher JSON (`{"equalTo": "x", "caseInsensitive": true}`, body patterns,
// `matchesJsonPath` with a sub-matcher, …) read into the core's ``ValueMatcher``s, compiled
// once: regular expressions, JSONPaths, XPaths and expected documents are parsed here, and a
// mistake is a 422 naming the field.

/// A mistake in a mapping: where (a JSON pointer such as `/request/headers/Accept`) and what.
struct WireMockMappingError: Error, Sendable {
    let pointer: String
    let message: String
}

enum WireMockMatchers {
    /// The operator of a matcher object, and the modifiers each may carry.
    static let operators: [String: Set<String>] = [
        "equalTo": ["caseInsensitive"], "contains": [], "doesNotContain": [], "matches": [], "doesNotMatch": [],
        "absent": [], "anything": [], "equalToNumber": [], "greaterThanNumber": [], "greaterThanEqualNumber": [],
        "lessThanNumber": [], "lessThanEqualNumber": [],
        "before": dateModifiers, "after": dateModifiers, "equalToDateTime": dateModifiers,
        "equalToJson": [
            "ignoreArrayOrder", "ignoreExtraElements", "enablePlaceholders", "placeholderOpeningDelimiterRegex",
            "placeholderClosingDelimiterRegex", "serializeAsString",
        ],
        "matchesJsonPath": [],
        "equalToXml": [
            "enablePlaceholders", "placeholderOpeningDelimiterRegex", "placeholderClosingDelimiterRegex",
            "exemptedComparisons", "namespaceAwareness",
        ],
        "matchesXPath": ["xPathNamespaces"],
        "binaryEqualTo": [], "not": [], "and": [], "or": [],
    ]

    static let dateModifiers: Set<String> = ["actualFormat", "expectedOffset", "expectedOffsetUnit", "truncateExpected", "truncateActual"]

    /// Operators WireMock has that HTTPMock refuses by name.
    static let refused: [String: String] = [
        "matchesJsonSchema": "matchesJsonSchema is not supported (no JSON Schema validator)",
        "customMatcher": "customMatcher needs a WireMock extension (Java code), which HTTPMock cannot run",
    ]

    /// An integer as Jackson reads one into a Java `int` field: a JSON integer, or a string
    /// holding one (`"400"`); `nil` for anything else.
    static func javaInteger(_ value: JSONValue) -> Int? {
        switch value {
        case .integer(let number): return number
        case .string(let text): return Int(text.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    /// A matcher object: one operator and its modifiers.
    static func matcher(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> ValueMatcher {
        guard case .object(let raw) = value else {
            throw WireMockMappingError(pointer: pointer, message: "a matcher must be an object like {\"equalTo\": \"value\"}, got \(value)")
        }
        let object = raw.filter { $0.value != .null }
        let present = object.keys.filter { operators[$0] != nil }.sorted()
        for key in object.keys.sorted() {
            if let reason = refused[key] { throw WireMockMappingError(pointer: pointer + "/" + key, message: reason) }
        }
        guard present.count == 1, let name = present.first else {
            throw WireMockMappingError(
                pointer: pointer,
                message: present.isEmpty
                    ? "a matcher needs one of \(operators.keys.sorted().joined(separator: ", ")); got \(value)"
                    : "a matcher has one operator; got \(present.joined(separator: ", "))")
        }
        let allowed = operators[name] ?? []
        // WireMock reads `caseInsensitive` beside any operator and uses it for equalTo only
        // (real files carry it beside `matches`): taken, and ignored elsewhere, as there.
        for key in object.keys.sorted() where key != name && !allowed.contains(key) && key != "caseInsensitive" {
            throw WireMockMappingError(pointer: pointer + "/" + key, message: "unsupported field \(key) for \(name)")
        }
        let operand = object[name] ?? .null
        let at = pointer + "/" + name
        switch name {
        case "equalTo":
            return .equalTo(
                try string(operand, at: at), caseInsensitive: try flag(object["caseInsensitive"], at: pointer + "/caseInsensitive"))
        case "contains": return .contains(try string(operand, at: at))
        case "doesNotContain": return .doesNotContain(try string(operand, at: at))
        case "matches": return .matches(try regex(operand, at: at))
        case "doesNotMatch": return .doesNotMatch(try regex(operand, at: at))
        case "absent":
            guard operand == .bool(true) else { throw WireMockMappingError(pointer: at, message: "absent must be true, got \(operand)") }
            return .absent
        case "anything": return .anything
        case "equalToNumber", "greaterThanNumber", "greaterThanEqualNumber", "lessThanNumber", "lessThanEqualNumber":
            guard let comparison = ValueMatcher.NumberComparison(rawValue: name), let number = numberValue(operand) else {
                throw WireMockMappingError(pointer: at, message: "\(name) needs a number, got \(operand)")
            }
            return .number(comparison, number)
        case "before", "after", "equalToDateTime":
            return .dateTime(try dateTime(name, object, at: pointer))
        case "equalToJson":
            return .equalToJSON(try json(operand, object, at: pointer))
        case "matchesJsonPath":
            return try jsonPath(operand, at: at)
        case "equalToXml":
            return .equalToXML(try WireMockXML.equality(operand, object, at: pointer))
        case "matchesXPath":
            return .matchesXPath(try WireMockXML.xpath(operand, object, at: pointer))
        case "binaryEqualTo":
            guard case .string(let text) = operand, let data = Data(base64Encoded: text) else {
                throw WireMockMappingError(pointer: at, message: "binaryEqualTo needs base64 text, got \(operand)")
            }
            return .binaryEqualTo(data)
        case "not":
            return .not(try matcher(operand, at: at))
        default:  // and, or
            guard case .array(let items) = operand, !items.isEmpty else {
                throw WireMockMappingError(pointer: at, message: "\(name) needs a list of matchers, got \(operand)")
            }
            var matchers: [ValueMatcher] = []
            for (index, item) in items.enumerated() { matchers.append(try matcher(item, at: at + "/\(index)")) }
            return name == "and" ? .and(matchers) : .or(matchers)
        }
    }

    /// A matcher for a field that may repeat: `hasExactly`, `includes`, or one matcher.
    static func multiValue(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> MultiValueMatcher {
        if case .object(let object) = value, object.count == 1, let (key, list) = object.first, key == "hasExactly" || key == "includes" {
            guard case .array(let items) = list, !items.isEmpty else {
                throw WireMockMappingError(pointer: pointer + "/" + key, message: "\(key) needs a list of matchers, got \(list)")
            }
            var matchers: [ValueMatcher] = []
            for (index, item) in items.enumerated() { matchers.append(try matcher(item, at: pointer + "/\(key)/\(index)")) }
            return key == "hasExactly" ? .hasExactly(matchers) : .includes(matchers)
        }
        return .single(try matcher(value, at: pointer))
    }

    static func string(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> String {
        switch value {
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .double(let number): return JSONValue.double(number).javaText ?? String(number)
        case .bool(let flag): return String(flag)
        default: throw WireMockMappingError(pointer: pointer, message: "expected a string, got \(value)")
        }
    }

    static func flag(_ value: JSONValue?, at pointer: String) throws(WireMockMappingError) -> Bool {
        switch value {
        case nil, .null?: return false
        case .bool(let flag)?: return flag
        case let other?: throw WireMockMappingError(pointer: pointer, message: "expected true or false, got \(other)")
        }
    }

    static func regex(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> TextRegex {
        let pattern = try string(value, at: pointer)
        do throws(TextRegex.SyntaxError) {
            return try TextRegex(pattern)
        } catch {
            throw WireMockMappingError(pointer: pointer, message: "\"\(pattern)\" is not a regular expression: \(error.message)")
        }
    }

    private static func numberValue(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let number): return Double(number)
        case .double(let number): return number
        case .string(let text): return Double(text.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    private static func dateTime(
        _ name: String, _ object: [String: JSONValue], at pointer: String
    ) throws(WireMockMappingError) -> DateTimeCondition {
        guard let relation = DateTimeCondition.Relation(rawValue: name) else { throw WireMockMappingError(pointer: pointer, message: name) }
        let expected = try string(object[name] ?? .null, at: pointer + "/" + name)
        var offset: (amount: Int, unit: DateTimeCondition.Unit)?
        if let amount = object["expectedOffset"] {
            guard case .integer(let count) = amount else {
                throw WireMockMappingError(
                    pointer: pointer + "/expectedOffset", message: "expectedOffset must be an integer, got \(amount)")
            }
            let unitName =
                try object["expectedOffsetUnit"].map { value throws(WireMockMappingError) in
                    try string(value, at: pointer + "/expectedOffsetUnit")
                } ?? "days"
            guard let unit = DateTimeCondition.unit(unitName) else {
                throw WireMockMappingError(
                    pointer: pointer + "/expectedOffsetUnit",
                    message:
                        "expectedOffsetUnit must be one of \(DateTimeCondition.Unit.allCases.map(\.rawValue).joined(separator: ", ")), got \(unitName)"
                )
            }
            offset = (count, unit)
        }
        func truncation(_ key: String) throws(WireMockMappingError) -> DateTimeCondition.Truncation? {
            guard let value = object[key] else { return nil }
            let text = try string(value, at: pointer + "/" + key)
            guard let truncation = DateTimeCondition.Truncation(rawValue: text.lowercased().replacingOccurrences(of: "_", with: " ")) else {
                throw WireMockMappingError(
                    pointer: pointer + "/" + key,
                    message:
                        "\(key) must be one of \(DateTimeCondition.Truncation.allCases.map(\.rawValue).joined(separator: ", ")), got \(text)"
                )
            }
            return truncation
        }
        let format = try object["actualFormat"].map { value throws(WireMockMappingError) in try string(value, at: pointer + "/actualFormat")
        }
        let truncateExpected = try truncation("truncateExpected")
        let truncateActual = try truncation("truncateActual")
        do throws(PatternError) {
            return try DateTimeCondition(
                relation: relation, expected: expected, actualFormat: format, offset: offset, truncateExpected: truncateExpected,
                truncateActual: truncateActual)
        } catch {
            throw WireMockMappingError(pointer: pointer + "/" + name, message: error.message)
        }
    }

    /// `equalToJson`: the document as JSON or as a string holding it; json-unit placeholders
    /// are always on (WireMock 2.35 reads them whatever `enablePlaceholders` says).
    private static func json(
        _ operand: JSONValue, _ object: [String: JSONValue], at pointer: String
    ) throws(WireMockMappingError) -> JSONEquality {
        var expected = operand
        if case .string(let text) = operand {
            do throws(JSONReader.Failure) {
                expected = try JSONReader.parse(text, lenient: true)
            } catch {
                throw WireMockMappingError(pointer: pointer + "/equalToJson", message: "\"\(text.prefix(80))\" is not JSON: \(error)")
            }
        }
        if object["placeholderOpeningDelimiterRegex"] != nil || object["placeholderClosingDelimiterRegex"] != nil {
            throw WireMockMappingError(
                pointer: pointer + "/placeholderOpeningDelimiterRegex", message: "custom json-unit placeholder delimiters are not supported"
            )
        }
        let ignoreArrayOrder = try flag(object["ignoreArrayOrder"], at: pointer + "/ignoreArrayOrder")
        let ignoreExtraElements = try flag(object["ignoreExtraElements"], at: pointer + "/ignoreExtraElements")
        do throws(TextRegex.SyntaxError) {
            return try JSONEquality(expected: expected, ignoreArrayOrder: ignoreArrayOrder, ignoreExtraElements: ignoreExtraElements)
        } catch {
            throw WireMockMappingError(pointer: pointer + "/equalToJson", message: "a ${json-unit.regex} placeholder: \(error.message)")
        }
    }

    /// `matchesJsonPath`: `"$.path"`, or `{"expression": "$.path", <matcher>}`.
    private static func jsonPath(_ operand: JSONValue, at pointer: String) throws(WireMockMappingError) -> ValueMatcher {
        func compile(_ text: String, at pointer: String) throws(WireMockMappingError) -> JSONPath {
            do throws(JSONPath.ParseError) {
                return try JSONPath(text)
            } catch {
                throw WireMockMappingError(pointer: pointer, message: error.description)
            }
        }
        switch operand {
        case .string(let expression):
            return .jsonPath(try compile(expression, at: pointer), nil)
        case .object(var form):
            guard case .string(let expression)? = form.removeValue(forKey: "expression") else {
                throw WireMockMappingError(pointer: pointer, message: "needs \"expression\": \"$.path\" beside its matcher")
            }
            let path = try compile(expression, at: pointer + "/expression")
            guard !form.isEmpty else { return .jsonPath(path, nil) }
            return .jsonPath(path, try matcher(.object(form), at: pointer))
        default:
            throw WireMockMappingError(pointer: pointer, message: "expected \"$.path\" or {\"expression\": …}, got \(operand)")
        }
    }
}
#endif

#if Server
import Foundation
import HTTPMock

// WireMock's request matchers (SPEC §19, the common part), checked against a `MockRequest`:
// string matchers for query parameters, headers and bodies, the URL rules, JSON bodies.

/// A mistake in a mapping: where (a JSON pointer such as `/request/headers/Accept`) and what.
struct WireMockMappingError: Error, Sendable {
    let pointer: String
    let message: String
}

/// `equalTo`, `contains`, `matches`, `doesNotMatch`, `absent` (with `caseInsensitive`).
enum WireMockStringMatcher: Sendable, CustomStringConvertible {
    case equalTo(String, caseInsensitive: Bool)
    case contains(String)
    case matches(String)
    case doesNotMatch(String)
    case absent

    static let keys: Set<String> = ["equalTo", "contains", "matches", "doesNotMatch", "absent", "caseInsensitive"]

    static func parse(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> WireMockStringMatcher {
        guard case .object(let object) = value else {
            throw WireMockMappingError(pointer: pointer, message: "a matcher must be an object like {\"equalTo\": \"value\"}, got \(value)")
        }
        for key in object.keys.sorted() where !keys.contains(key) {
            throw WireMockMappingError(pointer: pointer + "/" + key, message: "unsupported matcher \(key)")
        }
        let caseInsensitive = object["caseInsensitive"] == .bool(true)
        if let text = object["equalTo"] { return .equalTo(try string(text, at: pointer + "/equalTo"), caseInsensitive: caseInsensitive) }
        if let text = object["contains"] { return .contains(try string(text, at: pointer + "/contains")) }
        if let text = object["matches"] { return .matches(try regex(text, at: pointer + "/matches")) }
        if let text = object["doesNotMatch"] { return .doesNotMatch(try regex(text, at: pointer + "/doesNotMatch")) }
        if object["absent"] == .bool(true) { return .absent }
        throw WireMockMappingError(
            pointer: pointer, message: "a matcher needs one of equalTo, contains, matches, doesNotMatch, absent; got \(value)")
    }

    static func string(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> String {
        switch value {
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return String(flag)
        default: throw WireMockMappingError(pointer: pointer, message: "expected a string, got \(value)")
        }
    }

    /// Checks that `value` is a regular expression; returns it.
    static func regex(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> String {
        let pattern = try string(value, at: pointer)
        do {
            _ = try NSRegularExpression(pattern: pattern)
        } catch {
            throw WireMockMappingError(pointer: pointer, message: "\"\(pattern)\" is not a regular expression")
        }
        return pattern
    }

    /// Whether all of `text` matches `pattern` (WireMock's regular expressions are anchored).
    static func wholeMatch(_ pattern: String, _ text: String) -> Bool {
        guard let regex = try? NSRegularExpression(pattern: "^(?:" + pattern + ")$", options: [.dotMatchesLineSeparators]) else {
            return false
        }
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    var description: String {
        switch self {
        case .equalTo(let text, let caseInsensitive): "equalTo \"\(text)\"\(caseInsensitive ? " (case-insensitive)" : "")"
        case .contains(let text): "contains \"\(text)\""
        case .matches(let pattern): "matches \(pattern)"
        case .doesNotMatch(let pattern): "doesNotMatch \(pattern)"
        case .absent: "absent"
        }
    }

    /// Whether `value` (`nil`: not present) satisfies the matcher.
    func matches(_ value: String?) -> Bool {
        switch self {
        case .absent: return value == nil
        case .equalTo(let expected, let caseInsensitive):
            guard let value else { return false }
            return caseInsensitive ? value.lowercased() == expected.lowercased() : value == expected
        case .contains(let part):
            guard let value else { return false }
            return value.contains(part)
        case .matches(let pattern):
            guard let value else { return false }
            return Self.wholeMatch(pattern, value)
        case .doesNotMatch(let pattern):
            guard let value else { return true }
            return !Self.wholeMatch(pattern, value)
        }
    }
}

/// One of `bodyPatterns`.
enum WireMockBodyPattern: Sendable {
    case string(WireMockStringMatcher)
    case equalToJson(JSONValue, ignoreArrayOrder: Bool, ignoreExtraElements: Bool)
    case jsonPath(path: [JSONPathStep], expected: String?)

    enum JSONPathStep: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    static let keys: Set<String> = [
        "equalTo", "contains", "matches", "doesNotMatch", "caseInsensitive", "equalToJson", "ignoreArrayOrder",
        "ignoreExtraElements", "matchesJsonPath",
    ]

    static func parse(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> WireMockBodyPattern {
        guard case .object(let object) = value else {
            throw WireMockMappingError(pointer: pointer, message: "a body pattern must be an object, got \(value)")
        }
        for key in object.keys.sorted() where !keys.contains(key) {
            throw WireMockMappingError(pointer: pointer + "/" + key, message: "unsupported body pattern \(key)")
        }
        if let json = object["equalToJson"] {
            var expected = json
            // WireMock accepts the JSON as a value or as a string holding it.
            if case .string(let text) = json {
                guard let parsed = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
                    throw WireMockMappingError(pointer: pointer + "/equalToJson", message: "\"\(text)\" is not JSON")
                }
                expected = parsed
            }
            return .equalToJson(
                expected, ignoreArrayOrder: object["ignoreArrayOrder"] == .bool(true),
                ignoreExtraElements: object["ignoreExtraElements"] == .bool(true))
        }
        if let path = object["matchesJsonPath"] {
            switch path {
            case .string(let expression):
                return .jsonPath(path: try steps(expression, at: pointer + "/matchesJsonPath"), expected: nil)
            case .object(let form):
                for key in form.keys.sorted() where key != "expression" && key != "equalTo" {
                    throw WireMockMappingError(
                        pointer: pointer + "/matchesJsonPath/" + key, message: "unsupported JSON path matcher \(key)")
                }
                guard case .string(let expression)? = form["expression"] else {
                    throw WireMockMappingError(pointer: pointer + "/matchesJsonPath", message: "needs \"expression\": \"$.path\"")
                }
                let expected = try form["equalTo"].map { value throws(WireMockMappingError) in
                    try WireMockStringMatcher.string(value, at: pointer + "/matchesJsonPath/equalTo")
                }
                return .jsonPath(path: try steps(expression, at: pointer + "/matchesJsonPath/expression"), expected: expected)
            default:
                throw WireMockMappingError(pointer: pointer + "/matchesJsonPath", message: "expected \"$.path\", got \(path)")
            }
        }
        return .string(try WireMockStringMatcher.parse(value, at: pointer))
    }

    /// `$.items[0].id` → key items, index 0, key id. Filters and wildcards are not supported.
    static func steps(_ expression: String, at pointer: String) throws(WireMockMappingError) -> [JSONPathStep] {
        guard expression.hasPrefix("$") else {
            throw WireMockMappingError(pointer: pointer, message: "a JSON path starts with $, got \"\(expression)\"")
        }
        var steps: [JSONPathStep] = []
        var rest = Substring(expression.dropFirst())
        while !rest.isEmpty {
            if rest.hasPrefix(".") {
                rest = rest.dropFirst()
                let name = rest.prefix { $0 != "." && $0 != "[" }
                guard !name.isEmpty, !name.contains("*") else { break }
                steps.append(.key(String(name)))
                rest = rest.dropFirst(name.count)
            } else if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
                let inside = rest[rest.index(after: rest.startIndex)..<close]
                if let index = Int(inside) {
                    steps.append(.index(index))
                } else if inside.count >= 2, inside.first == "'", inside.last == "'" {
                    steps.append(.key(String(inside.dropFirst().dropLast())))
                } else {
                    break
                }
                rest = rest[rest.index(after: close)...]
            } else {
                break
            }
        }
        guard rest.isEmpty else {
            throw WireMockMappingError(
                pointer: pointer, message: "only plain JSON paths like $.items[0].id are supported, got \"\(expression)\"")
        }
        return steps
    }

    func matches(_ body: Data?) -> Bool {
        switch self {
        case .string(let matcher):
            return matcher.matches(body.map { String(decoding: $0, as: UTF8.self) } ?? (matcherWantsAbsent(matcher) ? nil : ""))
        case .equalToJson(let expected, let ignoreArrayOrder, let ignoreExtraElements):
            guard let body, let actual = try? JSONDecoder().decode(JSONValue.self, from: body) else { return false }
            return Self.jsonEqual(expected, actual, ignoreArrayOrder: ignoreArrayOrder, ignoreExtra: ignoreExtraElements)
        case .jsonPath(let path, let expected):
            guard let body, var value = try? JSONDecoder().decode(JSONValue.self, from: body) else { return false }
            for step in path {
                let next: JSONValue? =
                    switch step {
                    case .key(let key): value[key]
                    case .index(let index): value[index]
                    }
                guard let next else { return false }
                value = next
            }
            guard let expected else { return value != .null }
            switch value {
            case .string(let text): return text == expected
            case .integer(let number): return String(number) == expected
            case .double(let number): return Double(expected) == number
            case .bool(let flag): return String(flag) == expected
            default: return false
            }
        }
    }

    private func matcherWantsAbsent(_ matcher: WireMockStringMatcher) -> Bool {
        if case .absent = matcher { return true }
        return false
    }

    static func jsonEqual(_ expected: JSONValue, _ actual: JSONValue, ignoreArrayOrder: Bool, ignoreExtra: Bool) -> Bool {
        switch (expected, actual) {
        case (.object(let wanted), .object(let got)):
            if !ignoreExtra, Set(wanted.keys) != Set(got.keys) { return false }
            return wanted.allSatisfy { key, value in
                got[key].map { jsonEqual(value, $0, ignoreArrayOrder: ignoreArrayOrder, ignoreExtra: ignoreExtra) } ?? false
            }
        case (.array(let wanted), .array(let got)):
            if !ignoreExtra, wanted.count != got.count { return false }
            if !ignoreArrayOrder {
                guard wanted.count <= got.count else { return false }
                if ignoreExtra {
                    // Extra elements may follow: the expected ones come first, in order.
                    return zip(wanted, got).allSatisfy { jsonEqual($0, $1, ignoreArrayOrder: false, ignoreExtra: true) }
                }
                return zip(wanted, got).allSatisfy { jsonEqual($0, $1, ignoreArrayOrder: false, ignoreExtra: false) }
            }
            var remaining = got
            for element in wanted {
                guard
                    let index = remaining.firstIndex(where: {
                        jsonEqual(element, $0, ignoreArrayOrder: true, ignoreExtra: ignoreExtra)
                    })
                else { return false }
                remaining.remove(at: index)
            }
            return true
        default:
            return expected == actual
        }
    }
}
#endif

import Foundation

/// WireMock's `equalToJson`: the value is JSON equal to an expected document, with JsonUnit's
/// placeholders and WireMock's options, as WireMock 2.35 compares (checked against its jar):
///
/// - Numbers compare by value (`1` equals `1.0`); object member order never matters.
/// - `ignoreArrayOrder`: arrays compare as multisets, at every depth.
/// - `ignoreExtraElements`: extra object members are ignored, and extra array elements after
///   the expected ones (or anywhere, with `ignoreArrayOrder`), at every depth.
/// - Placeholders in expected strings: `${json-unit.any-string}`, `${json-unit.any-number}`,
///   `${json-unit.any-boolean}` (a value of that type, not `null`), `${json-unit.ignore}` (any
///   value, but the member must be present), `${json-unit.regex}PATTERN` (a string matching
///   PATTERN wholly).
package struct JSONEquality: Sendable, CustomStringConvertible {
    let expected: JSONValue
    let ignoreArrayOrder: Bool
    let ignoreExtraElements: Bool
    /// Regular expressions of `${json-unit.regex}` placeholders, compiled once, by pattern.
    private let regexes: [String: TextRegex]

    /// - Throws: ``TextRegex/SyntaxError`` for a `${json-unit.regex}` pattern that is not one.
    package init(expected: JSONValue, ignoreArrayOrder: Bool = false, ignoreExtraElements: Bool = false) throws(TextRegex.SyntaxError) {
        self.expected = expected
        self.ignoreArrayOrder = ignoreArrayOrder
        self.ignoreExtraElements = ignoreExtraElements
        var regexes: [String: TextRegex] = [:]
        try Self.collectRegexes(in: expected, into: &regexes)
        self.regexes = regexes
    }

    static let regexPrefix = "${json-unit.regex}"

    private static func collectRegexes(in value: JSONValue, into regexes: inout [String: TextRegex]) throws(TextRegex.SyntaxError) {
        switch value {
        case .string(let text) where text.hasPrefix(regexPrefix):
            let pattern = String(text.dropFirst(regexPrefix.count))
            if regexes[pattern] == nil { regexes[pattern] = try TextRegex(pattern) }
        case .array(let items):
            for item in items { try collectRegexes(in: item, into: &regexes) }
        case .object(let members):
            for key in members.keys.sorted() { try collectRegexes(in: members[key] ?? .null, into: &regexes) }
        default:
            break
        }
    }

    package var description: String {
        var options: [String] = []
        if ignoreArrayOrder { options.append("ignoreArrayOrder") }
        if ignoreExtraElements { options.append("ignoreExtraElements") }
        return "equalToJson \(expected.compactJSON)" + (options.isEmpty ? "" : " (\(options.joined(separator: ", ")))")
    }

    package func matches(_ actual: JSONValue) -> Bool {
        var budget = JSONPath.maximumSteps
        return equal(expected, actual, budget: &budget)
    }

    /// The first difference, as a JSON pointer and what differs there (`/items/0/id: expected
    /// 1, got 2`); `nil` when equal.
    func firstDifference(_ actual: JSONValue) -> String? {
        var budget = JSONPath.maximumSteps
        return difference(expected, actual, at: "", budget: &budget)
    }

    private func equal(_ expected: JSONValue, _ actual: JSONValue, budget: inout Int) -> Bool {
        budget -= 1
        guard budget >= 0 else { return false }
        if case .string(let text) = expected, text.hasPrefix("${json-unit.") { return placeholder(text, actual) }
        switch (expected, actual) {
        case (.object(let wanted), .object(let got)):
            if !ignoreExtraElements, wanted.count != got.count { return false }
            for (key, value) in wanted {
                guard let member = got[key], equal(value, member, budget: &budget) else { return false }
            }
            return true
        case (.array(let wanted), .array(let got)):
            if ignoreExtraElements ? got.count < wanted.count : got.count != wanted.count { return false }
            if !ignoreArrayOrder {
                for (position, element) in wanted.enumerated() where !equal(element, got[position], budget: &budget) { return false }
                return true
            }
            return multisetMatch(wanted, got, budget: &budget)
        default:
            return expected == actual
        }
    }

    /// Whether each expected element pairs with a distinct actual one (augmenting paths, so an
    /// earlier greedy choice never blocks a later element): wanted.count × got.count comparisons.
    private func multisetMatch(_ wanted: [JSONValue], _ got: [JSONValue], budget: inout Int) -> Bool {
        var fits = [[Int]](repeating: [], count: wanted.count)
        for (i, element) in wanted.enumerated() {
            for (j, candidate) in got.enumerated() where equal(element, candidate, budget: &budget) { fits[i].append(j) }
            if fits[i].isEmpty || budget < 0 { return false }
        }
        var owner = [Int](repeating: -1, count: got.count)
        for i in wanted.indices {
            var seen = [Bool](repeating: false, count: got.count)
            guard assign(i, fits, &owner, &seen, budget: &budget) else { return false }
        }
        return true
    }

    private func assign(_ i: Int, _ fits: [[Int]], _ owner: inout [Int], _ seen: inout [Bool], budget: inout Int) -> Bool {
        for j in fits[i] where !seen[j] {
            budget -= 1
            if budget < 0 { return false }
            seen[j] = true
            if owner[j] == -1 || assign(owner[j], fits, &owner, &seen, budget: &budget) {
                owner[j] = i
                return true
            }
        }
        return false
    }

    private func placeholder(_ text: String, _ actual: JSONValue) -> Bool {
        switch text {
        case "${json-unit.any-string}":
            if case .string = actual { return true }
            return false
        case "${json-unit.any-number}":
            return actual.number != nil
        case "${json-unit.any-boolean}":
            if case .bool = actual { return true }
            return false
        case "${json-unit.ignore}", "${json-unit.ignore-element}":
            return true
        default:
            if text.hasPrefix(Self.regexPrefix), case .string(let value) = actual,
                let regex = regexes[String(text.dropFirst(Self.regexPrefix.count))]
            {
                return regex.matchesWhole(value)
            }
            // Not a placeholder JsonUnit knows: compared as a plain string.
            return actual == .string(text)
        }
    }

    private func difference(_ expected: JSONValue, _ actual: JSONValue, at pointer: String, budget: inout Int) -> String? {
        var scratch = budget
        if equal(expected, actual, budget: &scratch) { return nil }
        let place = pointer.isEmpty ? "" : pointer + ": "
        switch (expected, actual) {
        case (.object(let wanted), .object(let got)):
            for key in wanted.keys.sorted() {
                guard let member = got[key] else {
                    return "\(pointer)/\(key): expected \(wanted[key]?.compactJSON ?? "null"), got no member"
                }
                if let found = difference(wanted[key] ?? .null, member, at: pointer + "/" + key, budget: &budget) { return found }
            }
            if !ignoreExtraElements, let extra = got.keys.sorted().first(where: { wanted[$0] == nil }) {
                return "\(pointer)/\(extra): unexpected member \(got[extra]?.compactJSON ?? "null")"
            }
        case (.array(let wanted), .array(let got)) where !ignoreArrayOrder:
            if !ignoreExtraElements, wanted.count != got.count || got.count < wanted.count {
                return "\(place)expected \(wanted.count) elements, got \(got.count)"
            }
            for (position, element) in wanted.enumerated() where position < got.count {
                if let found = difference(element, got[position], at: pointer + "/\(position)", budget: &budget) { return found }
            }
            if got.count < wanted.count { return "\(place)expected \(wanted.count) elements, got \(got.count)" }
        default:
            break
        }
        return "\(place)expected \(expected.compactJSON), got \(actual.compactJSON)"
    }
}

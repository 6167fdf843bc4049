import Foundation

/// What a field holds in one request.
enum FieldValues {
    case values([String])
    case missingCookie
    case body(RequestBody)
}

/// WireMock's matcher for a field that may repeat (a query parameter, a header): one matcher
/// that any value may satisfy (none: the matcher sees a missing value), or 3.x's `hasExactly`
/// (as many values as matchers, each matcher satisfied by one) and `includes` (each matcher
/// satisfied by some value).
package enum MultiValueMatcher: Sendable, CustomStringConvertible {
    case single(ValueMatcher)
    case hasExactly([ValueMatcher])
    case includes([ValueMatcher])
    /// The DSL's value for a query parameter or a header: exactly these values in order, or
    /// (`.any`) at least one; with `needsPresence`, an absent field never matches.
    case declared(MatchValue, needsPresence: Bool)
    /// Every value is one of these (the DSL's `.exact` query: no other parameter names).
    case oneOf(Set<String>)
    /// The DSL's `body:`, which reads the request itself (``RequestConditions/holds(_:_:_:_:)``).
    case body(BodyMatcher)

    func matches(_ field: FieldValues) -> Bool {
        switch field {
        case .body(let body):
            if case .single(let matcher) = self { return matcher.matches(.body(body)) }
            return false
        case .missingCookie:
            if case .single(.absent) = self { return true }
            return false
        case .values(let values):
            switch self {
            case .single(let matcher):
                if values.isEmpty { return matcher.matches(.text(nil)) }
                return values.contains { matcher.matches(.text($0)) }
            case .hasExactly(let matchers):
                return matchers.count == values.count && matchers.allSatisfy { matcher in values.contains { matcher.matches(.text($0)) } }
            case .includes(let matchers):
                return matchers.allSatisfy { matcher in values.contains { matcher.matches(.text($0)) } }
            case .declared(let value, let needsPresence):
                return !(needsPresence && values.isEmpty) && value.matches(values)
            case .oneOf(let names):
                return values.allSatisfy(names.contains)
            case .body:
                return false
            }
        }
    }

    var isExpensive: Bool {
        if case .body = self { return true }
        return all.contains(where: \.isExpensive)
    }
    var hasRegex: Bool { all.contains { $0.regexCost(forLength: 1) > 0 } }
    func regexCost(forLength length: Int) -> Int { all.reduce(0) { $0 + $1.regexCost(forLength: length) } }

    private var all: [ValueMatcher] {
        switch self {
        case .single(let matcher): return [matcher]
        case .hasExactly(let matchers), .includes(let matchers): return matchers
        case .declared, .oneOf, .body: return []
        }
    }

    package var description: String {
        switch self {
        case .single(let matcher): return matcher.description
        case .hasExactly(let matchers): return "hasExactly [" + matchers.map(\.description).joined(separator: "; ") + "]"
        case .includes(let matchers): return "includes [" + matchers.map(\.description).joined(separator: "; ") + "]"
        case .declared(let value, _): return value.description
        case .oneOf(let names): return "one of " + names.sorted().joined(separator: ", ")
        case .body(let body): return body.description
        }
    }
}

import Foundation

/// What a query parameter or a request header must hold for a route to match.
///
/// ```swift
/// query: ["q": "swift"]                    // exactly this value
/// query: ["tag": ["a", "b"]]               // repeated key: ?tag=a&tag=b, in this order
/// query: ["token": .any]                   // present, any value
/// headers: ["Authorization": "Bearer t0k", "X-Trace": .any]
/// ```
///
/// `query:` and `headers:` also accept a `[String: String]` value (a variable, not only a
/// literal): each value must match exactly.
public struct MatchValue: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case values([String])
        case any
    }

    let kind: Kind

    /// Exactly this value.
    public init(_ value: String) { kind = .values([value]) }

    /// Exactly these values, in this order, for a repeated key.
    public init(_ values: [String]) { kind = .values(values) }

    public init(stringLiteral value: String) { self.init(value) }

    public init(arrayLiteral elements: String...) { self.init(elements) }

    /// The key is present, with any value (or none: `?flag`).
    public static let any = MatchValue(kind: .any)

    private init(kind: Kind) { self.kind = kind }

    /// Whether it expects more than one value (a header's are then compared one by one, split at
    /// commas).
    var isList: Bool {
        if case .values(let values) = kind { return values.count > 1 }
        return false
    }

    /// Whether the values a request carries for one key satisfy this requirement.
    func matches(_ actual: [String]) -> Bool {
        switch kind {
        case .any: return !actual.isEmpty
        case .values(let expected): return expected == actual
        }
    }

    public var description: String {
        switch kind {
        case .any: return "<any>"
        case .values(let values) where values.count == 1: return values[0]
        case .values(let values): return "[" + values.joined(separator: ", ") + "]"
        }
    }
}

/// The name ``MatchValue`` had before it also described header requirements.
public typealias QueryValue = MatchValue

/// How a route's `query:` is compared with a request's query.
public struct QueryMatching: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable { case exact, contains }
    let kind: Kind

    /// The request has exactly these keys with these values (key order free). The default.
    public static let exact = QueryMatching(kind: .exact)

    /// These keys and values are present; other keys are ignored.
    public static let contains = QueryMatching(kind: .contains)

    public var description: String { kind == .exact ? ".exact" : ".contains" }
}

/// A route's query requirement as the DSL declared it: the rules and how to apply them. Matched
/// as the conditions it is lowered into (``RequestConditions/init(declared:)``).
struct QueryRequirement: Hashable, Sendable, CustomStringConvertible {
    var values: [String: MatchValue]
    var matching: QueryMatching

    var description: String {
        let pairs = values.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }
        return "?" + pairs.joined(separator: "&") + (matching.kind == .contains ? " (contains)" : "")
    }
}

/// A request's query, percent-decoded (`+` stays `+`), repeated keys kept in order.
struct RequestQuery: Sendable {
    private(set) var keys: [String] = []
    private var storage: [String: [String]] = [:]

    init(_ items: [URLQueryItem]) {
        for item in items {
            if storage[item.name] == nil { keys.append(item.name) }
            storage[item.name, default: []].append(item.value ?? "")
        }
    }

    func values(for key: String) -> [String] { storage[key] ?? [] }

    var isEmpty: Bool { keys.isEmpty }
}

extension Dictionary where Key == String, Value == String {
    /// Each value as an exact requirement, for the `[String: String]` overloads of `query:` and `headers:`.
    var matchValues: [String: MatchValue] { mapValues { MatchValue($0) } }
}

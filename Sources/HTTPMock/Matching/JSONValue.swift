import Foundation

/// A parsed JSON document, for semantic comparison: key order and whitespace do not matter,
/// `1` and `1.0` are equal, `true` is not `1`.
enum JSONValue: Hashable, Sendable, Decodable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// The document in `data`, or `nil` when it is not JSON.
    static func parse(_ data: Data) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// Whether `self` (the request) holds everything `expected` holds: objects may have extra
    /// keys (recursively); arrays must have the same length, element by element; scalars are equal.
    func contains(_ expected: JSONValue) -> Bool {
        switch (self, expected) {
        case (.object(let actual), .object(let wanted)):
            return wanted.allSatisfy { key, value in actual[key]?.contains(value) ?? false }
        case (.array(let actual), .array(let wanted)):
            return actual.count == wanted.count && zip(actual, wanted).allSatisfy { $0.contains($1) }
        default:
            return self == expected
        }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return "\(value)"
        case .number(let value): return value.rounded() == value && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
        case .string(let value): return "\"\(value)\""
        case .array(let values): return "[" + values.map(\.description).joined(separator: ",") + "]"
        case .object(let object):
            return "{" + object.keys.sorted().map { "\"\($0)\":\(object[$0]?.description ?? "null")" }.joined(separator: ",") + "}"
        }
    }
}

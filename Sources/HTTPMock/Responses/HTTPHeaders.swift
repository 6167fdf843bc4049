/// An ordered list of HTTP header fields whose names compare case-insensitively.
///
/// ```swift
/// let headers: HTTPHeaders = ["Content-Type": "application/json", "X-Trace": "1"]
/// headers["content-type"]   // "application/json"
/// for (name, value) in headers { … }
/// ```
///
/// Setting a value for a name that is already present (in any case) replaces it in place;
/// setting `nil` removes it. A dictionary literal with the same name twice keeps the later value.
public struct HTTPHeaders: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence, CustomStringConvertible {
    public typealias Element = (name: String, value: String)

    private var fields: [Field] = []

    private struct Field: Sendable, Hashable {
        var name: String
        var value: String
        var key: String
        /// The separate values of a field that arrived more than once (``combine(name:value:)``);
        /// `nil` for a field seen once or set.
        var repeated: [String]? = nil
    }

    /// No fields.
    public init() {}

    /// The fields of a dictionary, sorted by name so the order is deterministic.
    public init(_ dictionary: [String: String]) {
        guard !dictionary.isEmpty else { return }  // most requests carry no header fields
        for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            self[name] = value
        }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements {
            self[name] = value
        }
    }

    /// The value for `name`, compared case-insensitively.
    public subscript(name: String) -> String? {
        get {
            fields.first(where: { Self.sameName($0.key, name) })?.value
        }
        set {
            if let index = fields.firstIndex(where: { Self.sameName($0.key, name) }) {
                let key = fields[index].key
                if let newValue {
                    fields[index] = Field(name: name, value: newValue, key: key)
                } else {
                    fields.remove(at: index)
                }
            } else if let newValue {
                fields.append(Field(name: name, value: newValue, key: Self.lowercased(name)))
            }
        }
    }

    /// Adds a field as it arrived on the wire: a name already present (in any case) gets
    /// `value` appended after `, ` (RFC 9110 §5.3), under the later spelling of the name.
    package mutating func combine(name: String, value: String) {
        if let index = fields.firstIndex(where: { Self.sameName($0.key, name) }) {
            let old = fields[index]
            fields[index] = Field(
                name: name, value: old.value + ", " + value, key: old.key, repeated: (old.repeated ?? [old.value]) + [value])
        } else {
            fields.append(Field(name: name, value: value, key: Self.lowercased(name)))
        }
    }

    /// The values of the field `name` (any case) as they arrived: one per occurrence for a field
    /// sent more than once (``combine(name:value:)``), else its one value; empty when absent.
    package func values(named name: String) -> [String] {
        guard let field = fields.first(where: { Self.sameName($0.key, name) }) else { return [] }
        return field.repeated ?? [field.value]
    }

    /// `name` with ASCII letters lowercased (the folding `sameName` uses).
    static func lowercased(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) else { return name }
        return String(unsafeUninitializedCapacity: name.utf8.count) { buffer in
            var count = 0
            for byte in name.utf8 {
                buffer[count] = (byte >= 65 && byte <= 90) ? byte + 32 : byte
                count += 1
            }
            return count
        }
    }

    /// Whether `lowercasedKey` (already lowercased) and `name` are the same header name, without
    /// allocating: header names are ASCII tokens.
    private static func sameName(_ lowercasedKey: String, _ name: String) -> Bool {
        var keyBytes = lowercasedKey.utf8.makeIterator()
        for byte in name.utf8 {
            guard let keyByte = keyBytes.next() else { return false }
            let folded = (byte >= 65 && byte <= 90) ? byte + 32 : byte
            if folded != keyByte { return false }
        }
        return keyBytes.next() == nil
    }

    /// Whether a field named `name` (in any case) is present.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> AnyIterator<Element> {
        var iterator = fields.makeIterator()
        return AnyIterator { iterator.next().map { (name: $0.name, value: $0.value) } }
    }

    /// `self` with every field of `other` set on top of it (`other` wins on the same name).
    func merging(_ other: HTTPHeaders) -> HTTPHeaders {
        var merged = self
        for field in other.fields { merged[field.name] = field.value }
        return merged
    }

    /// The fields as a dictionary, as `HTTPURLResponse` wants them.
    var dictionary: [String: String] {
        var result: [String: String] = [:]
        for field in fields { result[field.name] = field.value }
        return result
    }

    /// The fields in order, `[Name: value, …]`.
    public var description: String {
        "[" + fields.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + "]"
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.map { [$0.key, $0.value] } == rhs.fields.map { [$0.key, $0.value] }
    }

    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.key)
            hasher.combine(field.value)
        }
    }
}

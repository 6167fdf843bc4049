import Foundation

/// A JSON document that keeps object members in the order the document wrote them: what
/// JSONPath walks (Jayway visits members in document order, so `$.store..price` lists the
/// books' prices before the bicycle's) and how results are written back as text.
///
/// ```swift
/// let document = try JSONReader.parseOrdered(#"{"b": 1, "a": 2}"#)
/// document.compactJSON   // {"b":1,"a":2}
/// document.value         // JSONValue, for comparison
/// ```
package indirect enum OrderedJSON: Sendable, Equatable {
    /// `null`, a boolean, a number or a string.
    case scalar(JSONValue)
    case array([OrderedJSON])
    /// Members in document order (a repeated name keeps its last value, at its first place).
    case object([Member])

    package struct Member: Sendable, Equatable {
        let key: String
        package let value: OrderedJSON

        package init(key: String, value: OrderedJSON) {
            self.key = key
            self.value = value
        }
    }

    /// `value` with object members in key order (a ``JSONValue`` keeps no order).
    package init(_ value: JSONValue) {
        switch value {
        case .array(let items): self = .array(items.map(OrderedJSON.init))
        case .object(let members):
            self = .object(members.keys.sorted().map { Member(key: $0, value: OrderedJSON(members[$0] ?? .null)) })
        default: self = .scalar(value)
        }
    }

    /// The document as a ``JSONValue`` (member order dropped).
    package var value: JSONValue {
        switch self {
        case .scalar(let value): return value
        case .array(let items): return .array(items.map(\.value))
        case .object(let members):
            var object: [String: JSONValue] = [:]
            for member in members { object[member.key] = member.value.value }
            return .object(object)
        }
    }

    /// Equal as JSON: member order does not matter, `1` equals `1.0`.
    package static func == (lhs: OrderedJSON, rhs: OrderedJSON) -> Bool {
        switch (lhs, rhs) {
        case (.scalar(let a), .scalar(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object, .object): return lhs.value == rhs.value
        default: return false
        }
    }

    /// The member `key` of an object.
    package subscript(key: String) -> OrderedJSON? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// An object with member `key` set to `value`: in its place when the object has it, else
    /// last. Anything but an object is returned as it is.
    package func setting(_ key: String, to value: OrderedJSON) -> OrderedJSON {
        guard case .object(var members) = self else { return self }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index] = Member(key: key, value: value)
        } else {
            members.append(Member(key: key, value: value))
        }
        return .object(members)
    }

    /// An object without its `null` members (at the top level only).
    package var droppingNullMembers: OrderedJSON {
        guard case .object(let members) = self else { return self }
        return .object(members.filter { $0.value != .scalar(.null) })
    }

    /// An array's elements or an object's member values, in order; `nil` for a scalar.
    var children: [OrderedJSON]? {
        switch self {
        case .array(let items): return items
        case .object(let members): return members.map(\.value)
        case .scalar: return nil
        }
    }

    package var number: Double? {
        if case .scalar(let value) = self { return value.number }
        return nil
    }

    /// Compact JSON in document order, numbers as Java writes them (`8.95`, `100.0`, `1.0E10`).
    package var compactJSON: String {
        switch self {
        case .scalar(let value): return value.compactJSON
        case .array(let items): return "[" + items.map(\.compactJSON).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { JSONValue.quoted($0.key) + ":" + $0.value.compactJSON }.joined(separator: ",") + "}"
        }
    }

    /// The text Java's `String.valueOf` gives a JSONPath result and WireMock hands to a
    /// sub-matcher: a string as is, a number as Java writes it, `true`/`false`, an array or an
    /// object as Jackson's default pretty printer writes it; `nil` for `null`.
    package var javaText: String? {
        switch self {
        case .scalar(let value): return value.javaText
        case .array, .object: return prettyJSON(indent: "")
        }
    }

    /// Jackson's `DefaultPrettyPrinter` layout: `{` newline, two-space indent, `"key" : value`,
    /// `[ 1, 2 ]` for arrays of scalars on one line.
    func prettyJSON(indent: String) -> String {
        switch self {
        case .scalar(let value):
            return value.compactJSON
        case .array(let items):
            if items.isEmpty { return "[ ]" }
            return "[ " + items.map { $0.prettyJSON(indent: indent) }.joined(separator: ", ") + " ]"
        case .object(let members):
            if members.isEmpty { return "{ }" }
            let inner = indent + "  "
            return "{\n"
                + members.map { inner + JSONValue.quoted($0.key) + " : " + $0.value.prettyJSON(indent: inner) }
                .joined(separator: ",\n") + "\n" + indent + "}"
        }
    }
}

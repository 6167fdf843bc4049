import Foundation

/// What a request body must hold for a route to match.
///
/// ```swift
/// Path("/login", method: .post, body: .jsonContains(["user": "alice"])) { … }
/// Path("/graphql", method: .post, body: .graphQL(operationName: "GetUser")) { … }
/// mock.addResponses(forPath: "/form", body: .form(["grant_type": "password"]), responses: [...])
/// ```
public struct BodyMatcher: Hashable, Sendable, CustomStringConvertible {
    enum Rule: Hashable, Sendable {
        case equals(String)
        case contains(String)
        case json(JSONValue)
        case jsonContains(JSONValue)
        case form([String: String])
        case graphQL(String)
        /// The matcher could not be built (an `Encodable` that failed to encode); registering it
        /// reports the message at the location.
        case invalid(String, SourceLocation)
    }

    let rule: Rule

    /// The body, as UTF-8 text, is exactly `text`.
    public static func equals(_ text: String) -> BodyMatcher { BodyMatcher(rule: .equals(text)) }

    /// The body, as UTF-8 text, contains `text`.
    public static func contains(_ text: String) -> BodyMatcher { BodyMatcher(rule: .contains(text)) }

    /// The body is JSON equal to `value` encoded: key order, whitespace and number spelling
    /// (`1` vs `1.0`) do not matter.
    public static func json<Value: Encodable>(
        _ value: Value, encoder: JSONEncoder = JSONEncoder(),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> BodyMatcher {
        encode(value, encoder: encoder, name: "json", location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column), make: Rule.json)
    }

    /// The body is JSON holding every key path of `value` with equal values; extra keys are
    /// ignored (at every depth). Arrays must have the same length, compared element by element.
    public static func jsonContains<Value: Encodable>(
        _ value: Value, encoder: JSONEncoder = JSONEncoder(),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> BodyMatcher {
        encode(value, encoder: encoder, name: "jsonContains", location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column), make: Rule.jsonContains)
    }

    /// The body is `application/x-www-form-urlencoded` and holds these fields (others ignored);
    /// `+` decodes to a space, as forms encode it.
    public static func form(_ fields: [String: String]) -> BodyMatcher { BodyMatcher(rule: .form(fields)) }

    /// The body is a GraphQL-over-HTTP JSON request for the operation `operationName`: its
    /// `operationName` field, or else the name of the operation in its `query` document.
    public static func graphQL(operationName: String) -> BodyMatcher { BodyMatcher(rule: .graphQL(operationName)) }

    private static func encode<Value: Encodable>(
        _ value: Value, encoder: JSONEncoder, name: String, location: SourceLocation, make: (JSONValue) -> Rule
    ) -> BodyMatcher {
        do {
            let data = try encoder.encode(value)
            guard let json = JSONValue.parse(data) else {
                return BodyMatcher(rule: .invalid("BodyMatcher.\(name) could not read back the JSON of \(Value.self)", location))
            }
            return BodyMatcher(rule: make(json))
        } catch {
            return BodyMatcher(rule: .invalid("BodyMatcher.\(name) could not encode a value of type \(Value.self): \(error)", location))
        }
    }

    func matches(_ request: MockRequest, json: () -> JSONValue?) -> Bool {
        switch rule {
        case .equals(let text):
            return request.body.map { String(decoding: $0, as: UTF8.self) == text } ?? text.isEmpty
        case .contains(let text):
            return request.body.map { String(decoding: $0, as: UTF8.self).contains(text) } ?? false
        case .json(let expected):
            return json() == expected
        case .jsonContains(let expected):
            return json()?.contains(expected) ?? false
        case .form(let fields):
            let actual = request.formParameters
            return fields.allSatisfy { actual[$0.key] == $0.value }
        case .graphQL(let operation):
            return Self.graphQLOperationName(json()) == operation
        case .invalid:
            return false
        }
    }

    /// `operationName`, else the first named operation in `query`.
    static func graphQLOperationName(_ json: JSONValue?) -> String? {
        guard let json else { return nil }
        if case .string(let name)? = json["operationName"], !name.isEmpty { return name }
        guard case .string(let query)? = json["query"] else { return nil }
        // `query Name`, `mutation Name(…)`, `subscription Name {…}`; `query {…}` is anonymous.
        let scalars = Array(query.unicodeScalars)
        func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "_" || (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)))
        }
        var index = 0
        while index < scalars.count {
            guard isNameScalar(scalars[index]) else { index += 1; continue }
            var end = index
            while end < scalars.count, isNameScalar(scalars[end]) { end += 1 }
            let word = String(String.UnicodeScalarView(scalars[index..<end]))
            if ["query", "mutation", "subscription"].contains(word) {
                var next = end
                while next < scalars.count, scalars[next].properties.isWhitespace { next += 1 }
                guard next < scalars.count, isNameScalar(scalars[next]) else { return nil }
                var nameEnd = next
                while nameEnd < scalars.count, isNameScalar(scalars[nameEnd]) { nameEnd += 1 }
                return String(String.UnicodeScalarView(scalars[next..<nameEnd]))
            }
            index = end
        }
        return nil
    }

    public var description: String {
        switch rule {
        case .equals(let text): return ".equals(\"\(text)\")"
        case .contains(let text): return ".contains(\"\(text)\")"
        case .json(let value): return ".json(\(value))"
        case .jsonContains(let value): return ".jsonContains(\(value))"
        case .form(let fields): return ".form(\(fields.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }.joined(separator: "&")))"
        case .graphQL(let name): return ".graphQL(\(name))"
        case .invalid(let message, _): return ".invalid(\(message))"
        }
    }
}

/// A `where:` predicate. Each registration's predicate is its own route: closures cannot be
/// compared, so two registrations with predicates never share a queue.
struct RequestPredicate: Hashable, Sendable {
    // Stored in a struct rather than directly in locked state: on this toolchain a closure kept
    // in a lock-protected optional is re-wrapped in a thunk on every read (SPEC §10).
    let id: Int
    let test: @Sendable (MockRequest) -> Bool

    static func == (lhs: RequestPredicate, rhs: RequestPredicate) -> Bool { lhs.id == rhs.id }
    func hash(into hasher: inout Hasher) { hasher.combine(id) }

    private static let counter = Locked(0)

    init(_ test: @escaping @Sendable (MockRequest) -> Bool) {
        self.id = Self.counter.withLock { value -> Int in
            value += 1
            return value
        }
        self.test = test
    }
}

/// A route's header requirements: names case-insensitive, extra request headers ignored.
struct HeaderRequirement: Hashable, Sendable, CustomStringConvertible {
    /// Lowercased name → requirement.
    let values: [String: QueryValue]

    init(_ headers: [String: QueryValue]) {
        var values: [String: QueryValue] = [:]
        for (name, value) in headers { values[name.lowercased()] = value }
        self.values = values
    }

    func matches(_ headers: HTTPHeaders) -> Bool {
        values.allSatisfy { name, requirement in
            guard let value = headers[name] else { return false }
            return requirement.matches(Self.split(value, for: requirement))
        }
    }

    /// A single expected value compares with the whole header; an array with its
    /// comma-separated values (FoundationNetworking joins repeated headers with ", ").
    private static func split(_ value: String, for requirement: QueryValue) -> [String] {
        if case .values(let expected) = requirement.kind, expected.count > 1 {
            return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return [value]
    }

    var description: String {
        values.sorted(by: { $0.key < $1.key }).map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }
}

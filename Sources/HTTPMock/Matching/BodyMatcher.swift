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
        case jsonRPC(method: String)
        /// A core matcher compiled at registration (XML, XPath), compared by its source.
        case compiled(CompiledBodyMatcher)
        /// The matcher could not be built (an `Encodable` that failed to encode); registering it
        /// reports the message at the location.
        case invalid(String, SourceLocation)
    }

    let rule: Rule

    /// The body's bytes are exactly the UTF-8 bytes of `text` (an empty `text` also matches a
    /// request without body). Bytes are compared, not decoded text, so a body that is not valid
    /// UTF-8 never equals a string.
    public static func equals(_ text: String) -> BodyMatcher { BodyMatcher(rule: .equals(text)) }

    /// The body's bytes contain the UTF-8 bytes of `text`.
    ///
    /// JSON text is a trap for this matcher: `JSONEncoder` writes `/` as `\/`, so
    /// `.contains("a/b")` misses a body encoded from `"a/b"`. Match JSON with `.jsonContains`.
    public static func contains(_ text: String) -> BodyMatcher { BodyMatcher(rule: .contains(text)) }

    /// The body is JSON equal to `value` encoded: key order, whitespace and number spelling
    /// (`1` vs `1.0`) do not matter.
    public static func json<Value: Encodable>(
        _ value: Value, encoder: JSONEncoder = JSONEncoder(),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> BodyMatcher {
        encode(
            value, encoder: encoder, name: "json", location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            make: Rule.json)
    }

    /// The body is JSON holding every key path of `value` with equal values; extra keys are
    /// ignored (at every depth). Arrays must have the same length, compared element by element.
    public static func jsonContains<Value: Encodable>(
        _ value: Value, encoder: JSONEncoder = JSONEncoder(),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> BodyMatcher {
        encode(
            value, encoder: encoder, name: "jsonContains",
            location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column), make: Rule.jsonContains)
    }

    /// The body is JSON equal to `value`: key order and whitespace do not matter, integers
    /// compare exactly, `1` equals `1.0`.
    ///
    /// ```swift
    /// Path("/rpc", method: .post, body: .json(["jsonrpc": "2.0", "method": "ping", "id": 1])) { … }
    /// ```
    public static func json(_ value: JSONValue) -> BodyMatcher { BodyMatcher(rule: .json(value)) }

    /// The body is JSON holding every key path of `value` with equal values; extra keys are
    /// ignored at every depth; arrays must have the same length, compared element by element.
    ///
    /// ```swift
    /// Path("/mcp", method: .post,
    ///      body: .jsonContains(["method": "tools/call", "params": ["name": "add"]])) { … }
    /// ```
    public static func jsonContains(_ value: JSONValue) -> BodyMatcher { BodyMatcher(rule: .jsonContains(value)) }

    /// The body is a JSON-RPC request (or notification) whose top-level `method` is `method`.
    ///
    /// ```swift
    /// Path("/mcp", method: .post, body: .jsonRPC(method: "tools/list")) {
    ///     MockResponse.jsonRPC(result: ["tools": []])
    /// }
    /// ```
    public static func jsonRPC(method: String) -> BodyMatcher { BodyMatcher(rule: .jsonRPC(method: method)) }

    /// The body is `application/x-www-form-urlencoded` and holds these fields (others ignored);
    /// `+` decodes to a space, as forms encode it.
    public static func form(_ fields: [String: String]) -> BodyMatcher { BodyMatcher(rule: .form(fields)) }

    /// The body is a GraphQL-over-HTTP JSON request for the operation `operationName`: its
    /// `operationName` field, or else the name of the operation in its `query` document.
    public static func graphQL(operationName: String) -> BodyMatcher { BodyMatcher(rule: .graphQL(operationName)) }

    /// The body is XML similar to `expected`, as WireMock's `equalToXml` (XMLUnit) compares:
    /// namespace prefixes do not matter (their URIs do), nor attribute order, nor the order of
    /// child elements with different names; text is compared trimmed; comments, processing
    /// instructions and whitespace-only text are ignored; CDATA is text.
    ///
    /// ```swift
    /// Path("/soap", method: .post, body: .xml("<order><id>7</id><qty>2</qty></order>")) { … }
    /// ```
    ///
    /// `expected` that is not XML is a test failure at this call site, and the route is not
    /// registered. A body that is not XML never matches; the near-miss report says why.
    public static func xml(
        _ expected: String, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> BodyMatcher {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        do throws(XMLTree.ParseError) {
            let tree = try XMLTree(parsing: expected)
            let matcher = XMLEqualityMatcher(expectedText: expected, expected: tree, placeholders: nil, exempted: [])
            return BodyMatcher(rule: .compiled(CompiledBodyMatcher(source: "xml " + expected, matcher: .equalToXML(matcher))))
        } catch {
            return BodyMatcher(rule: .invalid("BodyMatcher.xml: the expected document is not XML: \(error)", location))
        }
    }

    /// The body is XML in which the XPath 1.0 `expression` selects at least one node, as
    /// WireMock's `matchesXPath`; `namespaces` binds the prefixes the expression uses.
    ///
    /// ```swift
    /// Path("/soap", method: .post, body: .xPath("//order[qty > 1]")) { … }
    /// Path("/soap", method: .post, body: .xPath("//s:Body/m:Ping", namespaces: ["s": soapURI, "m": "urn:app"])) { … }
    /// ```
    ///
    /// An expression that does not parse is a test failure at this call site, and the route is
    /// not registered. Evaluation is bounded (steps and text built, per request).
    public static func xPath(
        _ expression: String, namespaces: [String: String]? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> BodyMatcher {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        do throws(XPath.SyntaxError) {
            let xpath = try XPath(expression, namespaces: namespaces)
            let source = "xPath " + expression + (namespaces.map { " " + $0.sorted { $0.key < $1.key }.description } ?? "")
            return BodyMatcher(
                rule: .compiled(CompiledBodyMatcher(source: source, matcher: .matchesXPath(XPathMatcher(xpath: xpath, matcher: nil)))))
        } catch {
            return BodyMatcher(rule: .invalid("BodyMatcher.xPath: \(expression) is not an XPath expression: \(error)", location))
        }
    }

    /// The body is JSON in which `expression` finds something that is not `null`, an empty list
    /// or an empty object: WireMock's `matchesJsonPath` without a sub-matcher, on the same
    /// JSONPath engine (Jayway's syntax: filters such as `[?(@.qty > 1)]`, `..`, `*`, slices).
    ///
    /// ```swift
    /// Path("/orders", method: .post, body: .jsonPath("$.items[?(@.qty > 1)]")) { … }
    /// Path("/login", method: .post, body: .jsonPath("$.credentials.token")) { … }
    /// ```
    ///
    /// An expression that does not parse is a test failure at this call site, and the route is
    /// not registered. A body that is not JSON never matches; the near-miss report says what the
    /// path found. Evaluation is bounded (steps, per request).
    public static func jsonPath(
        _ expression: String, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> BodyMatcher {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        do throws(JSONPath.ParseError) {
            let path = try JSONPath(expression)
            return BodyMatcher(rule: .compiled(CompiledBodyMatcher(source: "jsonPath " + expression, matcher: .jsonPath(path, nil))))
        } catch {
            return BodyMatcher(rule: .invalid("BodyMatcher.jsonPath: \(expression) is not a JSONPath: \(error)", location))
        }
    }

    private static func encode<Value: Encodable>(
        _ value: Value, encoder: JSONEncoder, name: String, location: SourceLocation, make: (JSONValue) -> Rule
    ) -> BodyMatcher {
        do {
            return BodyMatcher(rule: make(try JSONValue.encoding(value, with: encoder)))
        } catch {
            return BodyMatcher(rule: .invalid("BodyMatcher.\(name) could not encode a value of type \(Value.self): \(error)", location))
        }
    }

    /// Whether `request` satisfies it; `json` and `body` read the body once per request.
    func matches(_ request: MockRequest, json: () -> JSONValue?, body: RequestBody) -> Bool {
        switch rule {
        case .compiled(let compiled):
            return compiled.matcher.matches(.body(body))
        case .equals(let text):
            // Bytes, not lossily decoded text: `FF FE` must not equal "\u{FFFD}\u{FFFD}".
            guard let body = request.body else { return text.isEmpty }
            return body.elementsEqual(text.utf8)
        case .contains(let text):
            guard let body = request.body else { return text.isEmpty }
            return text.isEmpty || body.range(of: Data(text.utf8)) != nil
        case .json(let expected):
            return json() == expected
        case .jsonContains(let expected):
            return json()?.contains(expected) ?? false
        case .form(let fields):
            let actual = request.formParameters
            return fields.allSatisfy { actual[$0.key] == $0.value }
        case .graphQL(let operation):
            return Self.graphQLOperationName(json()) == operation
        case .jsonRPC(let method):
            return json()?["method"] == .string(method)
        case .invalid:
            return false
        }
    }

    /// `operationName`, else the name of the first operation in `query`.
    static func graphQLOperationName(_ json: JSONValue?) -> String? {
        guard let json else { return nil }
        if case .string(let name)? = json["operationName"], !name.isEmpty { return name }
        guard case .string(let query)? = json["query"] else { return nil }
        return GraphQLDocument.firstOperationName(in: query)
    }

    public var description: String {
        switch rule {
        case .equals(let text): return ".equals(\"\(text)\")"
        case .contains(let text): return ".contains(\"\(text)\")"
        case .json(let value): return ".json(\(value))"
        case .jsonContains(let value): return ".jsonContains(\(value))"
        case .form(let fields):
            return ".form(\(fields.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }.joined(separator: "&")))"
        case .graphQL(let name): return ".graphQL(\(name))"
        case .jsonRPC(let method): return ".jsonRPC(method: \(method))"
        case .compiled(let compiled): return compiled.matcher.description
        case .invalid(let message, _): return ".invalid(\(message))"
        }
    }
}

/// A `where:` predicate. Each registration's predicate is its own route: closures cannot be
/// compared, so two registrations with predicates never share a queue.
struct RequestPredicate: Hashable, Sendable {
    // Stored in a struct rather than directly in locked state: on this toolchain a closure kept
    // in a lock-protected optional is re-wrapped in a thunk on every read.
    let id: Int
    let test: @Sendable (MockRequest) -> Bool
    /// Why a request fails the predicate, for near-miss reports (a WireMock mapping says which
    /// matcher failed); `nil`: "the predicate returned false".
    var explanation: (@Sendable (MockRequest) -> String?)? = nil
    /// Whether the route is a front end's own (``RouteSpec/isInternal``): near-miss
    /// reports leave it out.
    var isInternal = false

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

/// A route's header requirements as the DSL declared them: names case-insensitive, extra
/// request headers ignored; a single expected value compares with the whole header, a list
/// with its comma-separated values (FoundationNetworking joins repeated headers with ", ").
/// Matched as the conditions it is lowered into (``RequestConditions/init(declared:)``).
struct HeaderRequirement: Hashable, Sendable, CustomStringConvertible {
    /// Lowercased name → requirement.
    let values: [String: MatchValue]

    init(_ headers: [String: MatchValue]) {
        var values: [String: MatchValue] = [:]
        for (name, value) in headers { values[name.lowercased()] = value }
        self.values = values
    }

    var description: String {
        values.sorted(by: { $0.key < $1.key }).map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }
}

/// A ``ValueMatcher`` a ``BodyMatcher`` compiled at registration: equal (one queue for equal
/// registrations) when written from the same source.
struct CompiledBodyMatcher: Hashable, Sendable {
    let source: String
    let matcher: ValueMatcher

    static func == (lhs: CompiledBodyMatcher, rhs: CompiledBodyMatcher) -> Bool { lhs.source == rhs.source }
    func hash(into hasher: inout Hasher) { hasher.combine(source) }
}

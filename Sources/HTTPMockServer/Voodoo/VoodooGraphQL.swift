#if Server
import Foundation
import GraphQL
import HTTPMock

/// A Voodoo `graphQL:` endpoint's selector: the named `operations` the request's document must
/// define, or a `query` document the request's must contain (order, whitespace and comments
/// ignored; arguments the endpoint does not name are free). Documents are parsed with
/// GraphQLSwift/GraphQL.
struct VoodooGraphQLSelector: Sendable, CustomStringConvertible {
    let method: HTTPMethod
    let operations: [String]
    /// The endpoint document's definitions, each flattened to the set of its paths.
    let definitions: [GraphQLShape]
    let parser: VoodooGraphQLParser
    let description: String

    init(method: String?, operations: [String]?, query: String?, parser: VoodooGraphQLParser, file: String, line: Int?) throws {
        switch method?.lowercased() {
        case nil, "post": self.method = .post
        case "get": self.method = .get
        case let other?: throw VoodooError.at(file, line, "graphQL.method must be get or post, got \(VoodooError.quoted(other))")
        }
        self.parser = parser
        parser.markUsed()
        switch (operations, query) {
        case (let operations?, nil):
            guard !operations.isEmpty else { throw VoodooError.at(file, line, "graphQL.operations names no operation") }
            self.operations = operations
            definitions = []
            description = "operations \(operations.joined(separator: ", "))"
        case (nil, let query?):
            switch parser.document(query) {
            case .document(let document): definitions = document.shapes
            case .refused(let reason): throw VoodooError.at(file, line, "graphQL.query is refused: \(reason)")
            case .invalid(let reason): throw VoodooError.at(file, line, "graphQL.query is not a GraphQL document: \(reason)")
            }
            self.operations = []
            description = "query \(query.split(whereSeparator: \.isWhitespace).joined(separator: " "))"
        default:
            throw VoodooError.at(file, line, "graphQL needs exactly one of operations and query")
        }
    }

    /// Whether `request` (GET: `query` item; POST: a JSON body with `query`, or an
    /// `application/graphql` body) is this endpoint's.
    func matches(_ request: MockRequest) -> Bool {
        guard let source = VoodooGraphQLParser.source(of: request), case .document(let document) = parser.document(source) else {
            return false
        }
        if !operations.isEmpty {
            return operations.allSatisfy(document.operationNames.contains)
        }
        return definitions.allSatisfy { wanted in document.shapes.contains { $0.contains(wanted) } }
    }

    /// What `request` lacks to be this endpoint's, for its near-miss line: no document, a
    /// document that does not parse, the operations it does not define, or the fields and
    /// arguments of the endpoint's query it does not select. `nil` when it matches.
    func mismatch(_ request: MockRequest) -> String? {
        guard let source = VoodooGraphQLParser.source(of: request) else {
            return request.method == .get
                ? "graphQL: expected a document in the query parameter query, got none"
                : "graphQL: expected a document (an application/graphql body, or a JSON body with \"query\"), got none"
        }
        let document: VoodooGraphQLDocument
        switch parser.document(source) {
        case .document(let parsed): document = parsed
        case .refused(let reason): return "graphQL: the document is refused: \(reason)"
        case .invalid(let reason): return "graphQL: the document is not GraphQL: \(reason)"
        }
        if !operations.isEmpty {
            let missing = operations.filter { !document.operationNames.contains($0) }
            guard !missing.isEmpty else { return nil }
            let defined = document.operationNames.sorted()
            return "graphQL: expected operation \(missing.joined(separator: ", ")), got "
                + (defined.isEmpty ? "a document with no named operation" : "operation \(defined.joined(separator: ", "))")
        }
        var lacking: [String] = []
        for wanted in definitions where !document.shapes.contains(where: { $0.contains(wanted) }) {
            // The closest definition of the same kind and name: what it lacks is what differs.
            let candidates = document.shapes.filter { $0.kind == wanted.kind && (wanted.name == nil || wanted.name == $0.name) }
            guard
                let closest = candidates.max(by: { $0.paths.intersection(wanted.paths).count < $1.paths.intersection(wanted.paths).count })
            else {
                lacking.append("a \(wanted.kind)\(wanted.name.map { " named \($0)" } ?? "") (the document has none)")
                continue
            }
            lacking += wanted.paths.subtracting(closest.paths).sorted()
        }
        guard !lacking.isEmpty else { return nil }
        return "graphQL: the document lacks what the endpoint selects (\(description)): missing \(lacking.joined(separator: ", "))"
    }
}

/// A parsed GraphQL document, as the selectors compare it.
struct VoodooGraphQLDocument: Sendable {
    let operationNames: Set<String>
    let shapes: [GraphQLShape]
}

/// Parses request documents for every `graphQL:` endpoint of a configuration: each document once
/// (a few recent ones are kept, so N endpoints do not parse one request N times), never deeper
/// than ``maximumDepth`` (the parser recurses per level: a document nested thousands deep would
/// exhaust the stack), answered 400 by ``guardRoute(host:)`` when refused.
final class VoodooGraphQLParser: @unchecked Sendable {
    // @unchecked: `recent` and `used` are read and written only under `lock`.
    /// Nesting of selection sets, lists, objects and argument lists a document may have.
    static let maximumDepth = 64
    /// Documents longer than this are refused unparsed.
    static let maximumLength = 1 << 20

    enum Outcome: Sendable {
        case document(VoodooGraphQLDocument)
        case refused(String)
        case invalid(String)
    }

    private let lock = NSLock()
    private var recent: [(source: String, outcome: Outcome)] = []
    private var used = false

    var isUsed: Bool { lock.withLock { used } }
    func markUsed() { lock.withLock { used = true } }

    /// `source` parsed, refused or invalid.
    func document(_ source: String) -> Outcome {
        if let known = lock.withLock({ recent.first { $0.source == source }?.outcome }) { return known }
        let outcome = Self.parse(source)
        lock.withLock {
            recent.insert((source, outcome), at: 0)
            if recent.count > 8 { recent.removeLast() }
        }
        return outcome
    }

    private static func parse(_ source: String) -> Outcome {
        if source.utf8.count > maximumLength {
            return .refused("the document is \(source.utf8.count) bytes, more than the \(maximumLength) bytes a document may have")
        }
        if let depth = depthPastLimit(source) {
            return .refused(
                "the document nests selections, lists or objects more than \(maximumDepth) levels deep (\(depth) or more); the limit is \(maximumDepth)"
            )
        }
        do {
            let document = try GraphQL.parse(source: source, noLocation: true)
            let names = Set(document.definitions.compactMap { ($0 as? OperationDefinition)?.name?.value })
            return .document(VoodooGraphQLDocument(operationNames: names, shapes: GraphQLShape.shapes(of: document)))
        } catch {
            return .invalid("\(error)")
        }
    }

    /// The nesting depth of `{`, `[` and `(` outside strings and comments when it passes
    /// ``maximumDepth``, else `nil`: one linear pass, before any recursion.
    static func depthPastLimit(_ source: String) -> Int? {
        var depth = 0
        var inComment = false
        var inString = false
        var inBlockString = false
        var escaped = false
        let bytes = Array(source.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            defer { index += 1 }
            if inComment {
                if byte == 0x0A || byte == 0x0D { inComment = false }
                continue
            }
            if inBlockString {
                if byte == UInt8(ascii: "\""), index + 2 < bytes.count, bytes[index + 1] == byte, bytes[index + 2] == byte {
                    inBlockString = false
                    index += 2
                }
                continue
            }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") || byte == 0x0A {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "#"):
                inComment = true
            case UInt8(ascii: "\""):
                if index + 2 < bytes.count, bytes[index + 1] == byte, bytes[index + 2] == byte {
                    inBlockString = true
                    index += 2
                } else {
                    inString = true
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "("):
                depth += 1
                if depth > maximumDepth { return depth }
            case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ")"):
                depth = max(0, depth - 1)
            default:
                break
            }
        }
        return nil
    }

    /// The request's document: GET's `query` item, an `application/graphql` body, or the
    /// `query` of a JSON body.
    static func source(of request: MockRequest) -> String? {
        if request.method == .get {
            // Form encoding, as curl -G and GraphQL clients send it: `+` is a space.
            let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
            for pair in query.split(separator: "&") where pair.hasPrefix("query=") {
                return pair.dropFirst("query=".count).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            return nil
        }
        guard let body = request.body else { return nil }
        let contentType = request.headers["Content-Type"]?.lowercased() ?? ""
        if contentType.hasPrefix("application/graphql") {
            return String(data: body, encoding: .utf8)
        }
        // Read as every JSON body is (JSONReader: strict, as WireMock's).
        guard case .string(let query)? = (try? JSONReader.parse(body))?["query"] else { return nil }
        return query
    }

    /// The route that answers 400 to a `/graphql` request whose document is refused (too deep,
    /// too long), so the client learns the limit instead of getting a near-miss 404.
    func guardRoute(host: String?) -> RouteSpec {
        let refusal: @Sendable (MockRequest) -> String? = { [self] request in
            guard request.method == .get || request.method == .post, let source = Self.source(of: request),
                case .refused(let reason) = document(source)
            else { return nil }
            return reason
        }
        let answer = MockResponse.dynamic(lifetime: .eternal) { request in
            .plaintext("GraphQL: \(refusal(request) ?? "the document is refused")\n", status: .badRequest)
        }
        var route = RouteSpec(path: "/graphql", host: host, method: nil, responses: [answer], file: "Voodoo GraphQL limits", line: 1)
        route.predicate = { refusal($0) != nil }
        route.isInternal = true
        return route
    }
}

/// One definition of a GraphQL document as the set of its paths (operation or fragment,
/// variables, fields with alias, arguments, spreads and inline fragments). An argument is two
/// paths, its name and its value, so an endpoint that names an argument without a value (a
/// variable) only needs the request to pass it, and one that does not name it leaves it free.
struct GraphQLShape: Sendable {
    let kind: String
    let name: String?
    let paths: Set<String>

    func contains(_ other: GraphQLShape) -> Bool {
        kind == other.kind && (other.name == nil || other.name == name) && other.paths.isSubset(of: paths)
    }

    static func shapes(of document: Document) -> [GraphQLShape] {
        document.definitions.compactMap { definition in
            var paths: Set<String> = []
            if let operation = definition as? OperationDefinition {
                for variable in operation.variableDefinitions { paths.insert("$" + variable.variable.name.value) }
                collect(operation.selectionSet, prefix: "", into: &paths)
                return GraphQLShape(kind: operation.operation.rawValue, name: operation.name?.value, paths: paths)
            }
            if let fragment = definition as? FragmentDefinition {
                paths.insert("on " + fragment.typeCondition.name.value)
                collect(fragment.selectionSet, prefix: "", into: &paths)
                return GraphQLShape(kind: "fragment", name: fragment.name.value, paths: paths)
            }
            return nil
        }
    }

    /// `value` as one canonical string (object fields sorted): linear in the value's size, where
    /// GraphQL's printer is not.
    static func canonical(_ value: Value) -> String {
        switch value {
        case let value as IntValue: value.value
        case let value as FloatValue: value.value
        case let value as StringValue: VoodooYAML.text(of: .string(value.value))
        case let value as BooleanValue: value.value ? "true" : "false"
        case is NullValue: "null"
        case let value as EnumValue: value.value
        case let value as Variable: "$" + value.name.value
        case let value as ListValue: "[" + value.values.map(canonical).joined(separator: ",") + "]"
        case let value as ObjectValue:
            "{" + value.fields.map { $0.name.value + ":" + canonical($0.value) }.sorted().joined(separator: ",") + "}"
        default: "\(type(of: value))"
        }
    }

    private static func collect(_ selectionSet: SelectionSet, prefix: String, into paths: inout Set<String>) {
        for selection in selectionSet.selections {
            if let field = selection as? Field {
                let key = prefix + "/" + (field.alias.map { $0.value + ":" } ?? "") + field.name.value
                paths.insert(key)
                for argument in field.arguments {
                    paths.insert(key + "(" + argument.name.value + ")")
                    if !(argument.value is Variable) {
                        paths.insert(key + "(" + argument.name.value + "=" + canonical(argument.value) + ")")
                    }
                }
                if let children = field.selectionSet { collect(children, prefix: key, into: &paths) }
            } else if let spread = selection as? FragmentSpread {
                paths.insert(prefix + "/..." + spread.name.value)
            } else if let inline = selection as? InlineFragment {
                let key = prefix + "/... on " + (inline.typeCondition?.name.value ?? "")
                paths.insert(key)
                collect(inline.selectionSet, prefix: key, into: &paths)
            }
        }
    }
}
#endif

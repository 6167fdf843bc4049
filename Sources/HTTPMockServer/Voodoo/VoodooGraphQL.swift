#if Server
import Foundation
import GraphQL
import HTTPMock

/// A Voodoo `graphQL:` endpoint's selector: the named `operations` the request's document must
/// define, or a `query` document the request's must contain (order, whitespace and comments
/// ignored). Documents are parsed with GraphQLSwift/GraphQL.
struct VoodooGraphQLSelector: Sendable, CustomStringConvertible {
    let method: HTTPMethod
    let operations: [String]
    /// The endpoint document's definitions, each flattened to the set of its paths.
    let definitions: [GraphQLShape]
    let description: String

    init(method: String?, operations: [String]?, query: String?, file: String, line: Int?) throws {
        switch method?.lowercased() {
        case nil, "post": self.method = .post
        case "get": self.method = .get
        case let other?: throw VoodooError.at(file, line, "graphQL.method must be get or post, got \(other)")
        }
        switch (operations, query) {
        case (let operations?, nil):
            guard !operations.isEmpty else { throw VoodooError.at(file, line, "graphQL.operations names no operation") }
            self.operations = operations
            definitions = []
            description = "operations \(operations.joined(separator: ", "))"
        case (nil, let query?):
            do {
                definitions = try GraphQLShape.shapes(of: parse(source: query))
            } catch {
                throw VoodooError.at(file, line, "graphQL.query is not a GraphQL document: \(error)")
            }
            self.operations = []
            description = "query \(query.split(whereSeparator: \.isWhitespace).joined(separator: " "))"
        default:
            throw VoodooError.at(file, line, "graphQL needs exactly one of operations and query")
        }
    }

    /// Whether `request` (GET: `query` item; POST: a JSON body with `query`) is this endpoint's.
    func matches(_ request: MockRequest) -> Bool {
        guard let source = Self.document(of: request), let document = try? parse(source: source, noLocation: true) else { return false }
        if !operations.isEmpty {
            let names = Set(document.definitions.compactMap { ($0 as? OperationDefinition)?.name?.value })
            return operations.allSatisfy(names.contains)
        }
        let shapes = GraphQLShape.shapes(of: document)
        return definitions.allSatisfy { wanted in shapes.contains { $0.contains(wanted) } }
    }

    static func document(of request: MockRequest) -> String? {
        if request.method == .get {
            // Form encoding, as curl -G and GraphQL clients send it: `+` is a space.
            let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
            for pair in query.split(separator: "&") where pair.hasPrefix("query=") {
                return pair.dropFirst("query=".count).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            return nil
        }
        guard let body = request.body,
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        else { return nil }
        return object["query"] as? String
    }
}

/// One definition of a GraphQL document as the set of its paths (operation or fragment,
/// variables, fields with alias and arguments, spreads and inline fragments).
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
                for variable in operation.variableDefinitions { paths.insert("$" + print(ast: variable)) }
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

    private static func collect(_ selectionSet: SelectionSet, prefix: String, into paths: inout Set<String>) {
        for selection in selectionSet.selections {
            if let field = selection as? Field {
                let arguments = field.arguments.map { "\($0.name.value):\(print(ast: $0.value))" }.sorted()
                let key =
                    prefix + "/" + (field.alias.map { $0.value + ":" } ?? "") + field.name.value
                    + (arguments.isEmpty ? "" : "(\(arguments.joined(separator: ",")))")
                paths.insert(key)
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

#if Server
import Foundation
import HTTPMock
import Yams

extension VoodooLoader {
    static let endpointKeys: Set<String> = ["http", "graphQL", "response", "javascript", "javascriptFile"]

    /// One endpoint mapping: where it answers (`http` or `graphQL`) and how (`response`,
    /// `javascript` or `javascriptFile`).
    mutating func endpoint(_ node: Node, file: URL) throws -> [RouteSpec] {
        let path = file.path
        let line = node.mark?.line
        for key in node.mapping?.keys.compactMap(\.string) ?? [] where !Self.endpointKeys.contains(key) {
            throw VoodooError.at(
                path, node[key]?.mark?.line ?? line,
                "unknown key \(key): an endpoint has \(Self.endpointKeys.sorted().joined(separator: ", "))")
        }
        let answers = ["response", "javascript", "javascriptFile"].filter { node[present: $0] != nil }
        guard answers.count == 1 else {
            throw VoodooError.at(
                path, line,
                answers.isEmpty
                    ? "the endpoint has no response: give one of response, javascript, javascriptFile"
                    : "the endpoint has \(answers.joined(separator: " and ")): give exactly one")
        }
        let target:
            (
                method: HTTPMethod, path: String, predicate: (@Sendable (MockRequest) -> Bool)?, name: String,
                explanation: (@Sendable (MockRequest) -> String?)?
            )
        if let http = node[present: "http"] {
            guard node[present: "graphQL"] == nil else {
                throw VoodooError.at(path, line, "the endpoint has both http and graphQL: give one")
            }
            guard let api = http[present: "api"]?.scalar?.string else {
                throw VoodooError.at(path, http.mark?.line ?? line, "http needs api: \"<method> <path>\", as in api: \"get /users/:id\"")
            }
            let parts = api.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2 else {
                throw VoodooError.at(
                    path, http["api"]?.mark?.line ?? line,
                    "api must be \"<method> <path>\" (two parts separated by a space), got \"\(api)\"")
            }
            target = (HTTPMethod(String(parts[0]).uppercased()), String(parts[1]), nil, "\(parts[0].uppercased()) \(parts[1])", nil)
        } else if let graphQL = node[present: "graphQL"] {
            let operations = graphQL[present: "operations"].map { node in
                node.sequence.map { $0.compactMap(\.string) } ?? node.string.map { [$0] } ?? []
            }
            let selector = try VoodooGraphQLSelector(
                method: graphQL[present: "method"]?.string, operations: operations, query: graphQL[present: "query"]?.string,
                parser: self.graphQL, file: path, line: graphQL.mark?.line ?? line)
            target = (
                selector.method, "/graphql", { selector.matches($0) }, "GraphQL \(selector.description)", { selector.mismatch($0) }
            )
        } else {
            throw VoodooError.at(path, line, "the endpoint has neither http: { api: \"<method> <path>\" } nor graphQL:")
        }
        let response: MockResponse
        if let responseNode = node[present: "response"] {
            response = try self.response(responseNode, file: file)
        } else {
            let (source, scriptPath, firstLine) = try script(node, file: file)
            guard let scripts else {
                throw VoodooError.at(
                    path, line,
                    "the endpoint \(target.name) has a JavaScript response, and this build has no JavaScript engine: build with the JavaScript trait (swift build --traits JavaScript; on Linux apt-get install libjavascriptcoregtk-4.1-0 to run scripts)"
                )
            }
            do {
                response = try scripts.response(
                    source: source, file: scriptPath, firstLine: firstLine, bodies: VoodooBodies(loader: self, file: file), mock: mock)
            } catch let error as VoodooScriptLoadError {
                // Voodoo loads the rest and fails this endpoint per request.
                let message = "\(error.message) (endpoint \(target.name) in \(path)\(line.map { ":\($0)" } ?? ""))"
                warnings.append(message)
                response = .plaintext(message, status: .internalServerError, lifetime: .eternal)
            }
        }
        var route = RouteSpec(path: target.path, host: host, method: target.method, responses: [response], file: path, line: line ?? 1)
        route.predicate = target.predicate
        route.predicateExplanation = target.explanation
        return [route]
    }

    /// The script's source, the file it is reported in and the line of its first line there.
    private func script(_ node: Node, file: URL) throws -> (String, String, Int) {
        if let inline = node[present: "javascript"] {
            guard let source = inline.scalar?.string else {
                throw VoodooError.at(file.path, inline.mark?.line, "javascript must be a string")
            }
            // A block scalar (`javascript: |`) starts on the line after the key.
            let first = (inline.mark?.line ?? 1) + ((inline.scalar?.style == .literal || inline.scalar?.style == .folded) ? 1 : 0)
            return (source, file.path, first)
        }
        let name = node[present: "javascriptFile"]?.scalar?.string ?? ""
        let line = node["javascriptFile"]?.mark?.line
        let url = URL(fileURLWithPath: name, relativeTo: file.deletingLastPathComponent()).standardizedFileURL
        // Only a script is read: an error may quote what it reads.
        guard ["js", "mjs", "cjs"].contains(url.pathExtension.lowercased()) else {
            throw VoodooError.at(file.path, line, "javascriptFile \(VoodooError.quoted(name)) is not a JavaScript file (.js)")
        }
        guard let source = try? String(contentsOf: url, encoding: .utf8) else {
            throw VoodooError.at(file.path, line, "javascriptFile \(VoodooError.quoted(name)) cannot be read (looked for \(url.path))")
        }
        return (source, url.path, 1)
    }
}
#endif

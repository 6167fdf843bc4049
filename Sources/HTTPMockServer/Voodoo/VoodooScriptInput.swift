#if Server
import Foundation
import HTTPMock

/// What a script receives (`request` and `cache` as JSON text, which is JavaScript) and how its
/// answer turns back into a response.
struct VoodooScriptInput: Sendable {
    let requestJSON: String
    let cacheJSON: String
    let store: [String: JSONValue]

    init(request: MockRequest, store: [String: JSONValue]) {
        self.store = store
        var headers: [String: JSONValue] = [:]
        for (name, value) in request.headers { headers[name] = .string(value) }
        var queryParameters: [String: JSONValue] = [:]
        for item in request.queryItems {
            let value = JSONValue.string(item.value ?? "")
            switch queryParameters[item.name] {
            case nil: queryParameters[item.name] = value
            case .array(let values)?: queryParameters[item.name] = .array(values + [value])
            case let first?: queryParameters[item.name] = .array([first, value])
            }
        }
        let path = request.url.path.isEmpty ? "/" : request.url.path
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let body = request.body.map { String(decoding: $0, as: UTF8.self) }
        let bodyJSON = request.body.flatMap { try? JSONDecoder().decode(JSONValue.self, from: $0) }
        let object: [String: JSONValue] = [
            "method": .string(request.method.rawValue),
            "headers": .object(headers),
            "path": .string(path),
            "pathComponents": .array(request.url.pathComponents.map(JSONValue.string)),
            "pathParameters": .object(request.pathParameters.mapValues(JSONValue.string)),
            "query": components?.percentEncodedQuery.map(JSONValue.string) ?? .null,
            "queryParameters": .object(queryParameters),
            "body": body.map(JSONValue.string) ?? .null,
            "bodyJSON": bodyJSON ?? .null,
            "formParameters": .object(request.formParameters.mapValues(JSONValue.string)),
        ]
        requestJSON = VoodooYAML.text(of: .object(object))
        cacheJSON = VoodooYAML.text(of: .object(store))
    }

    /// Reads `__voodooCall`'s JSON: the response and the cache as the script left it.
    func decode(_ text: String) throws -> VoodooScriptResult {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        guard let response = value["response"] else { throw HTTPMockError(.mockTree, "the script returned no response") }
        var changes: [String: JSONValue?] = [:]
        if case .object(let cache)? = value["cache"] {
            for (key, value) in cache where store[key] != value { changes[key] = value }
            for key in store.keys where cache[key] == nil { changes[key] = .some(nil) }
        }
        return VoodooScriptResult(response: response, cacheChanges: changes)
    }

    /// A `Response` helper's object as an answer; its body through the same rules as YAML's.
    static func answer(_ response: JSONValue, bodies: VoodooBodies) throws -> VoodooAnswer {
        let status: Int
        switch response["status"] {
        case .integer(let code)?: status = code
        case .double(let code)? where code == code.rounded(): status = Int(code)
        default: throw HTTPMockError(.mockTree, "the response's status is not a number: \(response["status"] ?? .null)")
        }
        guard (100...599).contains(status) else { throw HTTPMockError(.mockTree, "the response's status \(status) is not an HTTP status") }
        var headers: [String: String] = [:]
        if case .object(let object)? = response["headers"] {
            for (name, value) in object {
                if case .string(let string) = value { headers[name] = string } else { headers[name] = VoodooYAML.text(of: value) }
            }
        }
        var body = VoodooBody(source: .empty)
        if case .object? = response["body"], let bodyValue = response["body"] {
            guard case .string(let kind)? = bodyValue["kind"] else {
                throw HTTPMockError(.mockTree, "the response's body is not made with Body.…")
            }
            var templateData: [String: JSONValue] = [:]
            if case .object(let data)? = bodyValue["templateData"] { templateData = data }
            var contentType: String?
            if case .string(let type)? = bodyValue["contentType"] { contentType = type }
            body = try bodies.body(kind: kind, value: bodyValue["value"], contentType: contentType, templateData: templateData, line: nil)
        } else if case .string(let text)? = response["body"] {
            body = VoodooBody(source: .rendered(text: text, template: nil, contentType: "text/plain"))
        }
        return VoodooAnswer(status: status, headers: headers, body: body)
    }
}
#endif

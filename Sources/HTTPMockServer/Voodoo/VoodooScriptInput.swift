#if Server
import Foundation
import HTTPMock

/// What a script receives, as Voodoo gives it: `request` as JSON text (a header sent
/// more than once is an array of its values, once a string; `bodyJSON` the parsed body), and the
/// body's bytes, which become an `ArrayBuffer`. Then how its answer turns back into a response.
struct VoodooScriptInput: Sendable {
    let requestJSON: String
    let body: Data?

    init(request: MockRequest) {
        var headers: [String: JSONValue] = [:]
        for (name, _) in request.headers where headers[name] == nil {
            let values = request.headers.values(named: name)
            headers[name] = values.count == 1 ? .string(values[0]) : .array(values.map(JSONValue.string))
        }
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
        // In the order the client sent its members, as `JSON.parse` gives them in Voodoo.
        let bodyJSON = request.body.flatMap { try? JSONReader.parseOrdered($0) }
        let object: [String: JSONValue] = [
            "method": .string(request.method.rawValue),
            "headers": .object(headers),
            "path": .string(path),
            "pathComponents": .array(request.url.pathComponents.map(JSONValue.string)),
            "pathParameters": .object(request.pathParameters.mapValues(JSONValue.string)),
            "query": components?.percentEncodedQuery.map(JSONValue.string) ?? .null,
            "queryParameters": .object(queryParameters),
            "formParameters": .object(request.formParameters.mapValues(JSONValue.string)),
        ]
        // The object's text, then `bodyJSON` written in document order (a `JSONValue` keeps none).
        let text = VoodooYAML.text(of: .object(object))
        requestJSON = text.dropLast() + ",\"bodyJSON\":" + (bodyJSON?.compactJSON ?? "null") + "}"
        body = request.body
    }

    /// Reads `__voodooCall`'s JSON: the response, and the cache keys the script changed from
    /// `store` (`nil`: removed).
    static func decode(_ text: String, store: [String: JSONValue]) throws -> (JSONValue, [String: JSONValue?]) {
        let value = try JSONReader.parse(text)
        guard let response = value["response"] else { throw HTTPMockError(.mockTree, "the script returned no response") }
        var changes: [String: JSONValue?] = [:]
        if case .object(let cache)? = value["cache"] {
            for (key, value) in cache where store[key] != value { changes[key] = value }
            for key in store.keys where cache[key] == nil { changes[key] = .some(nil) }
        }
        return (response, changes)
    }

    /// A `Response` helper's object as an answer; its body through the same rules as YAML's.
    /// Whatever could not go on the wire (a status that is not a final HTTP status, a header name
    /// that is not a token, a value with CR or LF) is an error naming it, answered 500.
    static func answer(_ response: JSONValue, bodies: VoodooBodies) throws -> VoodooAnswer {
        let status: Int
        switch response["status"] {
        case .integer(let code)?:
            status = code
        case .double(let code)?:
            // `Response.raw(Number("1e300"), …)`: checked, never trapped in a conversion.
            guard let code = Int(exactly: code) else {
                throw HTTPMockError(.invalidRegistration, "the response's status \(code) is not an HTTP status (200…599)")
            }
            status = code
        case let other:
            throw HTTPMockError(
                .invalidRegistration, "the response's status is not a number: \(other.map(VoodooYAML.text(of:)) ?? "nothing")")
        }
        guard (200...599).contains(status) else {
            let why = (100...199).contains(status) ? " (1xx is not a final response)" : ""
            throw HTTPMockError(.invalidRegistration, "the response's status \(status) is not an HTTP status (200…599)\(why)")
        }
        var headers: [String: String] = [:]
        if case .object(let object)? = response["headers"] {
            for (name, value) in object.sorted(by: { $0.key < $1.key }) {
                let text: String
                switch value {
                case .string(let string): text = string
                case .null: continue
                default: text = VoodooYAML.text(of: value)
                }
                if let problem = HTTPHeaders.problem(name: name, value: text) {
                    throw HTTPMockError(.invalidRegistration, "the response cannot be sent: \(problem)")
                }
                headers[name] = text
            }
        }
        var body = VoodooBody(source: .empty)
        if case .object? = response["body"], let bodyValue = response["body"] {
            guard case .string(let kind)? = bodyValue["kind"] else {
                throw HTTPMockError(.invalidRegistration, "the response's body is not made with Body.…")
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

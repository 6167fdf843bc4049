import Foundation

/// The names a response template can use, and the context they are read from per request.
enum TemplateNames {
    static let roots = ["request", "store", "now", "uuid"]
    static let requestNames = ["method", "url", "path", "pathParameters", "query", "headers", "json", "form"]

    /// Rejects a top-level name whose root HTTPMock does not provide.
    static func check(_ name: Template.Name) -> String? {
        guard let root = name.parts.first else { return nil }  // `.`: the whole context
        guard roots.contains(root) else {
            return "unknown name \"\(name.text)\": names start with \(roots.map { "\($0)" }.joined(separator: ", "))"
        }
        if root == "request", name.parts.count > 1, !requestNames.contains(name.parts[1]) {
            return "unknown name \"\(name.text)\": request has \(requestNames.joined(separator: ", "))"
        }
        return nil
    }

    /// Everything a template can read about `request`, with `store` as it is now.
    static func context(for request: MockRequest, store: MockStore) -> JSONValue {
        var query: [String: JSONValue] = [:]
        for item in request.queryItems where query[item.name] == nil {
            query[item.name] = .string(item.value ?? "")
        }
        var headers: [String: JSONValue] = [:]
        for (name, value) in request.headers {
            headers[name.lowercased()] = .string(value)
        }
        let requestObject: [String: JSONValue] = [
            "method": .string(request.method.rawValue),
            "url": .string(request.url.absoluteString),
            "path": .string(request.url.path),
            "pathParameters": .object(request.pathParameters.mapValues(JSONValue.string)),
            "query": .object(query),
            "headers": .object(headers),
            "json": request.body.flatMap(JSONValue.parse) ?? .null,
            "form": .object(request.formParameters.mapValues(JSONValue.string)),
        ]
        return .object([
            "request": .object(requestObject),
            "store": .object(store.snapshot),
            "now": .string(ISO8601Text.string(from: Date())),
            "uuid": .string(UUID().uuidString),
        ])
    }
}

extension MockResponse {
    /// A body rendered from a Mustache template when each request is served.
    ///
    /// ```swift
    /// mock.store["user"] = "Ada"
    /// mock.addResponses(forPath: "/orders/:id", responses: [
    ///     .template(#"{"id":"{{request.pathParameters.id}}","by":"{{store.user}}"}"#,
    ///               contentType: "application/json", lifetime: .eternal),
    /// ])
    /// ```
    ///
    /// Variables `{{name}}`, sections `{{#name}}…{{/name}}` (rendered when the value is truthy,
    /// once per element of a list; names inside resolve against the current element first),
    /// inverted sections `{{^name}}…{{/name}}` and comments `{{! … }}`. Nothing is HTML-escaped
    /// (`{{{name}}}` and `{{&name}}` are accepted and mean the same). Names: `request.method`,
    /// `request.url` (absolute), `request.path`, `request.pathParameters.X`, `request.query.X`,
    /// `request.headers.X` (case-insensitive), `request.json.a.b`, `request.form.X`, `store.X`
    /// (``HTTPMock/store``, read at request time), `now` (ISO 8601) and `uuid`. Integers
    /// render without a decimal point, lists and objects as JSON, a missing value as nothing.
    ///
    /// A malformed template (a section never closed, a closing tag that does not match) or a
    /// name with an unknown root is reported at this call site when the response is
    /// registered, with the line and column in the template, and nothing is registered.
    ///
    /// - Parameters:
    ///   - template: The Mustache template of the body.
    ///   - contentType: The `Content-Type`, unless `headers` sets one; `text/plain; charset=utf-8` by default.
    ///   - status: The status, `.ok` by default.
    ///   - headers: Response headers.
    ///   - lifetime: How many requests it answers.
    ///   - delivery: When it is delivered.
    ///   - fileID: The call site, for error reports; leave the default.
    ///   - filePath: The call site, for error reports; leave the default.
    ///   - line: The call site, for error reports; leave the default.
    ///   - column: The call site, for error reports; leave the default.
    public static func template(
        _ template: String,
        contentType: String? = nil,
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let parsed: Template
        do {
            parsed = try Template(parsing: template, checkTopLevelName: TemplateNames.check)
        } catch {
            return .invalid("MockResponse.template: \(error.message)", lifetime: lifetime, delivery: delivery, location: location)
        }
        if let problem = status.finalResponseProblem ?? headers.problems.first {
            return .invalid("MockResponse.template: \(problem)", lifetime: lifetime, delivery: delivery, location: location)
        }
        let contentType = contentType ?? "text/plain; charset=utf-8"
        var declaredHeaders = headers
        if !declaredHeaders.contains("Content-Type") { declaredHeaders["Content-Type"] = contentType }
        let declared = (status: status, headers: declaredHeaders)
        let handler: @Sendable (MockStore) -> DynamicHandler = { store in
            DynamicHandler(
                handler: { request in
                    let body = try await parsed.renderOffThePool(TemplateNames.context(for: request, store: store), location: location)
                    return .http(
                        status: status, headers: headers, body: .data(Data(body.utf8)),
                        defaultContentType: contentType, lifetime: .single, delivery: .instant)
                }, declared: declared)
        }
        // Until it is registered the template reads an empty store; registering binds it to
        // the instance's store.
        var unbound = handler(MockStore())
        unbound.bindStore = handler
        return MockResponse(payload: .dynamic(unbound), lifetime: lifetime, delivery: delivery)
    }

    /// `self`, reading `store` if it is a template.
    func bound(to store: MockStore) -> MockResponse {
        guard case .dynamic(let handler) = payload, let bind = handler.bindStore else { return self }
        return replacingPayload(.dynamic(bind(store)))
    }
}

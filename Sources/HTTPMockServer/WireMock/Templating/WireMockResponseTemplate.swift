#if Server
import Foundation
import HTTPMock

/// A WireMock response rendered per request: `"transformers": ["response-template"]`
/// on the mapping, or global templating (`--global-response-templating`,
/// `loadWireMock(from:globalTemplating:)`). Every template is parsed here, once, at
/// registration: an unknown helper is a mistake naming the helper and the field, never `{{…}}`
/// sent to a client.
///
/// Templated, as WireMock 2.35.1 templates them: `body`, `jsonBody` (its JSON text), the
/// `bodyFileName` (the name and the file's content, unless `transformerParameters` sets
/// `disableBodyFileTemplating`), header values and `proxyBaseUrl`; not `base64Body`. A
/// mapping whose parts hold no template is served as a static response.
struct WireMockResponseTemplate: Sendable {
    enum Body: Sendable {
        case none
        case text(PackageTemplate)
        case bytes(Data)
        /// A file in `folder`: its name rendered or fixed, its content rendered when `content`.
        case file(name: PackageTemplate?, fixedName: String, folder: URL, content: PackageTemplate?, templatesContent: Bool)
        case proxy(PackageTemplate)
    }

    /// The static response with the same status, fixed headers and delivery.
    let twin: MockResponse
    let headers: [(name: String, values: [PackageTemplate])]
    let body: Body
    let parameters: TemplateValue
    /// The body's `Content-Type` when the mapping's headers name none.
    let defaultContentType: String?
    let dialect: TemplateDialect

    /// The names `transformers` may hold.
    static let transformerName = "response-template"

    /// The templated response for `object` (a response definition), or `nil` when templating
    /// does not apply or nothing in it is a template. `staticResponse` makes the response of
    /// a definition without templates (WireMock's other fields, as ``WireMockResponse`` reads them).
    static func make(
        _ object: [String: JSONValue], files: URL?, globalTemplating: Bool, templating: WireMockTemplating = .live,
        staticResponse: ([String: JSONValue]) throws(WireMockMappingError) -> MockResponse
    ) throws(WireMockMappingError) -> MockResponse? {
        var transformers: [String] = []
        if let given = object["transformers"] {
            guard case .array(let names) = given else {
                throw WireMockMappingError(pointer: "/response/transformers", message: "must be a list of names, got \(given)")
            }
            for (index, name) in names.enumerated() {
                guard case .string(let text) = name, text == transformerName else {
                    throw WireMockMappingError(
                        pointer: "/response/transformers/\(index)",
                        message: "unsupported transformer \(name) (HTTPMock runs \(transformerName) only; extensions are not loaded)")
                }
                transformers.append(text)
            }
        }
        guard globalTemplating || transformers.contains(transformerName), object["fault"] == nil else { return nil }
        let dialect = templating.dialect
        let partials = files.map(partialResolver)
        func parsed(_ text: String, _ pointer: String) throws(WireMockMappingError) -> PackageTemplate {
            do {
                return try PackageTemplate(text, dialect: dialect, partials: partials)
            } catch {
                throw WireMockMappingError(pointer: pointer, message: "template: \((error as? HTTPMockError)?.message ?? "\(error)")")
            }
        }
        func parse(_ text: String, _ pointer: String) throws(WireMockMappingError) -> PackageTemplate? {
            text.contains("{{") ? try parsed(text, pointer) : nil
        }
        let parameters = TemplateValue(wireMockParameters: object["transformerParameters"] ?? .object([:]))
        var twinObject = object
        twinObject["transformers"] = nil
        twinObject["transformerParameters"] = nil
        var templated = false

        var headers: [(name: String, values: [PackageTemplate])] = []
        if case .object(let given)? = object["headers"] {
            var fixed = given
            for name in given.keys.sorted() {
                let values: [JSONValue] = if case .array(let list)? = given[name] { list } else { [given[name] ?? .null] }
                let texts = values.compactMap { value -> String? in if case .string(let text) = value { text } else { nil } }
                guard texts.count == values.count, texts.contains(where: { $0.contains("{{") }) else { continue }
                var templates: [PackageTemplate] = []
                for text in texts { templates.append(try parsed(text, "/response/headers/\(name)")) }
                headers.append((name, templates))
                fixed[name] = nil
            }
            twinObject["headers"] = .object(fixed)
            templated = templated || !headers.isEmpty
        }

        var body = Body.none
        var defaultContentType: String?
        if case .string(let text)? = object["body"] {
            body = .text(try parsed(text, "/response/body"))
            templated = templated || text.contains("{{")
            defaultContentType = "text/plain; charset=utf-8"
        } else if let json = object["jsonBody"], json != .null {
            let text = json.compactJSON
            body = .text(try parsed(text, "/response/jsonBody"))
            templated = templated || text.contains("{{")
            defaultContentType = "application/json"
        } else if case .string(let encoded)? = object["base64Body"], let data = Data(base64Encoded: encoded) {
            body = .bytes(data)
        } else if case .string(let name)? = object["bodyFileName"], let folder = files {
            let templatesContent = !(parameters.member("disableBodyFileTemplating")?.isTruthy(.handlebars) ?? false)
            if let nameTemplate = try parse(name, "/response/bodyFileName") {
                body = .file(name: nameTemplate, fixedName: name, folder: folder, content: nil, templatesContent: templatesContent)
                templated = true
                twinObject["bodyFileName"] = nil
            } else {
                var content: PackageTemplate?
                if templatesContent, let url = confined(name, in: folder), let data = FileManager.default.contents(atPath: url.path),
                    let text = String(data: data, encoding: .utf8)
                {
                    content = try parse(text, "/response/bodyFileName (\(name))")
                }
                body = .file(name: nil, fixedName: name, folder: folder, content: content, templatesContent: templatesContent)
                templated = templated || content != nil
            }
        }
        if case .string(let base)? = object["proxyBaseUrl"], let template = try parse(base, "/response/proxyBaseUrl") {
            body = .proxy(template)
            templated = true
            twinObject["proxyBaseUrl"] = nil
        }
        guard templated else { return nil }
        let twin = try staticResponse(twinObject)
        let response = WireMockResponseTemplate(
            twin: twin, headers: headers, body: body, parameters: parameters, defaultContentType: defaultContentType, dialect: dialect)
        return .dynamic(lifetime: .eternal, delivery: twin.delivery) { request in
            do {
                return try await response.respond(to: request)
            } catch {
                // WireMock answers 500 when a template fails; the message says why.
                let message = (error as? HTTPMockError)?.message ?? "\(error)"
                return .rendered(
                    Data("The response template failed: \(message)\n".utf8), status: HTTPStatus(500),
                    headers: ["Content-Type": "text/plain; charset=utf-8"], defaultContentType: nil)
            }
        }
    }

    /// Renders this response for `request`.
    func respond(to request: MockRequest) async throws -> MockResponse {
        let parameters = parameters
        let context: @Sendable () -> TemplateValue = { WireMockTemplating.context(for: request, parameters: parameters) }
        var headers = twin.headers
        for header in self.headers {
            var values: [String] = []
            for template in header.values { values.append(try await template.render(context)) }
            headers[header.name] = values.joined(separator: ", ")
        }
        switch body {
        case .none:
            return .rendered(Data(), status: twin.status, headers: headers, defaultContentType: nil)
        case .bytes(let data):
            return .rendered(data, status: twin.status, headers: headers, defaultContentType: nil)
        case .text(let template):
            let text = try await template.render(context)
            return .rendered(Data(text.utf8), status: twin.status, headers: headers, defaultContentType: defaultContentType)
        case .proxy(let template):
            let base = try await template.render(context)
            guard let url = URL(string: base), url.scheme != nil, url.host != nil else {
                throw HTTPMockError(.invalidRegistration, "proxyBaseUrl rendered as \(base), which is not a URL like http://localhost:8000")
            }
            return .forward(to: url)
        case .file(let nameTemplate, let fixedName, let folder, let content, let templatesContent):
            let name = try await nameTemplate?.render(context) ?? fixedName
            guard let url = Self.confined(name, in: folder), FileManager.default.fileExists(atPath: url.path) else {
                throw HTTPMockError(.fixtureUnreadable, "bodyFileName: no file \(name) in \(folder.path)")
            }
            let type = MockResponse.contentType(forPathExtension: url.pathExtension)
            if let content {
                let text = try await content.render(context)
                return .rendered(Data(text.utf8), status: twin.status, headers: headers, defaultContentType: type)
            }
            guard templatesContent, nameTemplate != nil else { return .file(url: url, status: twin.status, headers: headers) }
            // A name known only now: its content is parsed now (WireMock does the same per request).
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw HTTPMockError(.fixtureUnreadable, "bodyFileName: \(url.path) cannot be read")
            }
            guard let text = String(data: data, encoding: .utf8), text.contains("{{") else {
                return .rendered(data, status: twin.status, headers: headers, defaultContentType: type)
            }
            let template = try PackageTemplate(text, dialect: dialect, partials: Self.partialResolver(folder))
            let rendered = try await template.render(context)
            return .rendered(Data(rendered.utf8), status: twin.status, headers: headers, defaultContentType: type)
        }
    }

    /// Whether `response` holds `{{` in a part templating would render, while its mapping does
    /// not ask for templating (served as written).
    static func holdsUnrenderedTags(_ response: JSONValue) -> Bool {
        guard case .object(let object) = response else { return false }
        if case .array(let names)? = object["transformers"], names.contains(.string(transformerName)) { return false }
        var texts: [String] = []
        for key in ["body", "bodyFileName", "proxyBaseUrl"] {
            if case .string(let text)? = object[key] { texts.append(text) }
        }
        if let json = object["jsonBody"] { texts.append(json.compactJSON) }
        if case .object(let headers)? = object["headers"] { texts += headers.values.map(\.compactJSON) }
        return texts.contains { $0.contains("{{") }
    }

    /// `name` inside `folder`, or `nil` when it would leave it (`..`, an absolute path, a
    /// symbolic link pointing out).
    static func confined(_ name: String, in folder: URL) -> URL? {
        try? ConfinedPath.file(named: name, in: folder).get()
    }

    /// Partials `{{> name}}` from `__files/` (`name`, else `name.hbs`), confined to it.
    static func partialResolver(_ folder: URL) -> (String) throws -> String? {
        { name in
            for candidate in [name, name + ".hbs"] {
                guard let url = confined(candidate, in: folder) else {
                    throw HTTPMockError(.mockTree, "\(name) is outside \(folder.path)")
                }
                if let data = FileManager.default.contents(atPath: url.path) { return String(decoding: data, as: UTF8.self) }
            }
            return nil
        }
    }
}

extension TemplateValue {
    /// `transformerParameters` as WireMock's templates see them: objects as Java maps.
    init(wireMockParameters json: JSONValue) {
        switch json {
        case .object(let object):
            self = .object(TemplateMap(object.keys.sorted().map { ($0, TemplateValue(wireMockParameters: object[$0] ?? .null)) }))
        case .array(let elements):
            self = .array(elements.map(TemplateValue.init(wireMockParameters:)))
        default:
            self = TemplateValue(scalar: json)
        }
    }
}
#endif

#if Server
import Foundation
import HTTPMock
import Yams

/// Where a Voodoo file's body files and templates are found: beside the YAML file, then in each
/// `--file-dir`, then from the working directory; templates in `--template-dir`.
struct VoodooBodies: Sendable {
    let file: URL
    let templates: VoodooTemplates?
    let fileDirectories: [URL]

    init(loader: VoodooLoader, file: URL) {
        self.file = file
        templates = loader.templates
        fileDirectories = loader.fileDirectories
    }

    func fileURL(_ path: String) -> URL? {
        if path.hasPrefix("/") { return FileManager.default.fileExists(atPath: path) ? URL(fileURLWithPath: path) : nil }
        let bases = [file.deletingLastPathComponent()] + fileDirectories + [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        return bases.map { $0.appendingPathComponent(path).standardizedFileURL }.first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// The template `name` (its path inside the template directory, `.json` when it has no extension).
    func template(_ name: String, line: Int?) throws -> PackageTemplate {
        guard let templates else {
            throw VoodooError.at(
                file.path, line, "the template \(VoodooError.quoted(name)) needs a template directory (--template-dir, templateDirectory:)")
        }
        do {
            return try templates.template(name)
        } catch {
            throw VoodooError.at(file.path, line, error.description)
        }
    }

    /// A body from its kind and value, as YAML's `body:` and JavaScript's `Body` helpers give it.
    func body(kind: String, value: JSONValue?, contentType: String?, templateData: [String: JSONValue], line: Int?) throws -> VoodooBody {
        func text(_ value: JSONValue?) -> String {
            if case .string(let string) = value { return string }
            return value.map(VoodooYAML.text(of:)) ?? ""
        }
        switch kind {
        case "empty":
            return VoodooBody(source: .empty)
        case "text":
            return try .text(
                text(value), contentType: "text/plain", templateData: templateData, templates: templates, file: file.path, line: line)
        case "json":
            return try .text(
                text(value), contentType: "application/json", templateData: templateData, templates: templates, file: file.path, line: line)
        case "yaml":
            let yaml: String
            if case .string(let string) = value {
                yaml = string
            } else {
                yaml = (try? Yams.dump(object: value.map(Self.plain) ?? NSNull())) ?? ""
            }
            return try .text(
                yaml, contentType: "application/yaml", templateData: templateData, templates: templates, file: file.path, line: line)
        case "file":
            let path = text(value)
            guard let url = fileURL(path) else {
                throw VoodooError.at(
                    file.path, line,
                    "the body file \(VoodooError.quoted(path)) is neither beside the YAML file, nor in a --file-dir, nor in the working directory"
                )
            }
            return VoodooBody(source: .file(url, contentType: contentType ?? "application/json"), templateData: templateData)
        case "template":
            let template = try template(text(value), line: line)
            return VoodooBody(
                source: .rendered(text: "", template: template, contentType: contentType ?? "application/json"), templateData: templateData)
        default:
            throw VoodooError.at(file.path, line, "unknown body kind \(kind): use text, json, yaml, file or template")
        }
    }

    /// A JSON value as Foundation objects, for Yams' emitter.
    static func plain(_ value: JSONValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let bool): return bool
        case .integer(let int): return int
        case .double(let double): return double
        case .string(let string): return string
        case .array(let array): return array.map(plain)
        case .object(let object): return object.mapValues(plain)
        }
    }
}

/// A response computed from status, headers, body and redirect URL.
struct VoodooAnswer: Sendable {
    var status: Int
    var headers: [String: String]
    var body: VoodooBody

    func response(for request: MockRequest, mock: HTTPMock) throws -> MockResponse {
        let (data, contentType) = try body.render(for: request, mock: mock)
        return Self.response(data, contentType: contentType, status: status, headers: headers, lifetime: .single)
    }

    /// `data` with `contentType` unless `headers` names one; an empty body without a type sends no
    /// `Content-Type` at all, as Voodoo.
    static func response(
        _ data: Data, contentType: String?, status: Int, headers: [String: String], lifetime: Lifetime
    ) -> MockResponse {
        let headers = HTTPHeaders(headers)
        guard let contentType, !contentType.isEmpty else {
            if data.isEmpty { return .empty(status: HTTPStatus(status), headers: headers, lifetime: lifetime) }
            return .data(data, contentType: nil, status: HTTPStatus(status), headers: headers, lifetime: lifetime)
        }
        return .data(data, contentType: contentType, status: HTTPStatus(status), headers: headers, lifetime: lifetime)
    }
}

extension VoodooLoader {
    static let responseKeys: Set<String> = ["status", "headers", "body", "url"]
    static let bodyKinds = ["text", "json", "yaml", "file", "template"]

    /// `response:`: `status`, `headers`, `body`, `url`.
    func response(_ node: Node, file: URL) throws -> MockResponse {
        let path = file.path
        guard node.mapping != nil else {
            throw VoodooError.at(path, node.mark?.line, "response must be a mapping with status, headers, body, url")
        }
        for key in node.mapping?.keys.compactMap(\.string) ?? [] where !Self.responseKeys.contains(key) {
            throw VoodooError.at(
                path, node[key]?.mark?.line,
                "unknown key response.\(key): a response has \(Self.responseKeys.sorted().joined(separator: ", "))")
        }
        guard let status = node[present: "status"]?.int, (200...599).contains(status) else {
            let got = node[present: "status"].map { VoodooError.quoted($0.string ?? "a \($0.mapping != nil ? "mapping" : "list")") }
            throw VoodooError.at(
                path, node["status"]?.mark?.line ?? node.mark?.line,
                "response.status must be an HTTP status code from 200 to 599 (1xx is not a final response), got \(got ?? "nothing")")
        }
        var headers: [String: String] = [:]
        if let headersNode = node[present: "headers"] {
            guard let mapping = headersNode.mapping else {
                throw VoodooError.at(path, headersNode.mark?.line, "response.headers must be a mapping of names to values")
            }
            for (nameNode, valueNode) in mapping {
                guard let name = nameNode.string, let value = valueNode.scalar?.string else {
                    throw VoodooError.at(path, valueNode.mark?.line, "response.headers must map names to text values")
                }
                if let problem = HTTPHeaders.problem(name: name, value: value) {
                    throw VoodooError.at(path, valueNode.mark?.line, "response.headers: \(problem)")
                }
                headers[name] = value
            }
        }
        if let url = node[present: "url"]?.string { headers["Location"] = url }
        var body = VoodooBody(source: .empty)
        if let bodyNode = node[present: "body"] {
            body = try self.body(bodyNode, file: file)
        }
        let answer = VoodooAnswer(status: status, headers: headers, body: body)
        if let (data, contentType) = body.staticData {
            return VoodooAnswer.response(data, contentType: contentType, status: status, headers: headers, lifetime: .eternal)
        }
        let mock = self.mock
        return .dynamic(lifetime: .eternal) { [weak mock] request in
            guard let mock else { throw HTTPMockError(.instanceDeallocated, "The HTTPMock of this Voodoo endpoint no longer exists.") }
            return try answer.response(for: request, mock: mock)
        }
    }

    private func body(_ node: Node, file: URL) throws -> VoodooBody {
        // Voodoo's order when a body names more than one kind: the first present wins.
        guard node.mapping != nil, let kind = Self.bodyKinds.first(where: { node[present: $0] != nil }), let value = node[present: kind]
        else {
            throw VoodooError.at(
                file.path, node.mark?.line, "response.body must have one of \(Self.bodyKinds.joined(separator: ", "))")
        }
        var templateData: [String: JSONValue] = [:]
        if let data = node[present: "templateData"] {
            guard case .object(let object) = VoodooYAML.json(data) else {
                throw VoodooError.at(file.path, data.mark?.line, "response.body.templateData must be a mapping")
            }
            templateData = object
        }
        let bodies = VoodooBodies(loader: self, file: file)
        let json: JSONValue = value.scalar != nil && kind != "json" && kind != "yaml" ? .string(value.string ?? "") : VoodooYAML.json(value)
        if kind == "yaml", value.scalar == nil {
            let text = (try? Yams.serialize(node: value)) ?? ""
            return try .text(
                text, contentType: "application/yaml", templateData: templateData, templates: templates, file: file.path,
                line: value.mark?.line)
        }
        return try bodies.body(
            kind: kind, value: json, contentType: node[present: "contentType"]?.string, templateData: templateData, line: value.mark?.line)
    }
}
#endif

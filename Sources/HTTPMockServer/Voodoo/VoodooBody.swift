#if Server
import Foundation
import HTTPMock
import Yams

/// A Voodoo body, ready to render per request (Mustache with §16's and Voodoo's names).
struct VoodooBody: Sendable {
    enum Source: Sendable {
        case empty
        /// Text to render, with the Content-Type to send; `nil` template: static text.
        case rendered(text: String, template: PackageTemplate?, contentType: String)
        case file(URL, contentType: String)
    }

    var source: Source
    var templateData: [String: JSONValue] = [:]

    /// A body whose bytes never change (nothing to render, no file to read per request).
    var staticData: (Data, String)? {
        switch source {
        case .empty: return (Data(), "")
        case .rendered(let text, nil, let contentType): return (Data(text.utf8), contentType)
        default: return nil
        }
    }

    /// Text with Mustache tags becomes a template (its `{{> partials}}` from `templates`); a
    /// malformed one is an error at `line`.
    static func text(
        _ text: String, contentType: String, templateData: [String: JSONValue], templates: VoodooTemplates?, file: String, line: Int?
    ) throws -> VoodooBody {
        var template: PackageTemplate?
        if text.contains("{{") {
            do {
                template = try PackageTemplate(text, partials: templates?.partials)
            } catch {
                throw VoodooError.at(file, line, "the body is not a valid template: \(error)")
            }
        }
        return VoodooBody(source: .rendered(text: text, template: template, contentType: contentType), templateData: templateData)
    }

    /// The body's bytes and Content-Type for `request` (`nil` Content-Type: none).
    func render(for request: MockRequest, mock: HTTPMock) throws -> (Data, String?) {
        switch source {
        case .empty:
            return (Data(), nil)
        case .rendered(let text, let template, let contentType):
            guard let template else { return (Data(text.utf8), contentType) }
            return (Data(try template.render(Self.context(for: request, mock: mock, templateData: templateData)).utf8), contentType)
        case .file(let url, let contentType):
            do {
                return (try Data(contentsOf: url), contentType)
            } catch {
                throw HTTPMockError(.fixtureUnreadable, "The Voodoo file body \(url.path) cannot be read: \(error.localizedDescription)")
            }
        }
    }

    /// §16's names, every store key at the top level, `mockServer` and `templateData` (which wins).
    static func context(for request: MockRequest, mock: HTTPMock, templateData: [String: JSONValue]) -> JSONValue {
        var object = mock.store.snapshot
        if case .object(let names) = mock.templateContext(for: request) { object.merge(names) { _, new in new } }
        object["mockServer"] = .string(request.headers["Host"] ?? request.url.host ?? "")
        object.merge(templateData) { _, new in new }
        return .object(object)
    }
}

/// Turns YAML values into JSON values and JSON text.
enum VoodooYAML {
    static func json(_ node: Node) -> JSONValue {
        switch node {
        case .scalar(let scalar):
            if scalar.style == .plain {
                if node.null != nil { return .null }
                if let bool = node.bool { return .bool(bool) }
                if let int = node.int { return .integer(int) }
                // JSON has no infinity or NaN (`.inf`, `.nan`): kept as the text written.
                if let double = node.float { return double.isFinite ? .double(double) : .string(scalar.string) }
            }
            return .string(scalar.string)
        case .mapping(let mapping):
            var object: [String: JSONValue] = [:]
            for (key, value) in mapping { object[key.string ?? "\(key)"] = json(value) }
            return .object(object)
        case .sequence(let sequence):
            return .array(sequence.map(json))
        case .alias:
            return .null
        }
    }

    static func text(of value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}
#endif

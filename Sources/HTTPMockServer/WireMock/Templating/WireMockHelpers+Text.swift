#if Server
import Foundation
import HTTPMock

// WireMock's text helpers. Outputs compared with WireMock 2.35.1 (the jar PyPI's `wiremock`
// ships, `--global-response-templating`), e.g.:
//   {{base64 'hello'}} → aGVsbG8&#x3D;          {{{base64 'hello'}}} → aGVsbG8=
//   {{urlEncode 'a b&c=d/é'}} → a+b%26c%3Dd%2F%C3%A9   {{capitalize 'hello world'}} → Hello World
//   {{join 'x' 'y' ';' prefix='[' suffix=']'}} → [x;y]   {{join request.query.a '-'}} → 1-2
//   {{size 'abc'}} → 3   {{size request.query.a}} (a=1&a=2) → 2
//   {{regexExtract 'abc' '[0-9]+'}} → [ERROR: Nothing matched [0-9]+]
//   {{regexExtract 'a1b22' '([a-z])([0-9]+)' 'parts'}}{{parts.0}}-{{parts.1}} → a-1
//   {{formData request.body 'f'}}{{f.b.[1]}} (a=1&b=x&b=y) → y
//   {{matches 'abcd' 'b'}} → false (the whole text must match)

extension WireMockTemplating {
    static let textHelpers: [String: TemplateHelper] = [
        "trim": TemplateHelper(blockUse: .content) { call in
            .string(subject(call).trimmingCharacters(in: .whitespacesAndNewlines))
        },
        "upper": TemplateHelper { call in .string(subject(call).uppercased()) },
        "lower": TemplateHelper { call in .string(subject(call).lowercased()) },
        "capitalize": TemplateHelper { call in
            var result = ""
            var atWordStart = true
            for character in subject(call) {
                result += atWordStart ? character.uppercased() : String(character)
                atWordStart = character.isWhitespace
            }
            return .string(result)
        },
        "base64": TemplateHelper(blockUse: .content) { call in
            let text = subject(call)
            if call.hash("decode")?.isTruthy(.handlebars) == true {
                var padded = text.trimmingCharacters(in: .whitespacesAndNewlines)
                while padded.count % 4 != 0 { padded += "=" }
                guard let data = Data(base64Encoded: padded) else { return failure("\(text) is not base64") }
                return .string(String(decoding: data, as: UTF8.self))
            }
            var encoded = Data(text.utf8).base64EncodedString()
            if call.hash("padding")?.isTruthy(.handlebars) == false {
                while encoded.last == "=" { encoded.removeLast() }
            }
            return .string(encoded)
        },
        "urlEncode": TemplateHelper(blockUse: .content) { call in
            let text = subject(call)
            if call.hash("decode")?.isTruthy(.handlebars) == true {
                return .string(text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text)
            }
            return .string(formEncoded(text))
        },
        "size": TemplateHelper { call in
            let value = call.argument(0) ?? .null
            switch value {
            case .string(let text), .json(.string(let text)): return .integer(text.utf16.count)
            default:
                if let elements = value.elements { return .integer(elements.count) }
                return .integer(value.isNull ? 0 : value.helperText.utf16.count)
            }
        },
        "join": TemplateHelper { call throws(TemplateHelperError) in try join(call) },
        "contains": TemplateHelper(blockUse: .condition) { call in
            guard call.positional.count >= 2 else {
                return failure("You must specify the string or array to be matched and the regular expression")
            }
            let needle = call.positional[1].helperText
            if let elements = call.positional[0].elements, !isText(call.positional[0]) {
                return .bool(elements.contains { $0.value.helperText == needle })
            }
            return .bool(call.positional[0].helperText.containsText(needle))
        },
        "matches": TemplateHelper(
            blockUse: .condition,
            prepare: { site throws(TemplateHelperError) in try site.positional.count > 1 ? site.positional[1].map(compiled) : nil },
            call: { call throws(TemplateHelperError) in
                guard call.positional.count >= 2 else {
                    return failure("You must specify the string to be matched and the regular expression")
                }
                let regex = try reuse(call) { () throws(TemplateHelperError) in try compiled(call.positional[1]) }
                return .bool(regex.matchesWhole(call.positional[0].helperText))
            }),
        "regexExtract": TemplateHelper(
            prepare: { site throws(TemplateHelperError) in try site.positional.count > 1 ? site.positional[1].map(search) : nil },
            call: { call throws(TemplateHelperError) in try regexExtract(&call) }),
        "lookup": TemplateHelper { call in
            guard let object = call.argument(0), let key = call.argument(1) else { return .null }
            return object.member(key.helperText) ?? .null
        },
        "val": TemplateHelper { call in
            var value = call.argument(0) ?? .null
            if value.isNull { value = call.hash("default") ?? call.hash("or") ?? .null }
            if let name = call.hash("assign") {
                call.assignments.append((name.helperText, value))
                return .string("")
            }
            return value
        },
        "formData": TemplateHelper { call in
            guard let body = call.argument(0), let name = call.argument(1) else {
                return failure("formData needs the form text and a variable name")
            }
            let decode = call.hash("urlDecode")?.isTruthy(.handlebars) == true
            var order: [String] = []
            var values: [String: [TemplateValue]] = [:]
            for pair in body.helperText.split(separator: "&", omittingEmptySubsequences: true) {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                func read(_ text: Substring) -> String {
                    decode ? (String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)) : String(text)
                }
                let key = read(parts[0])
                if values[key] == nil { order.append(key) }
                values[key, default: []].append(.string(parts.count > 1 ? read(parts[1]) : ""))
            }
            call.assignments.append((name.helperText, .object(TemplateMap(order.map { ($0, .listOrSingle(values[$0] ?? [])) }))))
            return .string("")
        },
    ]

    /// What a one-argument text helper works on: the block, else the first argument, else the
    /// current context (Handlebars.java's `context`).
    static func subject(_ call: TemplateHelperCall) -> String {
        call.blockContent ?? call.argument(0)?.helperText ?? ""
    }

    static func isText(_ value: TemplateValue) -> Bool {
        switch value {
        case .string, .json(.string): return true
        default: return false
        }
    }

    /// Java's `URLEncoder.encode(text, UTF-8)`: letters, digits and `.-*_` kept, space `+`,
    /// every other byte `%XX`.
    static func formEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            if ASCIIBytes.isAlphanumeric(byte) || ".-*_".utf8.contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else if byte == UInt8(ascii: " ") {
                result += "+"
            } else {
                result += String(format: "%%%02X", byte)
            }
        }
        return result
    }

    /// Handlebars.java's `join` as WireMock 2.35.1 has it: `{{join items… separator}}` (the
    /// first argument's elements when it is a list, then the others, joined by the last),
    /// `prefix=`, `suffix=`; and WireMock 3's `{{join separator list}}`.
    static func join(_ call: TemplateHelperCall) throws(TemplateHelperError) -> TemplateValue {
        var arguments = call.positional
        guard arguments.count >= 2 else { throw TemplateHelperError("found no separator: {{join items… separator}}") }
        let separator: String
        var items: [TemplateValue] = []
        if arguments.count == 2, isText(arguments[0]), !isText(arguments[1]), let list = arguments[1].elements {
            separator = arguments[0].helperText
            items = list.map(\.value)
        } else {
            let last = arguments.removeLast()
            guard isText(last) else { throw TemplateHelperError("found \(last.helperText), expected a separator as the last argument") }
            separator = last.helperText
            let first = arguments.removeFirst()
            if !first.isTruthy(.handlebars) { return .string("") }
            if let elements = first.elements, !isText(first) { items = elements.map(\.value) } else { items = [first] }
            items += arguments
        }
        let prefix = call.hash("prefix")?.helperText ?? ""
        let suffix = call.hash("suffix")?.helperText ?? ""
        return .string(prefix + items.map(\.helperText).joined(separator: separator) + suffix)
    }

    static func compiled(_ pattern: TemplateValue) throws(TemplateHelperError) -> TextRegex {
        do {
            return try TextRegex(pattern.helperText)
        } catch {
            throw TemplateHelperError("\(pattern.helperText) is not a regular expression: \(error.message)")
        }
    }

    static func search(_ pattern: TemplateValue) throws(TemplateHelperError) -> TextSearch {
        do {
            return try TextSearch(pattern.helperText)
        } catch {
            throw TemplateHelperError("\(pattern.helperText) is not a regular expression: \(error.message)")
        }
    }

    /// `{{regexExtract text pattern}}`: the first match; with a variable name, its groups
    /// become that variable (a list) and nothing is written; `default=` when nothing matches.
    static func regexExtract(_ call: inout TemplateHelperCall) throws(TemplateHelperError) -> TemplateValue {
        guard call.positional.count >= 2 else {
            return failure("You must specify the string to be matched and the regular expression")
        }
        let search = try reuse(call) { () throws(TemplateHelperError) in try Self.search(call.positional[1]) }
        switch search.firstMatch(in: call.positional[0].helperText) {
        case .found(let match, let groups):
            if let name = call.argument(2) {
                call.assignments.append((name.helperText, .array(groups.map { $0.map(TemplateValue.string) ?? .null })))
                return .string("")
            }
            return .string(match)
        case .none, .gaveUp:
            if let fallback = call.hash("default") { return fallback }
            return failure("Nothing matched \(search.pattern)")
        }
    }
}
#endif

import Foundation
import FuzzSupport

@testable import HTTPMock

/// The template parser (`Template(parsing:dialect:partials:)`, SPEC §11.8, §21) and its
/// renderer, in both syntaxes: any text parses, or is rejected with an error that starts with
/// the `line:column` of the problem; what parses renders against a context with lists and
/// nested objects, and a render either ends or stops at its step or output budget (kept small
/// here: a step may interpolate a whole list, and a runaway section must be stopped by the
/// budget well within the 100 ms limit).
///
/// The first byte picks the dialect: even, Mustache (HTTPMock's own); odd, Handlebars with a
/// small helper table of each kind (value, condition, block content, assignment, a prepared
/// argument). Both resolve partials from a fixed table that holds a cycle and a deep chain.
let item: JSONValue = .object(["id": .integer(7), "name": .string("Ada"), "tags": .array([.string("a"), .bool(true), .null])])
let context: JSONValue = .object([
    "request": .object([
        "path": .string("/users/7"), "query": .object(["id": .string("7")]), "headers": .object(["Accept": .string("*/*")]),
    ]),
    "store": .object(["big": .array(Array(repeating: item, count: 64)), "flag": .bool(false), "count": .integer(0)]),
    "items": .array([item, item, .string("x"), .double(1.5)]),
])
let limits = Template.Limits(steps: 10_000, outputBytes: 256 << 10, checkInterval: 1_024)

/// Partials: plain ones, one that loops over a list, a cycle (`a → b → a`) and a chain deeper than 32.
let partials: [String: String] = {
    var table = [
        "row": "{{id}}:{{name}};", "list": "{{#items}}{{> row}}{{/items}}", "a": "A{{> b}}", "b": "B{{> a}}",
        "self": "{{#store.big}}{{> self}}{{/store.big}}", "big": "{{#store.big}}{{#store.big}}x{{/store.big}}{{/store.big}}",
    ]
    for level in 0..<40 { table["deep\(level)"] = "{{> deep\(level + 1)}}" }
    return table
}()

let helpers: [String: TemplateHelper] = [
    "upper": TemplateHelper { call in .string((call.argument(0)?.text(.handlebars) ?? "").uppercased()) },
    "eq": TemplateHelper(blockUse: .condition) { call in
        .bool(call.argument(0)?.text(.handlebars) == call.argument(1)?.text(.handlebars))
    },
    "trim": TemplateHelper(blockUse: .content) { call in
        .string((call.blockContent ?? call.argument(0)?.text(.handlebars) ?? "").trimmingCharacters(in: .whitespaces))
    },
    "list": TemplateHelper { call in .array(call.positional) },
    "define": TemplateHelper { call in
        call.assignments.append((call.argument(0)?.text(.handlebars) ?? "", call.argument(1) ?? .null))
        return .null
    },
    "pattern": TemplateHelper(
        prepare: { site throws(TemplateHelperError) in
            guard case .string(let text)? = site.positional.first ?? nil else { return nil }
            do throws(TextRegex.SyntaxError) {
                return try TextSearch(text)
            } catch {
                throw TemplateHelperError(error.message)
            }
        },
        call: { call throws(TemplateHelperError) in
            guard let search = call.prepared as? TextSearch, let subject = call.argument(1) else { return .null }
            if case .found(let match, _) = search.firstMatch(in: subject.text(.handlebars)) { return .string(match) }
            return .null
        }),
]

let handlebars = TemplateDialect(syntax: .handlebars, escapesHTML: true, removesStandaloneLines: false, helpers: helpers)

func fuzzTemplate(_ bytes: [UInt8]) {
    let dialect = bytes.first.map { $0 % 2 == 1 } == true ? handlebars : .mustache
    let source = String(decoding: bytes.dropFirst(), as: UTF8.self)
    let template: Template
    do {
        template = try Template(parsing: source, dialect: dialect, partials: { partials[$0] })
    } catch {
        let position = error.message.prefix { $0 != " " }
        let parts = position.dropLast().split(separator: ":")
        precondition(
            position.hasSuffix(":") && parts.count == 2 && parts.allSatisfy { Int($0).map { $0 >= 1 } ?? false },
            "a parse error without its line:column: \(error.message)")
        return
    }
    do {
        let output = try template.render(context, limits: limits)
        precondition(output.utf8.count <= limits.outputBytes, "output over its budget: \(output.utf8.count) bytes")
    } catch {
        precondition(!error.description.isEmpty, "a render stopped without saying why")
    }
}

@_cdecl("FuzzTemplates_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.main(argc, argv, fuzzTemplate)
}

import Foundation
import FuzzSupport

@testable import HTTPMock

/// The response-template parser (`Template(parsing:)`, SPEC §11.8) and its renderer: any text
/// parses, or is rejected with an error that starts with the `line:column` of the problem;
/// what parses renders against a context with lists and nested objects, and a render either
/// ends or stops at its step or output budget (kept small here: a step may interpolate a whole
/// list, and a runaway section must be stopped by the budget well within the 100 ms limit).
let item: JSONValue = .object(["id": .integer(7), "name": .string("Ada"), "tags": .array([.string("a"), .bool(true), .null])])
let context: JSONValue = .object([
    "request": .object([
        "path": .string("/users/7"), "query": .object(["id": .string("7")]), "headers": .object(["Accept": .string("*/*")]),
    ]),
    "store": .object(["big": .array(Array(repeating: item, count: 64)), "flag": .bool(false), "count": .integer(0)]),
    "items": .array([item, item, .string("x"), .double(1.5)]),
])
let limits = Template.Limits(steps: 10_000, outputBytes: 256 << 10, checkInterval: 1_024)

func fuzzTemplate(_ bytes: [UInt8]) {
    let source = String(decoding: bytes, as: UTF8.self)
    let template: Template
    do {
        template = try Template(parsing: source)
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

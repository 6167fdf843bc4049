#if Server
import Foundation
import HTTPMock

// Handlebars.java's conditional helpers as WireMock registers them: `eq`, `neq`, `gt`, `gte`,
// `lt`, `lte`, `and`, `or`, `not`; as blocks they render the block or its `{{else}}`; `yes=`
// and `no=` name what they write. Compared with WireMock 2.35.1:
//   {{eq 1 1}} → true   {{eq 'a' 'b'}} → false   {{gt 'b' 'a'}} → true   {{gt '10' '9'}} → false
//   {{eq 1 1 yes='Y' no='N'}} → Y   {{#eq x '1'}}Y{{else}}N{{/eq}}   {{and true false}} → false
//   {{or false 'x'}} → true   {{not 'x'}} → false
// One difference: a single-or-list (a query parameter, a header) compares as its first value;
// WireMock 2.35.1 compares the list object itself, so `{{eq request.query.a '1'}}` is always
// false there.

extension WireMockTemplating {
    static let logicHelpers: [String: TemplateHelper] = [
        "eq": condition { call throws(TemplateHelperError) in equal(call.argument(0), call.argument(1)) },
        "neq": condition { call throws(TemplateHelperError) in !equal(call.argument(0), call.argument(1)) },
        "gt": condition { call throws(TemplateHelperError) in try compare(call) > 0 },
        "gte": condition { call throws(TemplateHelperError) in try compare(call) >= 0 },
        "lt": condition { call throws(TemplateHelperError) in try compare(call) < 0 },
        "lte": condition { call throws(TemplateHelperError) in try compare(call) <= 0 },
        "and": condition { call throws(TemplateHelperError) in call.positional.allSatisfy { $0.isTruthy(.handlebars) } },
        "or": condition { call throws(TemplateHelperError) in call.positional.contains { $0.isTruthy(.handlebars) } },
        "not": condition { call throws(TemplateHelperError) in !(call.argument(0)?.isTruthy(.handlebars) ?? false) },
    ]

    /// A helper that decides: `true`/`false`, or its `yes=`/`no=` values.
    static func condition(_ decide: @escaping @Sendable (TemplateHelperCall) throws(TemplateHelperError) -> Bool) -> TemplateHelper {
        TemplateHelper(blockUse: .condition) { call throws(TemplateHelperError) in
            let holds = try decide(call)
            if let answer = call.hash(holds ? "yes" : "no") { return answer }
            if call.blockContent == nil, call.hash(holds ? "no" : "yes") != nil { return .null }
            return .bool(holds)
        }
    }

    /// A value as it compares: its first value for a single-or-list, JSON scalars unwrapped.
    static func comparable(_ value: TemplateValue?) -> TemplateValue {
        switch value {
        case .listOrSingle(let values)?: return comparable(values.first)
        case .json(let json)?:
            switch json {
            case .array, .object: return .json(json)
            default: return TemplateValue(scalar: json)
            }
        case let value?: return value
        case nil: return .null
        }
    }

    /// Java's `equals` on the values: numbers by value, text by text, no text equals a number.
    static func equal(_ left: TemplateValue?, _ right: TemplateValue?) -> Bool {
        switch (comparable(left), comparable(right)) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.integer, .double), (.double, .integer), (.double, .double):
            return comparable(left).number == comparable(right).number
        case (let a, let b):
            if case .string = a { return false }
            if case .string = b { return false }
            return a.helperText == b.helperText && a.isNull == b.isNull
        }
    }

    /// Java's `compareTo`: numbers by value, text lexicographically (UTF-16), nothing else.
    static func compare(_ call: TemplateHelperCall) throws(TemplateHelperError) -> Int {
        let (left, right) = (comparable(call.argument(0)), comparable(call.argument(1)))
        switch (left, right) {
        case (.string(let a), .string(let b)):
            return a.utf16.lexicographicallyPrecedes(b.utf16) ? -1 : (a == b ? 0 : 1)
        default:
            guard let a = left.number, let b = right.number, !isText(left), !isText(right) else {
                throw TemplateHelperError("not comparable: \(left.helperText) and \(right.helperText)")
            }
            return a < b ? -1 : (a == b ? 0 : 1)
        }
    }
}
#endif

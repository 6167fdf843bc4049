#if Server
import Foundation
import HTTPMock

// `jsonPath` (Jayway's dialect: the JSONPath evaluator in HTTPMock's Matching/), `toJson` and
// `jsonArrayAdd` (WireMock 3's). Compared with WireMock 2.35.1, for the body
// {"list":[1,"two",3.5],"obj":{"a":1,"b":[true,null]},"n":12,"f":1.50,"s":"x<y"}:
//   {{jsonPath request.body '$.list[0]'}} → 1     {{jsonPath request.body '$.f'}} → 1.5
//   {{jsonPath request.body '$.list'}} → [1,&quot;two&quot;,3.5] (compact JSON)
//   {{jsonPath request.body '$.obj'}} → Jackson's pretty JSON: {\n  &quot;a&quot; : 1, …
//   {{jsonPath request.body '$.s'}} → x&lt;y   {{jsonPath request.body '$.missing'}} → (nothing)
//   {{#each (jsonPath request.body '$.obj')}}{{@key}}={{this}};{{/each}} → a=1;b=[true,null];
//   {{size (jsonPath request.body '$.list')}} → 3   {{jsonPath 'not json' '$.a'}} → (nothing)
// `xPath` (the XPath 1.0 evaluator of WireMock/XML/), for <a><b>hi</b><c id="1">x</c><c id="2">y</c><d><e>1</e><f/></d></a>:
//   {{xPath request.body '/a/b/text()'}} → hi   {{xPath request.body '//c/@id'}} → 1 (the first)
//   {{{xPath request.body '//d'}}} → <d>\n  <e>1</e>\n  <f/>\n</d>\n (Java's transformer's layout)
//   {{#each (xPath request.body '/a/c/text()')}}[{{this}}]{{/each}} → [x][y]   {{xPath request.body '/a/nope'}} → (nothing)
//   {{xPath request.body 'count(/a/c)'}} → [ERROR: count(/a/c) is not a valid XPath expression] (node-sets only)
//   {{xPath 'not xml' '/a'}} → [ERROR: not xml is not valid XML]

extension WireMockTemplating {
    static let documentHelpers: [String: TemplateHelper] = [
        "jsonPath": TemplateHelper(
            prepare: { site throws(TemplateHelperError) in
                guard site.positional.count > 1, let path = site.positional[1] else { return nil }
                return try compiledPath(path)
            },
            call: { call throws(TemplateHelperError) in
                guard call.positional.count >= 2 else { return failure("The JSONPath cannot be empty") }
                let path = try reuse(call) { () throws(TemplateHelperError) in try compiledPath(call.positional[1]) }
                guard let document = document(call.positional[0]) else { return call.hash("default") ?? .null }
                switch path.evaluate(document) {
                case .value(let found):
                    if case .scalar(.null) = found { return call.hash("default") ?? .null }
                    return .ordered(found)
                case .list(let found): return .ordered(.array(found))
                case .missing: return call.hash("default") ?? .null
                case .exceededBudget: throw TemplateHelperError("\(path.text) went over its evaluation budget")
                case .failed(let message): return failure(message)
                }
            }),
        "xPath": TemplateHelper(
            prepare: { site throws(TemplateHelperError) in
                guard site.positional.count > 1, let path = site.positional[1] else { return nil }
                return try compiledXPath(path)
            },
            call: { call throws(TemplateHelperError) in
                guard call.positional.count >= 2, !call.positional[1].helperText.isEmpty else {
                    return failure("The XPath expression cannot be empty")
                }
                let path = try reuse(call) { () throws(TemplateHelperError) in try compiledXPath(call.positional[1]) }
                let text = call.positional[0].helperText
                guard let tree = try? XMLTree(parsing: text) else { return failure("\(text) is not valid XML") }
                guard let nodes = path.selectNodes(in: tree) else { return failure("\(path.text) is not a valid XPath expression") }
                if nodes.isEmpty { return .null }
                return .listOrSingle(nodes.map { .string(XMLPrinter.text(of: $0, in: tree)) })
            }),
        "toJson": TemplateHelper { call in
            let json = ordered(call.argument(0) ?? .null)
            if case .scalar(let scalar) = json { return .string(scalar.compactJSON) }
            return .string(json.javaText ?? "null")
        },
        "jsonArrayAdd": TemplateHelper(blockUse: .content) { call throws(TemplateHelperError) in
            guard let existing = call.argument(0) else { throw TemplateHelperError("jsonArrayAdd needs the array to add to") }
            var items: [OrderedJSON]
            switch document(existing) {
            case .array(let elements)?: items = elements
            case nil where existing.isNull: items = []
            default: throw TemplateHelperError("\(existing.helperText) is not a JSON array")
            }
            let added: OrderedJSON
            if let block = call.blockContent {
                guard let parsed = try? JSONReader.parseOrdered(block, lenient: true) else {
                    throw TemplateHelperError("the block is not JSON: \(block)")
                }
                added = parsed
            } else if let item = call.argument(1) {
                added = document(item) ?? ordered(item)
            } else {
                throw TemplateHelperError("jsonArrayAdd needs an item to add")
            }
            if call.hash("flatten")?.isTruthy(.handlebars) == true, case .array(let elements) = added {
                items += elements
            } else {
                items.append(added)
            }
            if let limit = call.hash("maxItems")?.integer, limit >= 0, items.count > limit {
                items.removeFirst(items.count - limit)
            }
            return .string(OrderedJSON.array(items).compactJSON)
        },
    ]

    static func compiledPath(_ value: TemplateValue) throws(TemplateHelperError) -> JSONPath {
        let text = value.helperText
        guard !text.isEmpty else { throw TemplateHelperError("The JSONPath cannot be empty") }
        do {
            return try JSONPath(text)
        } catch {
            throw TemplateHelperError("\(text) is not a JSONPath: \(error)")
        }
    }

    static func compiledXPath(_ value: TemplateValue) throws(TemplateHelperError) -> XPath {
        do {
            return try XPath(value.helperText)
        } catch {
            throw TemplateHelperError("\(value.helperText) is not an XPath: \(error.message)")
        }
    }

    /// A helper's JSON argument as a document: text is parsed (leniently, as WireMock reads
    /// bodies, keeping member order); a JSON value is taken as it is. `nil`: not JSON.
    static func document(_ value: TemplateValue) -> OrderedJSON? {
        switch value {
        case .ordered(let json): return json
        case .json(.string(let text)), .string(let text): return try? JSONReader.parseOrdered(text, lenient: true)
        case .json(let json): return OrderedJSON(json)
        case .listOrSingle(let values) where values.count == 1: return document(values[0])
        case .array, .object: return ordered(value)
        default: return nil
        }
    }

    /// Any value as JSON in order: objects keep their member order, dates become ISO text.
    static func ordered(_ value: TemplateValue) -> OrderedJSON {
        switch value {
        case .ordered(let json): return json
        case .json(let json): return OrderedJSON(json)
        case .array(let elements), .listOrSingle(let elements): return .array(elements.map(ordered))
        case .object(let object):
            return .object(object.members.map { OrderedJSON.Member($0.key, ordered($0.value)) })
        case .null: return .scalar(.null)
        case .bool(let bool): return .scalar(.bool(bool))
        case .integer(let integer): return .scalar(.integer(integer))
        case .double(let double): return .scalar(.double(double))
        case .string, .date, .segmented: return .scalar(.string(value.helperText))
        }
    }
}
#endif

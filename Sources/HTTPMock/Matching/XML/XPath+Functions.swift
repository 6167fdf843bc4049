import Foundation

/// XPath 1.0's core function library (§4): node-set, string, boolean and number functions.
enum XPathFunctions {
    /// Each function's number of arguments.
    static let arity: [String: ClosedRange<Int>] = [
        "last": 0...0, "position": 0...0, "count": 1...1, "local-name": 0...1, "namespace-uri": 0...1, "name": 0...1,
        "string": 0...1, "concat": 2...64, "starts-with": 2...2, "ends-with": 2...2, "contains": 2...2, "substring-before": 2...2,
        "substring-after": 2...2, "substring": 2...3, "string-length": 0...1, "normalize-space": 0...1, "translate": 3...3,
        "lower-case": 1...1, "upper-case": 1...1, "boolean": 1...1, "not": 1...1, "true": 0...0, "false": 0...0, "lang": 1...1,
        "number": 0...1, "sum": 1...1, "floor": 1...1, "ceiling": 1...1, "round": 1...1,
    ]
}

extension XPathEvaluator {
    mutating func call(_ name: String, _ arguments: [XPathExpression], context: Context) throws(XPathEvaluationError) -> XPathValue {
        let result = try callFunction(name, arguments, context: context)
        // A string a function built counts against the text this evaluation may build.
        if case .string(let built) = result {
            textMeter.count(built)
            try spend(0)
        }
        return result
    }

    private mutating func callFunction(
        _ name: String, _ arguments: [XPathExpression], context: Context
    ) throws(XPathEvaluationError) -> XPathValue {
        var values: [XPathValue] = []
        for argument in arguments { values.append(try evaluate(argument, context: context)) }
        func nodeArgument() throws(XPathEvaluationError) -> Int? {
            guard let first = values.first else { return context.node }
            guard case .nodes(let nodes) = first else { throw XPathEvaluationError(message: "\(name)() needs a node-set") }
            return nodes.first
        }
        func text(_ position: Int) -> String { position < values.count ? string(values[position]) : stringValue(context.node) }
        switch name {
        case "last": return .number(Double(context.size))
        case "position": return .number(Double(context.position))
        case "count":
            guard case .nodes(let nodes) = values[0] else { throw XPathEvaluationError(message: "count() needs a node-set") }
            return .number(Double(nodes.count))
        case "local-name":
            return .string(try nodeArgument().map { tree.nodes[$0].localName } ?? "")
        case "name":
            return .string(try nodeArgument().map { tree.nodes[$0].name } ?? "")
        case "namespace-uri":
            return .string(try nodeArgument().flatMap { tree.nodes[$0].namespaceURI } ?? "")
        case "string": return .string(text(0))
        case "concat": return .string(values.map(string).joined())
        case "starts-with": return .boolean(text(0).hasPrefix(text(1)))
        case "ends-with": return .boolean(text(0).hasSuffix(text(1)))
        case "contains": return .boolean(text(0).containsText(text(1)))
        case "substring-before":
            guard let range = text(0).firstByteRange(of: text(1)) else { return .string("") }
            return .string(String(text(0)[..<range.lowerBound]))
        case "substring-after":
            guard let range = text(0).firstByteRange(of: text(1)) else { return .string("") }
            return .string(String(text(0)[range.upperBound...]))
        case "substring":
            // Positions count from 1, rounded; characters whose position p has start ≤ p < start + length.
            let characters = Array(text(0))
            let start = number(values[1]).rounded()
            let end = values.count > 2 ? start + number(values[2]).rounded() : .infinity
            var result = ""
            for (offset, character) in characters.enumerated() {
                let position = Double(offset + 1)
                if position >= start, position < end { result.append(character) }
            }
            return .string(result)
        case "string-length": return .number(Double(text(0).count))
        case "normalize-space":
            return .string(text(0).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).joined(separator: " "))
        case "translate":
            let from = Array(text(1))
            let to = Array(text(2))
            var result = ""
            for character in text(0) {
                if let position = from.firstIndex(of: character) {
                    if position < to.count { result.append(to[position]) }
                } else {
                    result.append(character)
                }
            }
            return .string(result)
        case "lower-case": return .string(text(0).lowercased())
        case "upper-case": return .string(text(0).uppercased())
        case "boolean": return .boolean(boolean(values[0]))
        case "not": return .boolean(!boolean(values[0]))
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "lang":
            var node = context.node
            let wanted = text(0).lowercased()
            while node >= 0 {
                if let attribute = tree.nodes[node].attributes.first(where: { tree.nodes[$0].name == "xml:lang" }) {
                    let language = tree.nodes[attribute].value.lowercased()
                    return .boolean(language == wanted || language.hasPrefix(wanted + "-"))
                }
                node = tree.nodes[node].parent
            }
            return .boolean(false)
        case "number": return .number(values.isEmpty ? number(.string(stringValue(context.node))) : number(values[0]))
        case "sum":
            guard case .nodes(let nodes) = values[0] else { throw XPathEvaluationError(message: "sum() needs a node-set") }
            return .number(nodes.reduce(0) { $0 + number(.string(stringValue($1))) })
        case "floor": return .number(number(values[0]).rounded(.down))
        case "ceiling": return .number(number(values[0]).rounded(.up))
        case "round": return .number((number(values[0]) + 0.5).rounded(.down))
        default:
            throw XPathEvaluationError(message: "\(name)() is not supported")
        }
    }
}

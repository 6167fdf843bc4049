import Foundation

/// A value of an XPath expression.
enum XPathValue {
    /// Node indexes of an ``XMLTree``, in document order, without duplicates.
    case nodes([Int])
    case string(String)
    case number(Double)
    case boolean(Bool)
}

/// Thrown when an evaluation goes over ``XPath/maximumSteps`` or meets an error (an unknown
/// prefix): the matcher then does not match.
struct XPathEvaluationError: Error {
    let message: String
}

extension XPath {
    /// The nodes the expression selects in `tree`; `nil` when it is not a node-set (WireMock's
    /// `matchesXPath` matches node-sets only) or the evaluation failed.
    package func selectNodes(in tree: XMLTree) -> [Int]? {
        var evaluator = XPathEvaluator(tree: tree, namespaces: namespaces)
        let value = try? evaluator.evaluate(expression, context: XPathEvaluator.Context(node: 0, position: 1, size: 1))
        // The request's budget bounds the sum of its evaluations (``MatchBudget``).
        MatchBudget.spend(steps: evaluator.steps)
        guard case .nodes(let nodes)? = value else { return nil }
        return nodes
    }
}

/// Counts the bytes of text one XPath evaluation builds, against its own limit and the
/// request's (``MatchBudget``). A class, so that the evaluator's non-mutating conversions count too.
final class XPathTextMeter {
    /// The most text one evaluation builds.
    static let limit = MatchBudget.bytes
    private var built = 0
    private(set) var isExceeded = false

    func count(_ text: String) {
        let bytes = text.utf8.count
        built += bytes
        if built > Self.limit || !MatchBudget.spend(bytes: bytes) { isExceeded = true }
    }
}

struct XPathEvaluator {
    struct Context {
        var node: Int
        var position: Int
        var size: Int
    }

    let tree: XMLTree
    let namespaces: [String: String]?
    var steps = 0
    /// The steps this evaluation may take: ``XPath/maximumSteps``, or what the request being
    /// matched has left if less.
    private let stepLimit: Int
    /// The text this evaluation built (string values, function results): a node's string-value
    /// is all the text below it, so `concat(., .)` on each of 500 nested elements over a
    /// megabyte of text would copy gigabytes while taking a few thousand steps.
    let textMeter = XPathTextMeter()

    init(tree: XMLTree, namespaces: [String: String]?) {
        self.tree = tree
        self.namespaces = namespaces
        stepLimit = MatchBudget.steps(upTo: XPath.maximumSteps)
    }

    mutating func spend(_ count: Int = 1) throws(XPathEvaluationError) {
        steps += count
        if steps > stepLimit { throw XPathEvaluationError(message: "the XPath went over \(stepLimit) steps") }
        if textMeter.isExceeded { throw XPathEvaluationError(message: "the XPath built more than \(XPathTextMeter.limit) bytes of text") }
    }

    /// A node's string-value, counted against the text this evaluation may build (empty once
    /// it is spent; the next step then ends the evaluation).
    func stringValue(_ node: Int) -> String {
        guard !textMeter.isExceeded else { return "" }
        let value = tree.stringValue(node)
        textMeter.count(value)
        return value
    }

    mutating func evaluate(_ expression: XPathExpression, context: Context) throws(XPathEvaluationError) -> XPathValue {
        try spend()
        switch expression {
        case .or(let a, let b):
            if boolean(try evaluate(a, context: context)) { return .boolean(true) }
            return .boolean(boolean(try evaluate(b, context: context)))
        case .and(let a, let b):
            if !boolean(try evaluate(a, context: context)) { return .boolean(false) }
            return .boolean(boolean(try evaluate(b, context: context)))
        case .compare(let a, let op, let b):
            let left = try evaluate(a, context: context)
            return .boolean(compare(left, op, try evaluate(b, context: context)))
        case .arithmetic(let a, let op, let b):
            let x = number(try evaluate(a, context: context))
            let y = number(try evaluate(b, context: context))
            switch op {
            case "+": return .number(x + y)
            case "-": return .number(x - y)
            case "*": return .number(x * y)
            case "div": return .number(x / y)
            default: return .number(x.truncatingRemainder(dividingBy: y))
            }
        case .negate(let a):
            return .number(-number(try evaluate(a, context: context)))
        case .union(let a, let b):
            guard case .nodes(let x) = try evaluate(a, context: context), case .nodes(let y) = try evaluate(b, context: context) else {
                throw XPathEvaluationError(message: "| joins node-sets only")
            }
            return .nodes(Array(Set(x + y)).sorted())
        case .literal(let text):
            return .string(text)
        case .number(let value):
            return .number(value)
        case .function(let name, let arguments):
            return try call(name, arguments, context: context)
        case .filter(let primary, let predicates):
            guard case .nodes(var nodes) = try evaluate(primary, context: context) else {
                throw XPathEvaluationError(message: "a predicate applies to a node-set only")
            }
            for predicate in predicates { nodes = try filter(nodes, predicate, reverse: false) }
            return .nodes(nodes)
        case .path(let start, let steps):
            var nodes: [Int]
            switch start {
            case .root: nodes = [0]
            case .context: nodes = [context.node]
            case .expression(let inner):
                guard case .nodes(let found) = try evaluate(inner, context: context) else {
                    throw XPathEvaluationError(message: "/ follows a node-set only")
                }
                nodes = found
            }
            for step in steps { nodes = try apply(step, to: nodes) }
            return .nodes(nodes)
        }
    }

    /// The nodes `step` reaches from each of `nodes`, filtered by its predicates, in document order.
    private mutating func apply(_ step: XPathStep, to nodes: [Int]) throws(XPathEvaluationError) -> [Int] {
        var result = Set<Int>()
        for node in nodes {
            let candidates = try axis(step.axis, from: node)
            try spend(1 + candidates.count)
            var reached = candidates.filter { matches(step.test, $0, axis: step.axis) }
            let reverse = [.parent, .ancestor, .ancestorOrSelf, .preceding, .precedingSibling].contains(step.axis)
            for predicate in step.predicates { reached = try filter(reached, predicate, reverse: reverse) }
            result.formUnion(reached)
        }
        return result.sorted()
    }

    /// Keeps the nodes for which `predicate` holds; a number predicate compares the position
    /// (counted backwards along a reverse axis).
    private mutating func filter(_ nodes: [Int], _ predicate: XPathExpression, reverse: Bool) throws(XPathEvaluationError) -> [Int] {
        let ordered = reverse ? nodes.reversed() : nodes
        var kept: [Int] = []
        try spend(nodes.count)
        for (offset, node) in ordered.enumerated() {
            let value = try evaluate(predicate, context: Context(node: node, position: offset + 1, size: nodes.count))
            let holds: Bool
            if case .number(let position) = value { holds = position == Double(offset + 1) } else { holds = boolean(value) }
            if holds { kept.append(node) }
        }
        return kept.sorted()
    }

    private mutating func axis(_ axis: XPathStep.Axis, from node: Int) throws(XPathEvaluationError) -> [Int] {
        let nodes = tree.nodes
        switch axis {
        case .child: return nodes[node].children
        case .attribute: return nodes[node].attributes
        case .self: return [node]
        case .parent: return nodes[node].parent >= 0 ? [nodes[node].parent] : []
        case .ancestor, .ancestorOrSelf:
            var found: [Int] = axis == .ancestorOrSelf ? [node] : []
            var current = nodes[node].parent
            while current >= 0 {
                found.append(current)
                current = nodes[current].parent
            }
            return found.sorted()
        case .descendant, .descendantOrSelf:
            var found: [Int] = axis == .descendantOrSelf ? [node] : []
            var stack = nodes[node].children.reversed() as [Int]
            while let next = stack.popLast() {
                found.append(next)
                stack += nodes[next].children.reversed()
            }
            return found
        case .followingSibling, .precedingSibling:
            let parent = nodes[node].parent
            guard parent >= 0, nodes[node].kind != .attribute, let position = nodes[parent].children.firstIndex(of: node) else { return [] }
            let siblings = nodes[parent].children
            return axis == .followingSibling ? Array(siblings[(position + 1)...]) : Array(siblings[..<position])
        case .following, .preceding:
            // Document order is index order: following = after the node and its descendants;
            // preceding = before it, not an ancestor, never an attribute.
            var ancestors = Set<Int>()
            var current = nodes[node].parent
            while current >= 0 {
                ancestors.insert(current)
                current = nodes[current].parent
            }
            var lastDescendant = node
            var stack = [node]
            while let next = stack.popLast() {
                lastDescendant = max(lastDescendant, next)
                stack += nodes[next].children + nodes[next].attributes
            }
            try spend(nodes.count)
            if axis == .following {
                return (lastDescendant + 1..<nodes.count).filter { nodes[$0].kind != .attribute }
            }
            return (1..<node).filter { !ancestors.contains($0) && nodes[$0].kind != .attribute }
        }
    }

    private func matches(_ test: XPathStep.Test, _ index: Int, axis: XPathStep.Axis) -> Bool {
        let node = tree.nodes[index]
        switch test {
        case .node: return true
        case .text: return node.kind == .text
        case .comment: return node.kind == .comment
        case .processingInstruction(let target): return node.kind == .processingInstruction && (target == nil || target == node.name)
        case .name(let prefix, let local):
            // The principal node type: attributes on the attribute axis, elements elsewhere.
            guard node.kind == (axis == .attribute ? .attribute : .element) else { return false }
            guard let namespaces else {
                // Read without namespaces: names as written; a prefix is undeclared (no match, as in WireMock).
                return prefix == nil && (local == "*" || node.name == local)
            }
            let uri = prefix.flatMap { namespaces[$0] }
            if prefix != nil, uri == nil { return false }
            guard node.namespaceURI == uri else { return false }
            return local == "*" || node.localName == local
        }
    }

    // MARK: Conversions (XPath 1.0 §4)

    func string(_ value: XPathValue) -> String {
        switch value {
        case .nodes(let nodes): return nodes.first.map(stringValue) ?? ""
        case .string(let text): return text
        case .boolean(let flag): return flag ? "true" : "false"
        case .number(let number): return Self.format(number)
        }
    }

    func number(_ value: XPathValue) -> Double {
        switch value {
        case .number(let number): return number
        case .boolean(let flag): return flag ? 1 : 0
        default: return Double(string(value).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
        }
    }

    func boolean(_ value: XPathValue) -> Bool {
        switch value {
        case .boolean(let flag): return flag
        case .number(let number): return number != 0 && !number.isNaN
        case .string(let text): return !text.isEmpty
        case .nodes(let nodes): return !nodes.isEmpty
        }
    }

    /// A number as XPath writes it: integers without a fraction, `NaN`, `Infinity`.
    static func format(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        if number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
        return String(number)
    }

    private func compare(_ a: XPathValue, _ op: String, _ b: XPathValue) -> Bool {
        switch (a, b) {
        case (.nodes(let x), .nodes(let y)):
            // Each `contains` stops once the text budget is spent (`stringValue` is then empty
            // and the next step throws).
            let right = y.map(stringValue)
            return x.contains { node in
                let left = stringValue(node)
                return !textMeter.isExceeded && right.contains { atomic(.string(left), op, .string($0)) }
            }
        case (.nodes(let x), _):
            if case .boolean = b { return atomic(.boolean(!x.isEmpty), op, b) }
            return x.contains { !textMeter.isExceeded && atomic(.string(stringValue($0)), op, b) }
        case (_, .nodes(let y)):
            if case .boolean = a { return atomic(a, op, .boolean(!y.isEmpty)) }
            return y.contains { !textMeter.isExceeded && atomic(a, op, .string(stringValue($0))) }
        default:
            return atomic(a, op, b)
        }
    }

    private func atomic(_ a: XPathValue, _ op: String, _ b: XPathValue) -> Bool {
        if op == "=" || op == "!=" {
            let equal: Bool
            switch (a, b) {
            case (.boolean, _), (_, .boolean): equal = boolean(a) == boolean(b)
            case (.number, _), (_, .number): equal = number(a) == number(b)
            default: equal = string(a) == string(b)
            }
            return op == "=" ? equal : !equal
        }
        let x = number(a)
        let y = number(b)
        switch op {
        case "<": return x < y
        case "<=": return x <= y
        case ">": return x > y
        default: return x >= y
        }
    }
}

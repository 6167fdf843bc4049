import Foundation

/// XPath 1.0's grammar over ``XPathToken``s, by recursive descent (depth bounded).
struct XPathParser {
    let tokens: [XPathToken]
    var index = 0

    var atEnd: Bool { index >= tokens.count }
    var currentDescription: String { atEnd ? "end" : "\(tokens[index])" }

    private func peek(_ offset: Int = 0) -> XPathToken? { index + offset < tokens.count ? tokens[index + offset] : nil }

    private mutating func take(_ symbol: String) -> Bool {
        guard peek() == .symbol(symbol) else { return false }
        index += 1
        return true
    }

    private func fail(_ message: String) -> XPath.SyntaxError {
        XPath.SyntaxError(message: "XPath: \(message) (at token \(index + 1): \(currentDescription))")
    }

    mutating func expression(depth: Int) throws(XPath.SyntaxError) -> XPathExpression {
        guard depth <= XPath.maximumDepth else { throw fail("the expression nests deeper than \(XPath.maximumDepth) levels") }
        var left = try andExpression(depth: depth)
        while peek() == .operatorName("or") {
            index += 1
            left = .or(left, try andExpression(depth: depth))
        }
        return left
    }

    private mutating func andExpression(depth: Int) throws(XPath.SyntaxError) -> XPathExpression {
        var left = try equality(depth: depth)
        while peek() == .operatorName("and") {
            index += 1
            left = .and(left, try equality(depth: depth))
        }
        return left
    }

    private mutating func equality(depth: Int) throws(XPath.SyntaxError) -> XPathExpression {
        var left = try relational(depth: depth)
        while case .symbol(let symbol)? = peek(), symbol == "=" || symbol == "!=" {
            index += 1
            left = .compare(left, symbol, try relational(depth: depth))
        }
        return left
    }

    private mutating func relational(depth: Int) throws(XPath.SyntaxError) -> XPathExpression {
        var left = try additive(depth: depth)
        while case .symbol(let symbol)? = peek(), ["<", "<=", ">", ">="].contains(symbol) {
            index += 1
            left = .compare(left, symbol, try additive(depth: depth))
        }
        return left
    }

    private mutating func additive(depth: Int) throws(XPath.SyntaxError) -> XPathExpression {
        var left = try multiplicative(depth: depth)
        while case .symbol(let symbol)? = peek(), symbol == "+" || symbol == "-" {
            index += 1
            left = .arithmetic(left, symbol, try multiplicative(depth: depth))
        }
        return left
    }

    private mutating func multiplicative(depth: Int) throws(XPath.SyntaxError) -> XPathExpression {
        var left = try unary(depth: depth)
        while true {
            if peek() == .multiply {
                index += 1
                left = .arithmetic(left, "*", try unary(depth: depth))
            } else if case .operatorName(let name)? = peek(), name == "div" || name == "mod" {
                index += 1
                left = .arithmetic(left, name, try unary(depth: depth))
            } else {
                return left
            }
        }
    }

    private mutating func unary(depth: Int) throws(XPath.SyntaxError) -> XPathExpression {
        if take("-") { return .negate(try unary(depth: depth + 1)) }
        var left = try pathExpression(depth: depth)
        while take("|") {
            left = .union(left, try pathExpression(depth: depth))
        }
        return left
    }

    private mutating func pathExpression(depth: Int) throws(XPath.SyntaxError) -> XPathExpression {
        guard let token = peek() else { throw fail("the expression ends too early") }
        let startsFilter: Bool
        switch token {
        case .literal, .number, .functionName: startsFilter = true
        case .symbol("("): startsFilter = true
        default: startsFilter = false
        }
        if startsFilter {
            var primary = try self.primary(depth: depth)
            var predicates: [XPathExpression] = []
            while take("[") {
                predicates.append(try expression(depth: depth + 1))
                guard take("]") else { throw fail("expected ]") }
            }
            if !predicates.isEmpty { primary = .filter(primary, predicates) }
            if peek() == .symbol("/") || peek() == .symbol("//") {
                return .path(start: .expression(primary), steps: try relativeSteps(depth: depth, leadingSeparator: true))
            }
            return primary
        }
        if take("/") {
            // `/` alone is the root; otherwise a relative path follows.
            if let next = peek(), Self.startsStep(next) {
                return .path(start: .root, steps: try relativeSteps(depth: depth, leadingSeparator: false))
            }
            return .path(start: .root, steps: [])
        }
        if peek() == .symbol("//") {
            return .path(start: .root, steps: try relativeSteps(depth: depth, leadingSeparator: true))
        }
        return .path(start: .context, steps: try relativeSteps(depth: depth, leadingSeparator: false))
    }

    private static func startsStep(_ token: XPathToken) -> Bool {
        switch token {
        case .name, .nodeType, .axisName: return true
        case .symbol(let symbol): return symbol == "." || symbol == ".." || symbol == "@"
        default: return false
        }
    }

    /// Steps separated by `/` or `//` (`//` is `/descendant-or-self::node()/`).
    private mutating func relativeSteps(depth: Int, leadingSeparator: Bool) throws(XPath.SyntaxError) -> [XPathStep] {
        var steps: [XPathStep] = []
        var needsSeparator = leadingSeparator
        while true {
            if needsSeparator {
                if take("//") {
                    steps.append(XPathStep(axis: .descendantOrSelf, test: .node, predicates: []))
                } else if !take("/") {
                    return steps
                }
            }
            steps.append(try step(depth: depth))
            needsSeparator = true
            guard peek() == .symbol("/") || peek() == .symbol("//") else { return steps }
        }
    }

    private mutating func step(depth: Int) throws(XPath.SyntaxError) -> XPathStep {
        if take(".") { return XPathStep(axis: .self, test: .node, predicates: []) }
        if take("..") { return XPathStep(axis: .parent, test: .node, predicates: []) }
        var axis = XPathStep.Axis.child
        if take("@") {
            axis = .attribute
        } else if case .axisName(let name)? = peek() {
            index += 1
            guard let named = XPathStep.Axis(rawValue: name) else {
                throw fail(name == "namespace" ? "the namespace axis is not supported" : "\(name) is not an axis")
            }
            axis = named
            guard take("::") else { throw fail("expected :: after \(name)") }
        }
        let test: XPathStep.Test
        switch peek() {
        case .name(let prefix, let local)?:
            index += 1
            test = .name(prefix: prefix, local: local)
        case .nodeType(let type)?:
            index += 1
            guard take("(") else { throw fail("expected ( after \(type)") }
            var target: String?
            if type == "processing-instruction", case .literal(let literal)? = peek() {
                index += 1
                target = literal
            }
            guard take(")") else { throw fail("expected ) after \(type)(") }
            switch type {
            case "node": test = .node
            case "text": test = .text
            case "comment": test = .comment
            default: test = .processingInstruction(target)
            }
        default:
            throw fail("expected a step (a name, *, text(), node(), ., .., @)")
        }
        var predicates: [XPathExpression] = []
        while take("[") {
            predicates.append(try expression(depth: depth + 1))
            guard take("]") else { throw fail("expected ]") }
        }
        return XPathStep(axis: axis, test: test, predicates: predicates)
    }

    private mutating func primary(depth: Int) throws(XPath.SyntaxError) -> XPathExpression {
        switch peek() {
        case .literal(let text)?:
            index += 1
            return .literal(text)
        case .number(let value)?:
            index += 1
            return .number(value)
        case .symbol("(")?:
            index += 1
            let inner = try expression(depth: depth + 1)
            guard take(")") else { throw fail("expected )") }
            return inner
        case .functionName(let name)?:
            index += 1
            guard XPathFunctions.arity[name] != nil else { throw fail("\(name)() is not an XPath 1.0 function") }
            guard take("(") else { throw fail("expected ( after \(name)") }
            var arguments: [XPathExpression] = []
            if !take(")") {
                repeat {
                    arguments.append(try expression(depth: depth + 1))
                } while take(",")
                guard take(")") else { throw fail("expected ) to close \(name)(") }
            }
            if let arity = XPathFunctions.arity[name], !arity.contains(arguments.count) {
                throw fail(
                    "\(name)() takes \(arity.lowerBound == arity.upperBound ? "\(arity.lowerBound)" : "\(arity.lowerBound) to \(arity.upperBound)") arguments, got \(arguments.count)"
                )
            }
            return .function(name, arguments)
        default:
            throw fail("expected a value")
        }
    }
}

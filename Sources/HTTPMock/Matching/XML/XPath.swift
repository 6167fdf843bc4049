import Foundation

/// An XPath 1.0 expression, compiled once, evaluated over an ``XMLTree``: location paths with
/// every axis but `namespace`, abbreviations (`//`, `.`, `..`, `@`), name tests with prefixes
/// (resolved through the namespaces a matcher declares), `text()`, `node()`, `comment()`,
/// `processing-instruction()`, predicates, unions, the operators, and the core function
/// library (node-set, string, boolean and number functions).
///
/// Without declared namespaces a document is read as WireMock reads it then: names compare as
/// written (`//b` finds `<b xmlns="urn:x">`), and a prefixed name test is an error. With
/// them, names compare by namespace URI and local name, as XPath defines.
///
/// Bounded: an expression is at most ``maximumLength`` characters and nests at most
/// ``maximumDepth`` deep; an evaluation takes at most ``maximumSteps`` steps.
package struct XPath: Sendable, CustomStringConvertible {
    package struct SyntaxError: Error, Sendable, CustomStringConvertible {
        package let message: String
        package var description: String { message }
    }

    static let maximumLength = 10_000
    static let maximumDepth = 64
    static let maximumSteps = 500_000

    package let text: String
    let expression: XPathExpression
    /// Prefix → namespace URI; `nil`: the document is read without namespaces.
    let namespaces: [String: String]?

    package init(_ text: String, namespaces: [String: String]? = nil) throws(SyntaxError) {
        guard text.utf8.count <= Self.maximumLength else {
            throw SyntaxError(message: "an XPath may be at most \(Self.maximumLength) characters long")
        }
        var parser = XPathParser(tokens: try XPathLexer.tokens(text))
        let expression = try parser.expression(depth: 0)
        guard parser.atEnd else { throw SyntaxError(message: "XPath \"\(text)\": unexpected \(parser.currentDescription)") }
        if let namespaces {
            for prefix in expression.prefixes where namespaces[prefix] == nil {
                throw SyntaxError(message: "XPath \"\(text)\": the prefix \(prefix) is not declared in xPathNamespaces")
            }
        }
        self.text = text
        self.expression = expression
        self.namespaces = namespaces
    }

    package var description: String { text }
}

/// A parsed XPath expression.
indirect enum XPathExpression: Sendable {
    case or(XPathExpression, XPathExpression)
    case and(XPathExpression, XPathExpression)
    case compare(XPathExpression, String, XPathExpression)
    case arithmetic(XPathExpression, String, XPathExpression)
    case negate(XPathExpression)
    case union(XPathExpression, XPathExpression)
    case literal(String)
    case number(Double)
    case function(String, [XPathExpression])
    case filter(XPathExpression, [XPathExpression])
    /// A location path, absolute or relative to the context, or following a filter expression.
    case path(start: PathStart, steps: [XPathStep])

    enum PathStart: Sendable {
        case root
        case context
        case expression(XPathExpression)
    }

    /// The namespace prefixes its name tests use.
    var prefixes: [String] {
        switch self {
        case .or(let a, let b), .and(let a, let b), .compare(let a, _, let b), .arithmetic(let a, _, let b), .union(let a, let b):
            return a.prefixes + b.prefixes
        case .negate(let a): return a.prefixes
        case .literal, .number: return []
        case .function(_, let arguments): return arguments.flatMap(\.prefixes)
        case .filter(let a, let predicates): return a.prefixes + predicates.flatMap(\.prefixes)
        case .path(let start, let steps):
            var found: [String] = []
            if case .expression(let inner) = start { found += inner.prefixes }
            for step in steps {
                if case .name(let prefix?, _) = step.test { found.append(prefix) }
                found += step.predicates.flatMap(\.prefixes)
            }
            return found
        }
    }
}

struct XPathStep: Sendable {
    enum Axis: String, Sendable {
        case child, descendant, parent, ancestor, attribute, `self`
        case descendantOrSelf = "descendant-or-self"
        case ancestorOrSelf = "ancestor-or-self"
        case followingSibling = "following-sibling"
        case precedingSibling = "preceding-sibling"
        case following, preceding
    }

    enum Test: Sendable {
        /// `prefix:local`, `local`, `prefix:*` (local `*`), `*` (both nil/`*`).
        case name(prefix: String?, local: String)
        case node, text, comment
        case processingInstruction(String?)
    }

    var axis: Axis
    var test: Test
    var predicates: [XPathExpression]
}

/// XPath tokens (XPath 1.0 §3.7), with its rules for telling `*` and `and`/`or`/`div`/`mod`
/// apart from name tests.
enum XPathToken: Sendable, Equatable {
    case symbol(String)  // ( ) [ ] . .. @ , :: / // | + - = != < <= > >=
    case multiply
    case operatorName(String)  // and or div mod
    case name(prefix: String?, local: String)  // NCName, QName, prefix:*, *
    case nodeType(String)  // node text comment processing-instruction (followed by "(")
    case functionName(String)
    case axisName(String)
    case literal(String)
    case number(Double)
}

enum XPathLexer {
    static func tokens(_ text: String) throws(XPath.SyntaxError) -> [XPathToken] {
        let scalars = Array(text.unicodeScalars)
        var tokens: [XPathToken] = []
        var index = 0
        func peek(_ offset: Int = 0) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }
        func fail(_ message: String) -> XPath.SyntaxError {
            XPath.SyntaxError(message: "XPath \"\(text)\": \(message) (at character \(index + 1))")
        }
        /// Whether the next `*` or name is an operator (a preceding token that is not an operator or `(` `[` `,` `@` `::`).
        func operatorExpected() -> Bool {
            guard let last = tokens.last else { return false }
            switch last {
            case .symbol(let symbol): return symbol == ")" || symbol == "]" || symbol == "." || symbol == ".."
            case .multiply, .operatorName, .axisName, .functionName, .nodeType: return false
            case .name, .literal, .number: return true
            }
        }
        func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value >= 0x80 || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_"
        }
        func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
            isNameStart(scalar) || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "."
        }
        func readNCName() -> String {
            let start = index
            while let scalar = peek(), isNameScalar(scalar) { index += 1 }
            return String(String.UnicodeScalarView(scalars[start..<index]))
        }
        func nextNonSpace() -> Unicode.Scalar? {
            var position = index
            while position < scalars.count, scalars[position].properties.isWhitespace { position += 1 }
            return position < scalars.count ? scalars[position] : nil
        }
        while let scalar = peek() {
            if scalar.properties.isWhitespace {
                index += 1
                continue
            }
            if "()[],@|+=".unicodeScalars.contains(scalar) {
                tokens.append(.symbol(String(scalar)))
                index += 1
            } else if scalar == "-" {
                tokens.append(.symbol("-"))
                index += 1
            } else if scalar == "!" {
                guard peek(1) == "=" else { throw fail("! must be followed by =") }
                tokens.append(.symbol("!="))
                index += 2
            } else if scalar == "<" || scalar == ">" {
                if peek(1) == "=" {
                    tokens.append(.symbol(String(scalar) + "="))
                    index += 2
                } else {
                    tokens.append(.symbol(String(scalar)))
                    index += 1
                }
            } else if scalar == "/" {
                if peek(1) == "/" {
                    tokens.append(.symbol("//"))
                    index += 2
                } else {
                    tokens.append(.symbol("/"))
                    index += 1
                }
            } else if scalar == ":" {
                guard peek(1) == ":" else { throw fail("a lone :") }
                tokens.append(.symbol("::"))
                index += 2
            } else if scalar == "." {
                if peek(1) == "." {
                    tokens.append(.symbol(".."))
                    index += 2
                } else if let next = peek(1), ("0"..."9").contains(next) {
                    let start = index
                    index += 1
                    while let digit = peek(), ("0"..."9").contains(digit) { index += 1 }
                    tokens.append(.number(Double(String(String.UnicodeScalarView(scalars[start..<index]))) ?? .nan))
                } else {
                    tokens.append(.symbol("."))
                    index += 1
                }
            } else if scalar == "\"" || scalar == "'" {
                let start = index + 1
                guard let end = scalars[start...].firstIndex(of: scalar) else { throw fail("a string is not closed") }
                tokens.append(.literal(String(String.UnicodeScalarView(scalars[start..<end]))))
                index = end + 1
            } else if ("0"..."9").contains(scalar) {
                let start = index
                while let digit = peek(), ("0"..."9").contains(digit) || digit == "." { index += 1 }
                guard let value = Double(String(String.UnicodeScalarView(scalars[start..<index]))) else { throw fail("a malformed number") }
                tokens.append(.number(value))
            } else if scalar == "*" {
                index += 1
                tokens.append(operatorExpected() ? .multiply : .name(prefix: nil, local: "*"))
            } else if scalar == "$" {
                throw fail("variables are not supported")
            } else if isNameStart(scalar) {
                let first = readNCName()
                if operatorExpected() {
                    guard ["and", "or", "div", "mod"].contains(first) else { throw fail("expected an operator, got \(first)") }
                    tokens.append(.operatorName(first))
                    continue
                }
                if peek() == ":", peek(1) != ":" {
                    index += 1
                    if peek() == "*" {
                        index += 1
                        tokens.append(.name(prefix: first, local: "*"))
                        continue
                    }
                    guard let next = peek(), isNameStart(next) else { throw fail("expected a local name after \(first):") }
                    let local = readNCName()
                    if nextNonSpace() == "(" {
                        throw fail("prefixed function names (\(first):\(local)) are not supported")
                    }
                    tokens.append(.name(prefix: first, local: local))
                    continue
                }
                let following = nextNonSpace()
                if following == "(" {
                    if ["node", "text", "comment", "processing-instruction"].contains(first) {
                        tokens.append(.nodeType(first))
                    } else {
                        tokens.append(.functionName(first))
                    }
                } else if following == ":", let colon = scalars[index...].firstIndex(of: ":"), colon + 1 < scalars.count,
                    scalars[colon + 1] == ":"
                {
                    tokens.append(.axisName(first))
                } else {
                    tokens.append(.name(prefix: nil, local: first))
                }
            } else {
                throw fail("unexpected \(scalar)")
            }
        }
        return tokens
    }
}

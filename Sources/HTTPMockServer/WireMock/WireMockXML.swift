#if Server
import Foundation
import HTTPMock

/// `equalToXml` and `matchesXPath` read from a mapping into the server's XML matchers.
enum WireMockXML {
    /// `{"equalToXml": "<a/>", "enablePlaceholders": true, "exemptedComparisons": [...]}`.
    static func equality(
        _ operand: JSONValue, _ object: [String: JSONValue], at pointer: String
    ) throws(WireMockMappingError)
        -> XMLEqualityMatcher
    {
        let text = try WireMockMatchers.string(operand, at: pointer + "/equalToXml")
        let tree: XMLTree
        do throws(XMLTree.ParseError) {
            tree = try XMLTree(parsing: text)
        } catch {
            throw WireMockMappingError(pointer: pointer + "/equalToXml", message: "the expected document is not XML: \(error)")
        }
        var placeholders: XMLPlaceholders?
        if try WireMockMatchers.flag(object["enablePlaceholders"], at: pointer + "/enablePlaceholders") {
            let opening = try delimiter(
                object["placeholderOpeningDelimiterRegex"], default: "${", at: pointer + "/placeholderOpeningDelimiterRegex")
            let closing = try delimiter(
                object["placeholderClosingDelimiterRegex"], default: "}", at: pointer + "/placeholderClosingDelimiterRegex")
            do throws(XMLPlaceholders.PatternError) {
                placeholders = try XMLPlaceholders(opening: opening, closing: closing, in: tree)
            } catch {
                throw WireMockMappingError(pointer: pointer + "/equalToXml", message: error.message)
            }
        }
        var exempted: Set<String> = []
        if let list = object["exemptedComparisons"] {
            guard case .array(let items) = list else {
                throw WireMockMappingError(
                    pointer: pointer + "/exemptedComparisons", message: "exemptedComparisons must be a list, got \(list)")
            }
            for (index, item) in items.enumerated() {
                let name = try WireMockMatchers.string(item, at: pointer + "/exemptedComparisons/\(index)")
                guard XMLEqualityMatcher.comparisonTypes.contains(name) else {
                    throw WireMockMappingError(
                        pointer: pointer + "/exemptedComparisons/\(index)", message: "\(name) is not an XMLUnit comparison type")
                }
                exempted.insert(name)
            }
        }
        return XMLEqualityMatcher(expectedText: text, expected: tree, placeholders: placeholders, exempted: exempted)
    }

    /// A delimiter regular expression that stands for literal text (`\$\{`, `\[\[`): the text.
    private static func delimiter(_ value: JSONValue?, default fallback: String, at pointer: String) throws(WireMockMappingError) -> String
    {
        guard let value else { return fallback }
        let pattern = try WireMockMatchers.string(value, at: pointer)
        var literal = ""
        var escaped = false
        for character in pattern {
            if escaped {
                literal.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if "[](){}.*+?^$|".contains(character) {
                throw WireMockMappingError(
                    pointer: pointer, message: "only a literal delimiter is supported (escape its characters), got \(pattern)")
            } else {
                literal.append(character)
            }
        }
        guard !literal.isEmpty else { throw WireMockMappingError(pointer: pointer, message: "the delimiter is empty") }
        return literal
    }

    /// `"//a"`, or `{"expression": "//a", <matcher>}`; `xPathNamespaces` beside either.
    static func xpath(_ operand: JSONValue, _ object: [String: JSONValue], at pointer: String) throws(WireMockMappingError) -> XPathMatcher
    {
        var expression: String
        var matcher: ValueMatcher?
        var namespaceValue = object["xPathNamespaces"]
        switch operand {
        case .string(let text):
            expression = text
        case .object(var form):
            guard case .string(let text)? = form.removeValue(forKey: "expression") else {
                throw WireMockMappingError(
                    pointer: pointer + "/matchesXPath", message: "needs \"expression\": \"//path\" beside its matcher")
            }
            expression = text
            if let inner = form.removeValue(forKey: "xPathNamespaces") { namespaceValue = inner }
            if !form.isEmpty { matcher = try WireMockMatchers.matcher(.object(form), at: pointer + "/matchesXPath") }
        default:
            throw WireMockMappingError(
                pointer: pointer + "/matchesXPath", message: "expected \"//path\" or {\"expression\": …}, got \(operand)")
        }
        var namespaces: [String: String]?
        if let namespaceValue {
            guard case .object(let map) = namespaceValue else {
                throw WireMockMappingError(
                    pointer: pointer + "/xPathNamespaces", message: "xPathNamespaces must map prefixes to URIs, got \(namespaceValue)")
            }
            var resolved: [String: String] = [:]
            for key in map.keys.sorted() {
                resolved[key] = try WireMockMatchers.string(map[key] ?? .null, at: pointer + "/xPathNamespaces/" + key)
            }
            namespaces = resolved
        }
        do throws(XPath.SyntaxError) {
            return XPathMatcher(xpath: try XPath(expression, namespaces: namespaces), matcher: matcher)
        } catch {
            throw WireMockMappingError(pointer: pointer + "/matchesXPath", message: error.message)
        }
    }
}
#endif

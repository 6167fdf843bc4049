import Foundation

/// WireMock's `equalToXml`: the body is XML similar to an expected document, as XMLUnit (which
/// WireMock uses) calls it similar and WireMock 2.35's jar was seen to match: namespace
/// prefixes do not matter (URIs do), attribute order does not, child elements are paired by
/// name whatever their order, text is compared trimmed, whitespace-only text, comments and
/// processing instructions are ignored, CDATA is text. With `enablePlaceholders`, an expected
/// text or attribute value `${xmlunit.ignore}`, `${xmlunit.isNumber}`,
/// `${xmlunit.matchesRegex(…)}` or `${xmlunit.isDateTime}` accepts what it says.
/// `exemptedComparisons` names XMLUnit comparison types whose differences are ignored.
package struct XMLEqualityMatcher: Sendable, CustomStringConvertible {
    let expectedText: String
    let expected: XMLTree
    let placeholders: XMLPlaceholders?
    let exempted: Set<String>

    package init(expectedText: String, expected: XMLTree, placeholders: XMLPlaceholders?, exempted: Set<String>) {
        self.expectedText = expectedText
        self.expected = expected
        self.placeholders = placeholders
        self.exempted = exempted
    }

    /// The comparison types `exemptedComparisons` may name; those not listed under
    /// ``honoured`` are accepted and have no effect here (HTTPMock never reports them).
    package static let comparisonTypes: Set<String> = [
        "ATTR_NAME_LOOKUP", "ATTR_VALUE", "ATTR_VALUE_EXPLICITLY_SPECIFIED", "CHILD_LOOKUP", "CHILD_NODELIST_LENGTH",
        "CHILD_NODELIST_SEQUENCE", "COMMENT_VALUE", "DOCTYPE_NAME", "DOCTYPE_PUBLIC_ID", "DOCTYPE_SYSTEM_ID", "ELEMENT_NUM_ATTRIBUTES",
        "ELEMENT_TAG_NAME", "HAS_DOCTYPE_DECLARATION", "NAMESPACE_PREFIX", "NAMESPACE_URI", "NODE_TYPE", "NO_NAMESPACE_SCHEMA_LOCATION",
        "PROCESSING_INSTRUCTION_DATA", "PROCESSING_INSTRUCTION_TARGET", "SCHEMA_LOCATION", "TEXT_VALUE", "XML_ENCODING",
        "XML_STANDALONE", "XML_VERSION",
    ]

    package var description: String { "equalToXml \(ValueMatcherText.short(expectedText))" }

    package func matches(_ input: MatchInput) -> Bool { mismatch(input) == nil }

    /// Why `input` does not match (`expected … got …`); `nil` when it does.
    func mismatch(_ input: MatchInput) -> String? {
        guard let text = input.text else { return "expected \(description), got no body" }
        let actual: XMLTree
        switch XMLCache.tree(for: input, text: text) {
        case .success(let tree): actual = tree
        case .failure(let error): return "expected \(description), got \(ValueMatcherText.short(text)) (not XML: \(error))"
        }
        guard let expectedRoot = expected.root, let actualRoot = actual.root else { return "expected \(description), got no element" }
        guard let difference = compare(expectedRoot, actualRoot, in: actual, at: "/" + actual.nodes[actualRoot].name) else { return nil }
        return "expected \(description), got \(ValueMatcherText.short(text)) (\(difference))"
    }

    /// The first difference between the expected element and `actualIndex`, with its path.
    private func compare(_ expectedIndex: Int, _ actualIndex: Int, in actual: XMLTree, at path: String) -> String? {
        let wanted = expected.nodes[expectedIndex]
        let got = actual.nodes[actualIndex]
        if !exempted.contains("ELEMENT_TAG_NAME"), wanted.localName != got.localName {
            return "at \(path): expected element \(wanted.name), got \(got.name)"
        }
        if !exempted.contains("NAMESPACE_URI"), wanted.namespaceURI != got.namespaceURI {
            return "at \(path): expected namespace \(wanted.namespaceURI ?? "none"), got \(got.namespaceURI ?? "none")"
        }
        // Attributes, by namespace and local name.
        func key(_ node: XMLTree.Node) -> String { (node.namespaceURI ?? "") + "|" + node.localName }
        let gotAttributes = Dictionary(
            got.attributes.map { (key(actual.nodes[$0]), actual.nodes[$0].value) }, uniquingKeysWith: { a, _ in a })
        for index in wanted.attributes {
            let attribute = expected.nodes[index]
            guard let value = gotAttributes[key(attribute)] else {
                if exempted.contains("ATTR_NAME_LOOKUP") || placeholders?.isIgnore(attribute.value) == true { continue }
                return "at \(path): expected attribute \(attribute.name)=\"\(attribute.value)\", got none"
            }
            if !exempted.contains("ATTR_VALUE"), !valueMatches(attribute.value, value) {
                return "at \(path)/@\(attribute.name): expected \"\(attribute.value)\", got \"\(value)\""
            }
        }
        if !exempted.contains("ATTR_NAME_LOOKUP") {
            let wantedKeys = Set(wanted.attributes.map { key(expected.nodes[$0]) })
            if let extra = got.attributes.first(where: { !wantedKeys.contains(key(actual.nodes[$0])) }) {
                return "at \(path): unexpected attribute \(actual.nodes[extra].name)=\"\(actual.nodes[extra].value)\""
            }
        }
        // Text, trimmed, in order.
        let wantedText = Self.texts(of: wanted, in: expected)
        let gotText = Self.texts(of: got, in: actual)
        if !exempted.contains("TEXT_VALUE") {
            if wantedText.count != gotText.count, !(wantedText.count == 1 && placeholders?.isIgnore(wantedText[0]) == true) {
                return
                    "at \(path): expected text \(wantedText.map { "\"\($0)\"" }.joined(separator: ", ")), got \(gotText.isEmpty ? "none" : gotText.map { "\"\($0)\"" }.joined(separator: ", "))"
            }
            for (a, b) in zip(wantedText, gotText) where !valueMatches(a, b) {
                return "at \(path): expected text \"\(a)\", got \"\(b)\""
            }
        }
        // Child elements, paired by name whatever their order.
        let wantedChildren = wanted.children.filter { expected.nodes[$0].kind == .element }
        var remaining = got.children.filter { actual.nodes[$0].kind == .element }
        if wantedChildren.count != remaining.count, !exempted.contains("CHILD_NODELIST_LENGTH") {
            return
                "at \(path): expected \(wantedChildren.count) child element\(wantedChildren.count == 1 ? "" : "s"), got \(remaining.count)"
        }
        for child in wantedChildren {
            let name = expected.nodes[child]
            guard
                let position = remaining.firstIndex(where: {
                    actual.nodes[$0].localName == name.localName && actual.nodes[$0].namespaceURI == name.namespaceURI
                })
            else {
                if exempted.contains("CHILD_LOOKUP") { continue }
                return "at \(path): expected a child <\(name.name)>, got none"
            }
            let match = remaining.remove(at: position)
            if let difference = compare(child, match, in: actual, at: path + "/" + actual.nodes[match].name) { return difference }
        }
        return nil
    }

    private func valueMatches(_ expected: String, _ actual: String) -> Bool {
        if let placeholders, let verdict = placeholders.evaluate(expected, actual) { return verdict }
        return expected == actual
    }

    /// An element's text children, trimmed, whitespace-only ones left out.
    static func texts(of node: XMLTree.Node, in tree: XMLTree) -> [String] {
        node.children.compactMap { index in
            guard tree.nodes[index].kind == .text else { return nil }
            let text = tree.nodes[index].value.trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? nil : text
        }
    }
}

/// XMLUnit's placeholders, between `${` and `}` unless other delimiters are given.
package struct XMLPlaceholders: Sendable {
    let opening: String
    let closing: String
    /// `matchesRegex(…)` patterns, compiled once.
    let regexes: [String: TextRegex]

    /// A `matchesRegex` pattern that is not a regular expression.
    package struct PatternError: Error, Sendable {
        package let message: String
    }

    /// - Throws: ``PatternError`` for a `matchesRegex` pattern that is not a regular expression.
    package init(opening: String = "${", closing: String = "}", in document: XMLTree) throws(PatternError) {
        self.opening = opening
        self.closing = closing
        var regexes: [String: TextRegex] = [:]
        for node in document.nodes where node.kind == .text || node.kind == .attribute {
            guard let (name, argument) = Self.parse(node.value.trimmingCharacters(in: .whitespacesAndNewlines), opening, closing),
                name == "matchesRegex", let argument
            else { continue }
            do {
                regexes[argument] = try TextRegex(argument)
            } catch {
                throw PatternError(message: "${xmlunit.matchesRegex(\(argument))}: \(error.message)")
            }
        }
        self.regexes = regexes
    }

    private static func parse(_ text: String, _ opening: String, _ closing: String) -> (String, String?)? {
        guard text.hasPrefix(opening + "xmlunit."), text.hasSuffix(closing) else { return nil }
        let inner = text.dropFirst(opening.count + 8).dropLast(closing.count)
        guard let paren = inner.firstIndex(of: "(") else { return (String(inner), nil) }
        guard inner.hasSuffix(")") else { return nil }
        return (String(inner[..<paren]), String(inner[inner.index(after: paren)..<inner.index(before: inner.endIndex)]))
    }

    func isIgnore(_ expected: String) -> Bool {
        Self.parse(expected.trimmingCharacters(in: .whitespacesAndNewlines), opening, closing)?.0 == "ignore"
    }

    /// Whether `actual` satisfies the placeholder `expected`; `nil` when `expected` is none.
    func evaluate(_ expected: String, _ actual: String) -> Bool? {
        guard let (name, argument) = Self.parse(expected.trimmingCharacters(in: .whitespacesAndNewlines), opening, closing) else {
            return nil
        }
        switch name {
        case "ignore": return true
        case "isNumber": return Double(actual.trimmingCharacters(in: .whitespaces)) != nil
        case "matchesRegex": return argument.flatMap { regexes[$0] }?.matchesWhole(actual) ?? false
        case "isDateTime":
            return (try? DateTimeCondition(relation: .after, expected: actual.trimmingCharacters(in: .whitespaces))) != nil
        default: return nil
        }
    }
}

/// WireMock's `matchesXPath`: the expression selects a non-empty node-set; with a sub-matcher,
/// one of the nodes, as text, satisfies it — an element printed as XML (indented, as WireMock
/// prints it), an attribute or a text node as its value. An expression whose value is not a
/// node-set (`count(//a) = 1`) never matches, as in WireMock.
package struct XPathMatcher: Sendable, CustomStringConvertible {
    let xpath: XPath
    let matcher: ValueMatcher?

    package init(xpath: XPath, matcher: ValueMatcher?) {
        self.xpath = xpath
        self.matcher = matcher
    }

    package var description: String {
        "matchesXPath \(xpath.text)"
            + (xpath.namespaces.map { namespaces in
                " (xPathNamespaces " + namespaces.keys.sorted().map { "\($0)=\(namespaces[$0] ?? "")" }.joined(separator: ", ") + ")"
            } ?? "") + (matcher.map { " with \($0)" } ?? "")
    }

    package func matches(_ input: MatchInput) -> Bool {
        guard let text = input.text, case .success(let tree) = XMLCache.tree(for: input, text: text),
            let nodes = xpath.selectNodes(in: tree), !nodes.isEmpty
        else { return false }
        guard let matcher else { return true }
        return nodes.contains { matcher.matches(.text(XMLPrinter.text(of: $0, in: tree))) }
    }

    /// Why `input` does not match (`expected … got …`); `nil` when it does.
    func mismatch(_ input: MatchInput) -> String? {
        guard !matches(input) else { return nil }
        guard let text = input.text else { return "expected \(description), got no body" }
        switch XMLCache.tree(for: input, text: text) {
        case .failure(let error):
            return "expected \(description), got \(ValueMatcherText.short(text)) (not XML: \(error))"
        case .success(let tree):
            guard let nodes = xpath.selectNodes(in: tree) else {
                return "expected \(description), got \(ValueMatcherText.short(text)) (the expression does not select nodes)"
            }
            if nodes.isEmpty {
                let undeclared = xpath.namespaces == nil && !xpath.expression.prefixes.isEmpty
                let why = undeclared ? "the prefix \(xpath.expression.prefixes[0]) is not declared in xPathNamespaces" : "no node matches"
                return "expected \(description), got \(ValueMatcherText.short(text)) (\(why))"
            }
            let found = nodes.prefix(3).map { "\"\(ValueMatcherText.short(XMLPrinter.text(of: $0, in: tree)))\"" }.joined(separator: ", ")
            return "expected \(description), got \(found)\(nodes.count > 3 ? " and \(nodes.count - 3) more" : "")"
        }
    }
}

/// Parses a body at most once per request, however many XML matchers read it (the body keeps
/// the tree); a header or parameter value is parsed where it is read.
enum XMLCache {
    static func tree(for input: MatchInput, text: String) -> Result<XMLTree, XMLTree.ParseError> {
        guard case .body(let body) = input else { return XMLTree.parse(text) }
        return body.xml
    }
}

/// Short quotes of values in reports.
enum ValueMatcherText {
    static func short(_ text: String, limit: Int = 160) -> String {
        // The head only: replacing in and counting a 60 MB body took seconds per report.
        let head = text.prefix(limit + 1)
        let single = head.replacingOccurrences(of: "\n", with: "\\n")
        return head.count <= limit && single.count <= limit ? single : String(single.prefix(limit)) + "…"
    }
}

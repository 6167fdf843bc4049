import Foundation

/// A parsed XML document as WireMock's XML matchers read it: elements, attributes, text,
/// comments and processing instructions in document order (a node's index is its place in
/// document order, which XPath needs), with namespaces resolved.
///
/// HTTPMock reads XML itself rather than with FoundationXML: on Linux, `XMLDocument` loads
/// external entities by default (`<!ENTITY x SYSTEM "file:///…">` reads the file), accepts
/// malformed documents by repairing them, and `nodes(forXPath:)` crashes the process on any
/// XPath error (an undefined prefix, a syntax error) — see LinuxNotes.md. This parser is
/// strict (a malformed document is not XML), reads no DTD (a `<!DOCTYPE>` with an internal
/// subset is refused, so no entity is ever expanded) and bounds nesting.
package struct XMLTree: Sendable {
    enum Kind: Sendable {
        case document, element, attribute, text, comment, processingInstruction
    }

    struct Node: Sendable {
        var kind: Kind
        var parent: Int
        /// The name as written (`t:b`), for elements, attributes and processing instructions.
        var name: String = ""
        var localName: String = ""
        var prefix: String?
        var namespaceURI: String?
        /// Text, an attribute's value, a comment's or processing instruction's content.
        var value: String = ""
        var children: [Int] = []
        var attributes: [Int] = []
        /// The namespace declarations on an element (`xmlns`, `xmlns:p`), prefix → URI.
        var declarations: [(prefix: String?, uri: String)] = []
    }

    /// What was wrong with a document, and where.
    package struct ParseError: Error, Sendable, CustomStringConvertible {
        package let line: Int
        package let message: String
        package var description: String { "line \(line): \(message)" }
    }

    static let maximumDepth = 512
    static let maximumNodes = 1_000_000

    /// Written only while parsing.
    fileprivate(set) var nodes: [Node] = [Node(kind: .document, parent: -1)]

    /// The root element's index.
    var root: Int? { nodes[0].children.first { nodes[$0].kind == .element } }

    /// Parses `text`.
    /// - Throws: ``ParseError`` for anything that is not well-formed XML, or a DTD subset.
    /// The tree of `text`, or why it is not XML.
    static func parse(_ text: String) -> Result<XMLTree, ParseError> {
        do throws(ParseError) {
            return .success(try XMLTree(parsing: text))
        } catch {
            return .failure(error)
        }
    }

    package init(parsing text: String) throws(ParseError) {
        var parser = XMLTreeParser(Array(text.unicodeScalars))
        try parser.document(into: &self)
    }

    mutating func append(_ node: Node) -> Int {
        nodes.append(node)
        let index = nodes.count - 1
        if node.parent >= 0 {
            if node.kind == .attribute {
                nodes[node.parent].attributes.append(index)
            } else {
                nodes[node.parent].children.append(index)
            }
        }
        return index
    }

    mutating func setNamespace(of index: Int, prefix: String?, uri: String?) {
        nodes[index].prefix = prefix
        nodes[index].namespaceURI = uri
    }

    /// XPath's string-value: an element's or the document's descendant text, an attribute's
    /// or text node's value.
    func stringValue(_ index: Int) -> String {
        switch nodes[index].kind {
        case .element, .document:
            var result = ""
            var stack = nodes[index].children.reversed() as [Int]
            while let next = stack.popLast() {
                let node = nodes[next]
                if node.kind == .text {
                    result += node.value
                } else if node.kind == .element {
                    stack += node.children.reversed()
                }
            }
            return result
        default:
            return nodes[index].value
        }
    }
}

/// A strict, non-validating XML 1.0 parser with namespaces.
private struct XMLTreeParser {
    let scalars: [Unicode.Scalar]
    var index = 0
    /// Namespace scopes: prefix (`""` for the default) → URI.
    var scopes: [[String: String]] = [["xml": "http://www.w3.org/XML/1998/namespace"]]

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
        if scalars.first == "\u{FEFF}" { index = 1 }
    }

    mutating func document(into tree: inout XMLTree) throws(XMLTree.ParseError) {
        if starts(with: "<?xml") { try processingInstruction(into: &tree, parent: -1) }
        try misc(into: &tree)
        if starts(with: "<!DOCTYPE") {
            try doctype()
            try misc(into: &tree)
        }
        guard peek() == "<" else { throw error(index >= scalars.count ? "the document has no element" : "expected the root element") }
        try element(into: &tree, parent: 0, depth: 1)
        try misc(into: &tree)
        if index < scalars.count { throw error("content after the root element") }
    }

    /// Comments, processing instructions and whitespace outside the root element.
    mutating func misc(into tree: inout XMLTree) throws(XMLTree.ParseError) {
        while index < scalars.count {
            if isSpace(scalars[index]) {
                index += 1
            } else if starts(with: "<!--") {
                try comment(into: &tree, parent: 0)
            } else if starts(with: "<?") {
                try processingInstruction(into: &tree, parent: 0)
            } else {
                return
            }
        }
    }

    /// `<!DOCTYPE name ["system"]>`: skipped; an internal subset (`[…]`, where entities are
    /// declared) is refused.
    mutating func doctype() throws(XMLTree.ParseError) {
        var quote: Unicode.Scalar?
        while let scalar = peek() {
            index += 1
            if let open = quote {
                if scalar == open { quote = nil }
            } else if scalar == "\"" || scalar == "'" {
                quote = scalar
            } else if scalar == "[" {
                throw error("a <!DOCTYPE> with an internal subset (entity declarations) is not read")
            } else if scalar == ">" {
                return
            }
        }
        throw error("<!DOCTYPE is not closed")
    }

    mutating func element(into tree: inout XMLTree, parent: Int, depth: Int) throws(XMLTree.ParseError) {
        guard depth <= XMLTree.maximumDepth else { throw error("elements are nested deeper than \(XMLTree.maximumDepth) levels") }
        guard tree.nodes.count < XMLTree.maximumNodes else { throw error("the document has more than \(XMLTree.maximumNodes) nodes") }
        index += 1  // <
        let name = try readName()
        let element = tree.append(XMLTree.Node(kind: .element, parent: parent, name: name))
        var scope = scopes.last ?? [:]
        var attributes: [(name: String, value: String)] = []
        // Names seen, for the duplicate check: a list search made 150,000 attributes quadratic.
        var names = Set<String>()
        while true {
            let hadSpace = skipSpace()
            guard let scalar = peek() else { throw error("the tag <\(name) is not closed") }
            if scalar == "/" || scalar == ">" { break }
            guard hadSpace else { throw error("attributes of <\(name)> must be separated by whitespace") }
            let attribute = try readName()
            skipSpace()
            guard peek() == "=" else { throw error("attribute \(attribute) of <\(name)> needs a value") }
            index += 1
            skipSpace()
            let value = try attributeValue()
            guard names.insert(attribute).inserted else {
                throw error("attribute \(attribute) appears twice in <\(name)>")
            }
            attributes.append((attribute, value))
            if attribute == "xmlns" {
                scope[""] = value
                tree.nodes[element].declarations.append((nil, value))
            } else if attribute.hasPrefix("xmlns:") {
                let prefix = String(attribute.dropFirst(6))
                guard !value.isEmpty else { throw error("the namespace prefix \(prefix) is bound to an empty URI") }
                scope[prefix] = value
                tree.nodes[element].declarations.append((prefix, value))
            }
        }
        scopes.append(scope)
        defer { scopes.removeLast() }
        let (prefix, local) = Self.split(name)
        tree.nodes[element].localName = local
        guard prefix == nil || scope[prefix ?? ""] != nil else { throw error("the prefix \(prefix ?? "") of <\(name)> is not declared") }
        let uri = scope[prefix ?? ""].flatMap { $0.isEmpty ? nil : $0 }
        tree.setNamespace(of: element, prefix: prefix, uri: uri)
        for (attribute, value) in attributes where attribute != "xmlns" && !attribute.hasPrefix("xmlns:") {
            let (attributePrefix, attributeLocal) = Self.split(attribute)
            // Unprefixed attributes are in no namespace.
            var attributeURI: String?
            if let attributePrefix {
                guard let bound = scope[attributePrefix] else {
                    throw error("the prefix \(attributePrefix) of \(attribute) is not declared")
                }
                attributeURI = bound
            }
            var node = XMLTree.Node(kind: .attribute, parent: element, name: attribute, value: value)
            node.localName = attributeLocal
            node.prefix = attributePrefix
            node.namespaceURI = attributeURI
            _ = tree.append(node)
        }
        if peek() == "/" {
            index += 1
            guard peek() == ">" else { throw error("expected > after / in <\(name)>") }
            index += 1
            return
        }
        index += 1  // >
        try content(into: &tree, parent: element, depth: depth)
        // </name>
        index += 2
        let closing = try readName()
        guard closing == name else { throw error("</\(closing)> closes <\(name)>") }
        skipSpace()
        guard peek() == ">" else { throw error("expected > in </\(name)>") }
        index += 1
    }

    mutating func content(into tree: inout XMLTree, parent: Int, depth: Int) throws(XMLTree.ParseError) {
        var text = ""
        func flush(_ tree: inout XMLTree) {
            if !text.isEmpty {
                _ = tree.append(XMLTree.Node(kind: .text, parent: parent, value: text))
                text = ""
            }
        }
        while true {
            guard let scalar = peek() else { throw error("<\(tree.nodes[parent].name)> is not closed") }
            if scalar == "<" {
                if starts(with: "</") {
                    flush(&tree)
                    return
                } else if starts(with: "<!--") {
                    flush(&tree)
                    try comment(into: &tree, parent: parent)
                } else if starts(with: "<![CDATA[") {
                    index += 9
                    guard let end = find("]]>") else { throw error("a CDATA section is not closed") }
                    text.unicodeScalars.append(contentsOf: scalars[index..<end])
                    index = end + 3
                } else if starts(with: "<?") {
                    flush(&tree)
                    try processingInstruction(into: &tree, parent: parent)
                } else {
                    flush(&tree)
                    try element(into: &tree, parent: parent, depth: depth + 1)
                }
            } else if scalar == "&" {
                text.unicodeScalars.append(contentsOf: try reference().unicodeScalars)
            } else {
                text.unicodeScalars.append(scalar == "\r" ? "\n" : scalar)
                index += 1
                if scalar == "\r", peek() == "\n" { index += 1 }
            }
        }
    }

    mutating func comment(into tree: inout XMLTree, parent: Int) throws(XMLTree.ParseError) {
        index += 4
        guard let end = find("-->") else { throw error("a comment is not closed") }
        let value = String(String.UnicodeScalarView(scalars[index..<end]))
        index = end + 3
        if parent >= 0 { _ = tree.append(XMLTree.Node(kind: .comment, parent: parent, value: value)) }
    }

    mutating func processingInstruction(into tree: inout XMLTree, parent: Int) throws(XMLTree.ParseError) {
        index += 2
        let target = try readName()
        guard let end = find("?>") else { throw error("<?\(target) is not closed") }
        let value = String(String.UnicodeScalarView(scalars[index..<end])).trimmingCharacters(in: .whitespaces)
        index = end + 2
        if parent >= 0, target.lowercased() != "xml" {
            _ = tree.append(XMLTree.Node(kind: .processingInstruction, parent: parent, name: target, value: value))
        }
    }

    /// A quoted attribute value, references replaced, whitespace characters normalized to spaces.
    mutating func attributeValue() throws(XMLTree.ParseError) -> String {
        guard let quote = peek(), quote == "\"" || quote == "'" else { throw error("an attribute value must be quoted") }
        index += 1
        var value = ""
        while let scalar = peek() {
            if scalar == quote {
                index += 1
                return value
            }
            if scalar == "<" { throw error("< inside an attribute value") }
            if scalar == "&" {
                value += try reference()
            } else {
                value.unicodeScalars.append(scalar == "\t" || scalar == "\n" || scalar == "\r" ? " " : scalar)
                index += 1
            }
        }
        throw error("an attribute value is not closed")
    }

    /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&#N;`, `&#xN;`; any other entity is an error
    /// (no DTD is read, so none is declared).
    mutating func reference() throws(XMLTree.ParseError) -> String {
        let start = index
        index += 1
        while let scalar = peek(), scalar != ";", index - start < 16 { index += 1 }
        guard peek() == ";" else {
            index = start
            throw error("& must start a reference such as &amp;")
        }
        let name = String(String.UnicodeScalarView(scalars[(start + 1)..<index]))
        index += 1
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            var code: UInt32?
            if name.hasPrefix("#x") {
                code = UInt32(name.dropFirst(2), radix: 16)
            } else if name.hasPrefix("#") {
                code = UInt32(name.dropFirst())
            }
            guard let code, let scalar = Unicode.Scalar(code), code != 0 else {
                index = start
                throw error("&\(name); is not a reference XML defines")
            }
            return String(scalar)
        }
    }

    mutating func readName() throws(XMLTree.ParseError) -> String {
        let start = index
        while let scalar = peek(), Self.isNameScalar(scalar) { index += 1 }
        guard index > start, let first = scalars[start] as Unicode.Scalar?, !("0"..."9").contains(first), first != "-", first != "." else {
            throw error("expected a name")
        }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }

    static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x80 || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || scalar == "_" || scalar == "-" || scalar == "." || scalar == ":"
    }

    static func split(_ name: String) -> (prefix: String?, local: String) {
        guard let colon = name.firstIndex(of: ":") else { return (nil, name) }
        return (String(name[..<colon]), String(name[name.index(after: colon)...]))
    }

    @discardableResult
    mutating func skipSpace() -> Bool {
        let start = index
        while let scalar = peek(), isSpace(scalar) { index += 1 }
        return index > start
    }

    func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" }

    func peek() -> Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    func starts(with text: String) -> Bool {
        var position = index
        for scalar in text.unicodeScalars {
            guard position < scalars.count, scalars[position] == scalar else { return false }
            position += 1
        }
        return true
    }

    /// The index where `text` next starts, from the current position.
    func find(_ text: String) -> Int? {
        let pattern = Array(text.unicodeScalars)
        guard let first = pattern.first else { return index }
        var position = index
        // Compared in place: copying a candidate per position made an unterminated comment of
        // 60 MB of dashes take minutes.
        search: while position + pattern.count <= scalars.count {
            if scalars[position] == first {
                for offset in 1..<pattern.count where scalars[position + offset] != pattern[offset] {
                    position += 1
                    continue search
                }
                return position
            }
            position += 1
        }
        return nil
    }

    func error(_ message: String) -> XMLTree.ParseError {
        let line = scalars[..<min(index, scalars.count)].reduce(1) { $0 + ($1 == "\n" ? 1 : 0) }
        return XMLTree.ParseError(line: line, message: message)
    }
}

import Foundation

/// Writes XML nodes as text the way WireMock hands them to a `matchesXPath` sub-matcher: an
/// element as Java's transformer prints it with indentation (two spaces, a line per child
/// element, an element with only text on one line, `<b/>` for an empty one, a final newline,
/// no declaration); an attribute, a text node or a comment as its value.
package enum XMLPrinter {
    package static func text(of index: Int, in tree: XMLTree) -> String {
        let node = tree.nodes[index]
        switch node.kind {
        case .element: return element(index, in: tree, indent: "", declareFrom: index) + "\n"
        case .document: return tree.root.map { text(of: $0, in: tree) } ?? ""
        default: return node.value
        }
    }

    private static func element(_ index: Int, in tree: XMLTree, indent: String, declareFrom top: Int) -> String {
        let node = tree.nodes[index]
        var head = "<" + node.name
        // Namespace declarations: the element's own, and on the printed top element the ones it
        // needs from its ancestors.
        var declarations = node.declarations
        if index == top, let prefix = node.prefix ?? (node.namespaceURI == nil ? nil : ""),
            !declarations.contains(where: { ($0.prefix ?? "") == prefix })
        {
            declarations.insert((prefix.isEmpty ? nil : prefix, node.namespaceURI ?? ""), at: 0)
        }
        for declaration in declarations {
            head += " xmlns" + (declaration.prefix.map { ":" + $0 } ?? "") + "=\"" + escape(declaration.uri, attribute: true) + "\""
        }
        for attribute in node.attributes {
            head += " " + tree.nodes[attribute].name + "=\"" + escape(tree.nodes[attribute].value, attribute: true) + "\""
        }
        let children = node.children.filter { child in
            let kind = tree.nodes[child].kind
            return kind != .text || !tree.nodes[child].value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        }
        if children.isEmpty { return head + "/>" }
        let hasElements = children.contains { tree.nodes[$0].kind == .element }
        if !hasElements {
            return head + ">" + children.map { inline($0, in: tree) }.joined() + "</" + node.name + ">"
        }
        let inner = indent + "  "
        var text = head + ">"
        for child in children {
            text += "\n" + inner
            text += tree.nodes[child].kind == .element ? element(child, in: tree, indent: inner, declareFrom: top) : inline(child, in: tree)
        }
        return text + "\n" + indent + "</" + node.name + ">"
    }

    private static func inline(_ index: Int, in tree: XMLTree) -> String {
        let node = tree.nodes[index]
        switch node.kind {
        case .text: return escape(node.value, attribute: false)
        case .comment: return "<!--" + node.value + "-->"
        case .processingInstruction: return "<?" + node.name + (node.value.isEmpty ? "" : " " + node.value) + "?>"
        default: return ""
        }
    }

    static func escape(_ text: String, attribute: Bool) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">" where !attribute: result += "&gt;"
            case "\"" where attribute: result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}

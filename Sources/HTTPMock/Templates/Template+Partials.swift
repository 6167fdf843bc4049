import Foundation

// Partials: `{{> name}}` read through the caller's resolver, each (name, indentation) parsed
// once into the template's table; a cycle or a chain deeper than 32 is an error naming it.

extension Parser {
    /// Parses the partial `tag` names (once per name and indentation): its index in the
    /// table and how deep blocks nest in it.
    mutating func partial(_ tag: Tag) throws(Template.ParseError) -> (index: Int, nesting: Int) {
        let name = tag.content
        let position = tag.position
        guard let table = partials else { throw .init(message: position + "partials ({{>…}}) are not supported") }
        guard !name.isEmpty, !name.contains(where: { $0.isWhitespace || $0 == "{" || $0 == "}" }) else {
            throw .init(message: position + "{{>\(name)}} does not name a partial")
        }
        let key = name + "\u{0}" + tag.indentation
        if let index = table.indices[key] { return (index, table.nesting[index]) }
        let chainHere = chain + [name]
        // Only the template at the root knows where the chain starts: it puts its position in front.
        func fail(_ message: String) -> Template.ParseError {
            chain.isEmpty ? .init(message: position + message) : .init(message: message, namesItsPartials: true)
        }
        if chain.contains(name) {
            throw fail("partials form a cycle: \(chainHere.joined(separator: " → "))")
        }
        guard chain.count < Template.maximumPartialDepth else {
            throw fail("partials are nested more than \(Template.maximumPartialDepth) deep: \(chainHere.joined(separator: " → "))")
        }
        let found: String?
        do {
            found = try table.resolve(name)
        } catch {
            throw .init(message: position + "the partial \(name) cannot be read: \(error)")
        }
        guard var source = found else { throw .init(message: position + "no partial named \(name)") }
        if !tag.indentation.isEmpty { source = Self.indent(source, by: tag.indentation) }
        var parser = Parser(source, dialect: dialect, check: check, partials: table, chain: chainHere)
        let parsed: (nodes: [Template.Node], nesting: Int)
        do {
            parsed = try parser.parse()
        } catch {
            if error.namesItsPartials { throw chain.isEmpty ? .init(message: position + error.message) : error }
            throw fail("in the partial \(chainHere.joined(separator: " → ")), \(error.message)")
        }
        table.entries.append(parsed.nodes)
        table.nesting.append(parsed.nesting)
        table.indices[key] = table.entries.count - 1
        return (table.entries.count - 1, parsed.nesting)
    }

    /// `source` with `indentation` before each line (a standalone partial's, Mustache's rule).
    static func indent(_ source: String, by indentation: String) -> String {
        var result = indentation
        var rest = Substring(source)
        while let newline = rest.firstIndex(where: \.isNewline) {
            result += rest[...newline]
            rest = rest[rest.index(after: newline)...]
            if !rest.isEmpty { result += indentation }
        }
        return result + rest
    }
}

import Foundation

/// A parsed Mustache template: variables `{{name}}` (also `{{{name}}}` and `{{&name}}`, all
/// unescaped), sections `{{#name}}…{{/name}}`, inverted sections `{{^name}}…{{/name}}`,
/// comments `{{! … }}` and partials `{{> name}}` (read through a resolver the caller supplies:
/// the engine reads no file). Delimiter changes are not supported. Pure logic: parsing reports
/// the line and column of a mistake; rendering never fails.
///
/// Standalone section, inverted, closing, comment and partial tags (alone on their line, with
/// only spaces or tabs around them) remove their whole line, as the Mustache specification
/// says; a standalone partial's indentation is put before each of its lines.
struct Template: Sendable {
    /// A dotted name; `parts` is empty for the implicit iterator `.`.
    struct Name: Sendable, Equatable {
        let text: String
        let parts: [String]
    }

    indirect enum Node: Sendable {
        case text(String)
        case variable(Name)
        case section(Name, inverted: Bool, [Node])
        /// The partial at this index of `partials`, rendered in the current context.
        case partial(Int)
    }

    /// Finds a partial's source by its name, or `nil` when there is none. The caller loads and
    /// confines (Voodoo's template folder, WireMock's `__files/`); an error it throws is a parse
    /// error at the partial's tag, quoting the error.
    typealias PartialResolver = (String) throws -> String?

    /// Partials including partials deeper than this are a parse error naming the chain.
    static let maximumPartialDepth = 32

    struct ParseError: Error, Sendable, CustomStringConvertible {
        let message: String
        /// Set once the message names the partial chain it happened in: the template at the
        /// root only puts its tag's position in front.
        var namesItsPartials = false
        var description: String { message }
    }

    let nodes: [Node]
    /// Every partial the template includes, each parsed once (per indentation), whatever the
    /// number of tags naming it.
    let partials: [[Node]]

    /// Parses `source`. `checkTopLevelName` is asked about every name outside any section
    /// (names inside a section may resolve against the section's value); a message it returns
    /// is an error at that name's position. `partials` resolves `{{> name}}`; without it a
    /// partial tag is an error. A partial may include another; a cycle, or a chain deeper
    /// than ``maximumPartialDepth``, is an error naming the chain (`a → b → a`).
    init(
        parsing source: String, checkTopLevelName: ((Name) -> String?)? = nil, partials: PartialResolver? = nil
    ) throws(ParseError) {
        let table = partials.map(PartialTable.init)
        var parser = Parser(source, check: checkTopLevelName, partials: table, chain: [])
        nodes = try parser.parse().nodes
        self.partials = table?.entries ?? []
    }

    /// The first part is looked up from the innermost context outwards; the rest only inside
    /// the value found (a broken chain is a miss, never a lookup further out).
    static func resolve(_ name: Name, in stack: [JSONValue]) -> JSONValue? {
        guard let first = name.parts.first else { return stack.last }
        for frame in stack.reversed() {
            guard case .object(let object) = frame, var value = object[first] else { continue }
            for part in name.parts.dropFirst() {
                guard let next = value[part] else { return nil }
                value = next
            }
            return value
        }
        return nil
    }

    /// `false`, `null`, a missing name, an empty list and an empty string are false.
    static func isTruthy(_ value: JSONValue) -> Bool {
        switch value {
        case .null: return false
        case .bool(let bool): return bool
        case .array(let elements): return !elements.isEmpty
        case .string(let string): return !string.isEmpty
        case .integer, .double, .object: return true
        }
    }

    /// Text as is, integers without a decimal point, `null` empty, lists and objects as JSON.
    static func interpolation(of value: JSONValue) -> String {
        switch value {
        case .null: return ""
        case .string(let string): return string
        case .bool(let bool): return bool ? "true" : "false"
        case .integer(let integer): return String(integer)
        case .double(let double):
            if double.rounded() == double, abs(double) < 1e15 { return String(Int(double)) }
            return "\(double)"
        case .array, .object:
            return String(decoding: value.data, as: UTF8.self)
        }
    }
}

// MARK: - Parsing

/// The partials of one template while it is parsed: each (name, indentation) parsed once.
private final class PartialTable {
    let resolve: Template.PartialResolver
    var entries: [[Template.Node]] = []
    /// How deep sections nest inside each entry, partials included.
    var nesting: [Int] = []
    var indices: [String: Int] = [:]

    init(_ resolve: @escaping Template.PartialResolver) { self.resolve = resolve }
}

private struct Parser {
    struct Tag {
        let kind: Character?  // #, ^, /, !, &, >, or nil for a variable
        let content: String
        let line: Int
        let column: Int
        /// A standalone partial's indentation.
        var indentation = ""
    }

    enum Token {
        case text(String)
        case tag(Tag)
    }

    let characters: [Character]
    let check: ((Template.Name) -> String?)?
    let partials: PartialTable?
    /// The partials being parsed, outermost first; this parser's source is the last one.
    let chain: [String]
    private var positionIndex = 0
    private var positionLine = 1
    private var positionColumn = 1

    /// Sections nested deeper than this are a parse error: rendering and releasing the tree
    /// recurse once per level.
    static let maximumNesting = 100

    init(_ source: String, check: ((Template.Name) -> String?)?, partials: PartialTable?, chain: [String]) {
        self.characters = Array(source)
        self.check = check
        self.partials = partials
        self.chain = chain
    }

    /// 1-based line and column of `index`, counted on from the last position asked for: tags
    /// are met in order, so the whole source is walked once (from the start each time, 16k
    /// tags took half a minute).
    mutating func position(of index: Int) -> (line: Int, column: Int) {
        if index < positionIndex {
            positionIndex = 0
            positionLine = 1
            positionColumn = 1
        }
        while positionIndex < index {
            if characters[positionIndex].isNewline {
                positionLine += 1
                positionColumn = 1
            } else {
                positionColumn += 1
            }
            positionIndex += 1
        }
        return (positionLine, positionColumn)
    }

    /// The index of the first `closing` at or after `start`, without copying the source.
    func find(_ closing: String, from start: Int) -> Int? {
        let needle = Array(closing)
        guard let first = needle.first, characters.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= characters.count {
            if characters[index] == first {
                var matched = 1
                while matched < needle.count, characters[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return index }
            }
            index += 1
        }
        return nil
    }

    func isBlank(_ character: Character) -> Bool { character == " " || character == "\t" }

    mutating func tokenize() throws(Template.ParseError) -> [Token] {
        var tokens: [Token] = []
        var textStart = 0
        var index = 0
        let count = characters.count
        while index < count {
            guard characters[index] == "{", index + 1 < count, characters[index + 1] == "{" else {
                index += 1
                continue
            }
            let start = index
            let (line, column) = position(of: start)
            var kind: Character?
            var content: String
            var end: Int
            if index + 2 < count, characters[index + 2] == "{" {
                guard let close = find("}}}", from: index + 3) else {
                    throw .init(message: "\(line):\(column): {{{ is never closed with }}}")
                }
                kind = "&"
                content = String(characters[(index + 3)..<close])
                end = close + 3
            } else {
                guard let close = find("}}", from: index + 2) else {
                    throw .init(message: "\(line):\(column): {{ is never closed with }}")
                }
                content = String(characters[(index + 2)..<close]).trimmingCharacters(in: .whitespaces)
                end = close + 2
                if let first = content.first, "#^/!&>=".contains(first) {
                    kind = first
                    content = String(content.dropFirst())
                }
            }
            if kind == ">", partials == nil { throw .init(message: "\(line):\(column): partials ({{>…}}) are not supported") }
            if kind == "=" { throw .init(message: "\(line):\(column): delimiter changes ({{=…=}}) are not supported") }
            if kind != "!" { content = content.trimmingCharacters(in: .whitespaces) }

            var textEnd = start
            var indentation = ""
            if let kind, "#^/!>".contains(kind) {
                // A standalone tag takes its whole line with it.
                var lineStart = start
                while lineStart > textStart, isBlank(characters[lineStart - 1]) { lineStart -= 1 }
                let atLineStart = lineStart == 0 || characters[lineStart - 1].isNewline
                var after = end
                while after < count, isBlank(characters[after]) { after += 1 }
                if atLineStart, lineStart >= textStart, after == count || characters[after].isNewline {
                    textEnd = lineStart
                    if kind == ">" { indentation = String(characters[lineStart..<start]) }
                    end = after < count ? after + 1 : after
                }
            }
            if textEnd > textStart { tokens.append(.text(String(characters[textStart..<textEnd]))) }
            tokens.append(.tag(Tag(kind: kind, content: content, line: line, column: column, indentation: indentation)))
            index = end
            textStart = end
        }
        if textStart < count { tokens.append(.text(String(characters[textStart...]))) }
        return tokens
    }

    func name(of tag: Tag) throws(Template.ParseError) -> Template.Name {
        let text = tag.content
        let shown = "{{\(tag.kind.map(String.init) ?? "")\(text)}}"
        guard !text.isEmpty else { throw .init(message: "\(tag.line):\(tag.column): \(shown) has no name") }
        if text == "." { return Template.Name(text: text, parts: []) }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: { $0.isEmpty || $0.contains(where: { $0.isWhitespace || $0 == "{" || $0 == "}" }) }) else {
            throw .init(message: "\(tag.line):\(tag.column): \(shown) is not a name (dotted words like request.query.id)")
        }
        var normalized = parts
        // Header names are case-insensitive: the context holds them lowercased.
        if normalized.count > 2, normalized[0] == "request", normalized[1] == "headers" {
            normalized[2] = normalized[2].lowercased()
        }
        return Template.Name(text: text, parts: normalized)
    }

    /// The nodes, and how deep sections nest in them (partials included).
    mutating func parse() throws(Template.ParseError) -> (nodes: [Template.Node], nesting: Int) {
        struct Open {
            let name: Template.Name
            let inverted: Bool
            let tag: Tag
            var nodes: [Template.Node] = []
        }
        var root: [Template.Node] = []
        var open: [Open] = []
        var nesting = 0
        func append(_ node: Template.Node) {
            if open.isEmpty { root.append(node) } else { open[open.count - 1].nodes.append(node) }
        }
        for token in try tokenize() {
            switch token {
            case .text(let text):
                append(.text(text))
            case .tag(let tag):
                if tag.kind == "!" { continue }
                if tag.kind == ">" {
                    let (index, inner) = try partial(tag)
                    guard open.count + inner <= Self.maximumNesting else {
                        throw .init(
                            message:
                                "\(tag.line):\(tag.column): sections are nested more than \(Self.maximumNesting) deep (through the partial \(tag.content))"
                        )
                    }
                    nesting = max(nesting, open.count + inner)
                    append(.partial(index))
                    continue
                }
                let name = try name(of: tag)
                if tag.kind != "/", open.isEmpty, let check, let problem = check(name) {
                    throw .init(message: "\(tag.line):\(tag.column): \(problem)")
                }
                switch tag.kind {
                case "#", "^":
                    guard open.count < Self.maximumNesting else {
                        throw .init(message: "\(tag.line):\(tag.column): sections are nested more than \(Self.maximumNesting) deep")
                    }
                    open.append(Open(name: name, inverted: tag.kind == "^", tag: tag))
                    nesting = max(nesting, open.count)
                case "/":
                    guard let section = open.popLast() else {
                        throw .init(message: "\(tag.line):\(tag.column): {{/\(name.text)}} closes no open section")
                    }
                    guard section.name.text == name.text else {
                        throw .init(
                            message:
                                "\(tag.line):\(tag.column): {{/\(name.text)}} closes {{\(section.inverted ? "^" : "#")\(section.name.text)}} opened at \(section.tag.line):\(section.tag.column)"
                        )
                    }
                    append(.section(section.name, inverted: section.inverted, section.nodes))
                default:
                    append(.variable(name))
                }
            }
        }
        if let unclosed = open.last {
            throw .init(
                message:
                    "\(unclosed.tag.line):\(unclosed.tag.column): {{\(unclosed.inverted ? "^" : "#")\(unclosed.name.text)}} is never closed with {{/\(unclosed.name.text)}}"
            )
        }
        return (root, nesting)
    }

    /// Parses the partial `tag` names (once per name and indentation): its index in the
    /// table and how deep sections nest in it.
    mutating func partial(_ tag: Tag) throws(Template.ParseError) -> (index: Int, nesting: Int) {
        let name = tag.content
        let position = "\(tag.line):\(tag.column): "
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
        var parser = Parser(source, check: check, partials: table, chain: chainHere)
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

import Foundation

/// A parsed Mustache template: variables `{{name}}` (also `{{{name}}}` and `{{&name}}`, all
/// unescaped), sections `{{#name}}…{{/name}}`, inverted sections `{{^name}}…{{/name}}` and
/// comments `{{! … }}`. Partials and delimiter changes are not supported. Pure logic: parsing
/// reports the line and column of a mistake; rendering never fails.
///
/// Standalone section, inverted, closing and comment tags (alone on their line, with only
/// spaces or tabs around them) remove their whole line, as the Mustache specification says.
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
    }

    struct ParseError: Error, Sendable, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    let nodes: [Node]

    /// Parses `source`. `checkTopLevelName` is asked about every name outside any section
    /// (names inside a section may resolve against the section's value); a message it returns
    /// is an error at that name's position.
    init(parsing source: String, checkTopLevelName: ((Name) -> String?)? = nil) throws(ParseError) {
        var parser = Parser(source, check: checkTopLevelName)
        nodes = try parser.parse()
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

private struct Parser {
    struct Tag {
        let kind: Character?  // #, ^, /, !, &, or nil for a variable
        let content: String
        let line: Int
        let column: Int
    }

    enum Token {
        case text(String)
        case tag(Tag)
    }

    let characters: [Character]
    let check: ((Template.Name) -> String?)?
    private var positionIndex = 0
    private var positionLine = 1
    private var positionColumn = 1

    /// Sections nested deeper than this are a parse error: rendering and releasing the tree
    /// recurse once per level.
    static let maximumNesting = 100

    init(_ source: String, check: ((Template.Name) -> String?)?) {
        self.characters = Array(source)
        self.check = check
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
            if kind == ">" { throw .init(message: "\(line):\(column): partials ({{>…}}) are not supported") }
            if kind == "=" { throw .init(message: "\(line):\(column): delimiter changes ({{=…=}}) are not supported") }
            if kind != "!" { content = content.trimmingCharacters(in: .whitespaces) }

            var textEnd = start
            if let kind, "#^/!".contains(kind) {
                // A standalone tag takes its whole line with it.
                var lineStart = start
                while lineStart > textStart, isBlank(characters[lineStart - 1]) { lineStart -= 1 }
                let atLineStart = lineStart == 0 || characters[lineStart - 1].isNewline
                var after = end
                while after < count, isBlank(characters[after]) { after += 1 }
                if atLineStart, lineStart >= textStart, after == count || characters[after].isNewline {
                    textEnd = lineStart
                    end = after < count ? after + 1 : after
                }
            }
            if textEnd > textStart { tokens.append(.text(String(characters[textStart..<textEnd]))) }
            tokens.append(.tag(Tag(kind: kind, content: content, line: line, column: column)))
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

    mutating func parse() throws(Template.ParseError) -> [Template.Node] {
        struct Open {
            let name: Template.Name
            let inverted: Bool
            let tag: Tag
            var nodes: [Template.Node] = []
        }
        var root: [Template.Node] = []
        var open: [Open] = []
        func append(_ node: Template.Node) {
            if open.isEmpty { root.append(node) } else { open[open.count - 1].nodes.append(node) }
        }
        for token in try tokenize() {
            switch token {
            case .text(let text):
                append(.text(text))
            case .tag(let tag):
                if tag.kind == "!" { continue }
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
        return root
    }
}

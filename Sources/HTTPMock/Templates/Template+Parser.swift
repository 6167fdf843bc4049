import Foundation

// Parsing: the source is cut into text and tags once (linear: positions are counted on from
// the last tag), then the tags build the tree; partials are parsed once each, through the
// caller's resolver. Handlebars tag contents are read by `ExpressionReader`.

struct Parser {
    struct Tag {
        /// `#`, `^`, `/`, `!`, `&` (unescaped), `>`, `e` (`{{else …}}`), or `nil` for a value.
        let kind: Character?
        let content: String
        let line: Int
        let column: Int
        /// A standalone partial's indentation.
        var indentation = ""

        var position: String { "\(line):\(column): " }
        var shown: String {
            if kind == "e" { return content.isEmpty ? "{{else}}" : "{{else \(content)}}" }
            return "{{\(kind.map(String.init) ?? "")\(content)}}"
        }
    }

    enum Token {
        case text(String)
        case tag(Tag)
    }

    let characters: [Character]
    let dialect: TemplateDialect
    let check: ((Template.Name) -> String?)?
    let partials: PartialTable?
    /// The partials being parsed, outermost first; this parser's source is the last one.
    let chain: [String]
    private var positionIndex = 0
    private var positionLine = 1
    private var positionColumn = 1

    /// Blocks nested deeper than this are a parse error: rendering and releasing the tree
    /// recurse once per level.
    static let maximumNesting = 100

    init(_ source: String, dialect: TemplateDialect, check: ((Template.Name) -> String?)?, partials: PartialTable?, chain: [String]) {
        self.characters = Array(source)
        self.dialect = dialect
        self.check = check
        self.partials = partials
        self.chain = chain
    }

    var isHandlebars: Bool { dialect.syntax == .handlebars }

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

    /// The index of the first `closing` at or after `start`, without copying the source; in
    /// Handlebars, not inside a quoted literal (`{{join a '}}'}}`).
    func find(_ closing: String, from start: Int, quoted: Bool = false) -> Int? {
        let needle = Array(closing)
        guard let first = needle.first, characters.count >= needle.count else { return nil }
        var index = start
        var quote: Character?
        while index + needle.count <= characters.count {
            let character = characters[index]
            if let open = quote {
                if character == "\\" {
                    index += 2
                    continue
                }
                if character == open { quote = nil }
            } else if quoted, character == "'" || character == "\"" {
                quote = character
            } else if character == first {
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
        var stripNextText = false
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
            var stripBefore = false
            var stripAfter = false
            if index + 2 < count, characters[index + 2] == "{" {
                guard let close = find("}}}", from: index + 3, quoted: isHandlebars) else {
                    throw .init(message: "\(line):\(column): {{{ is never closed with }}}")
                }
                kind = "&"
                content = String(characters[(index + 3)..<close])
                end = close + 3
            } else if isHandlebars, index + 4 < count, characters[index + 2] == "!", characters[index + 3] == "-",
                characters[index + 4] == "-"
            {
                guard let close = find("--}}", from: index + 5) else {
                    throw .init(message: "\(line):\(column): {{!-- is never closed with --}}")
                }
                kind = "!"
                content = ""
                end = close + 4
            } else {
                guard let close = find("}}", from: index + 2, quoted: isHandlebars) else {
                    throw .init(message: "\(line):\(column): {{ is never closed with }}")
                }
                content = String(characters[(index + 2)..<close])
                end = close + 2
                if isHandlebars, content.first == "~" {
                    stripBefore = true
                    content.removeFirst()
                }
                if isHandlebars, content.last == "~", content.first != "!" {
                    stripAfter = true
                    content.removeLast()
                }
                content = content.trimmingCharacters(in: .whitespaces)
                if let first = content.first, "#^/!&>=".contains(first) {
                    kind = first
                    content = String(content.dropFirst())
                }
            }
            if kind == ">", partials == nil { throw .init(message: "\(line):\(column): partials ({{>…}}) are not supported") }
            if kind == "=" { throw .init(message: "\(line):\(column): delimiter changes ({{=…=}}) are not supported") }
            if kind != "!" { content = content.trimmingCharacters(in: .whitespaces) }
            if isHandlebars, kind == nil, content == "else" || content.hasPrefix("else ") {
                kind = "e"
                content = String(content.dropFirst(4)).trimmingCharacters(in: .whitespaces)
            } else if isHandlebars, kind == "^", content.isEmpty {
                kind = "e"
            }

            var textEnd = start
            var indentation = ""
            if stripBefore {
                while textEnd > textStart, characters[textEnd - 1].isWhitespace { textEnd -= 1 }
            } else if dialect.removesStandaloneLines, let kind, "#^/!>e".contains(kind) {
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
            var textBegin = textStart
            if stripNextText {
                while textBegin < textEnd, characters[textBegin].isWhitespace { textBegin += 1 }
            }
            if textEnd > textBegin { tokens.append(.text(String(characters[textBegin..<textEnd]))) }
            tokens.append(.tag(Tag(kind: kind, content: content, line: line, column: column, indentation: indentation)))
            stripNextText = stripAfter
            index = end
            textStart = end
        }
        if stripNextText {
            while textStart < count, characters[textStart].isWhitespace { textStart += 1 }
        }
        if textStart < count { tokens.append(.text(String(characters[textStart...]))) }
        return tokens
    }

    /// A Mustache name: dotted words.
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

    /// A block being filled while the tags are read.
    struct Open {
        var kind: Template.BlockKind
        /// What `{{/…}}` must name.
        let closeName: String
        /// How the opening tag is shown in messages (`{{#if}}`, `{{^items}}`).
        let shown: String
        let tag: Tag
        var body: [Template.Node] = []
        var inverse: [Template.Node] = []
        var fillsInverse: Bool
        var sawElse = false
        /// Opened by `{{else if …}}`: closed by its parent's closing tag.
        var chained = false

        var node: Template.Node { .block(kind, body: body, inverse: inverse) }
    }

    /// The nodes, and how deep blocks nest in them (partials included).
    mutating func parse() throws(Template.ParseError) -> (nodes: [Template.Node], nesting: Int) {
        var root: [Template.Node] = []
        var open: [Open] = []
        var nesting = 0
        func append(_ node: Template.Node) {
            guard !open.isEmpty else { return root.append(node) }
            if open[open.count - 1].fillsInverse {
                open[open.count - 1].inverse.append(node)
            } else {
                open[open.count - 1].body.append(node)
            }
        }
        func push(_ block: Open) throws(Template.ParseError) {
            guard open.count < Self.maximumNesting else {
                throw .init(message: block.tag.position + "sections are nested more than \(Self.maximumNesting) deep")
            }
            open.append(block)
            nesting = max(nesting, open.count)
        }
        for token in try tokenize() {
            switch token {
            case .text(let text):
                append(.text(text))
            case .tag(let tag):
                switch tag.kind {
                case "!":
                    continue
                case ">":
                    let (index, inner) = try partial(tag)
                    guard open.count + inner <= Self.maximumNesting else {
                        throw .init(
                            message: tag.position
                                + "sections are nested more than \(Self.maximumNesting) deep (through the partial \(tag.content))")
                    }
                    nesting = max(nesting, open.count + inner)
                    append(.partial(index))
                case "#", "^":
                    try push(try opening(tag, topLevel: open.isEmpty))
                case "e":
                    guard var top = open.popLast() else { throw .init(message: tag.position + "\(tag.shown) is outside any block") }
                    guard !top.sawElse else {
                        throw .init(
                            message: tag.position
                                + "\(tag.shown): \(top.shown) opened at \(top.tag.line):\(top.tag.column) has an else already")
                    }
                    top.sawElse = true
                    top.fillsInverse.toggle()
                    open.append(top)
                    if !tag.content.isEmpty {
                        // `{{else if b}}`: a block inside the else part, closed with its parent.
                        var chained = try opening(
                            Tag(kind: "#", content: tag.content, line: tag.line, column: tag.column), topLevel: false)
                        chained.chained = true
                        try push(chained)
                    }
                case "/":
                    while let top = open.last, top.chained {
                        open.removeLast()
                        append(top.node)
                    }
                    guard let block = open.popLast() else {
                        throw .init(message: tag.position + "{{/\(tag.content)}} closes no open section")
                    }
                    guard block.closeName == tag.content else {
                        throw .init(
                            message: tag.position
                                + "{{/\(tag.content)}} closes \(block.shown) opened at \(block.tag.line):\(block.tag.column)")
                    }
                    append(block.node)
                default:
                    append(try value(tag, topLevel: open.isEmpty))
                }
            }
        }
        if let unclosed = open.last(where: { !$0.chained }) {
            throw .init(message: unclosed.tag.position + "\(unclosed.shown) is never closed with {{/\(unclosed.closeName)}}")
        }
        return (root, nesting)
    }

    /// `{{#…}}` or `{{^…}}`: a section, a built-in block helper or the dialect's.
    mutating func opening(_ tag: Tag, topLevel: Bool) throws(Template.ParseError) -> Open {
        let inverted = tag.kind == "^"
        let sigil = inverted ? "^" : "#"
        guard isHandlebars else {
            let name = try name(of: tag)
            if topLevel, let check, let problem = check(name) { throw .init(message: tag.position + problem) }
            return Open(kind: .section(name), closeName: name.text, shown: "{{\(sigil)\(name.text)}}", tag: tag, fillsInverse: inverted)
        }
        // Block parameters: `{{#each list as |item index|}}`.
        var content = tag.content
        var parameters: [String] = []
        if content.hasSuffix("|"), let start = content.range(of: " as |", options: .backwards) {
            parameters = content[start.upperBound...].dropLast().split(separator: " ").map(String.init)
            content = String(content[..<start.lowerBound])
            guard !parameters.isEmpty, parameters.count <= 2, parameters.allSatisfy({ $0.allSatisfy(ExpressionReader.isIdentifier) }) else {
                throw .init(message: tag.position + "\(tag.shown): block parameters are one or two names, as |item index|")
            }
        }
        var reader = ExpressionReader(content, tag: tag, dialect: dialect)
        let head = try reader.invocation()
        let shown = "{{\(sigil)\(head.text)}}"
        if !parameters.isEmpty, head.text != "each", head.text != "with" {
            throw .init(message: tag.position + "\(tag.shown): only #each and #with take block parameters")
        }
        func only(_ kind: (Template.Expression) -> Template.BlockKind) throws(Template.ParseError) -> Open {
            guard head.positional.count == 1 else {
                throw .init(message: tag.position + "\(tag.shown): #\(head.text) takes one argument, got \(head.positional.count)")
            }
            return Open(kind: kind(head.positional[0]), closeName: head.text, shown: shown, tag: tag, fillsInverse: inverted)
        }
        switch head.text {
        case "if": return try only { .ifTrue($0) }
        case "unless": return try only { .unless($0) }
        case "each": return try only { .each($0, parameters: parameters) }
        case "with": return try only { .with($0, parameters: parameters) }
        default: break
        }
        if let call = try reader.call(head) {
            return Open(kind: .helper(call), closeName: head.text, shown: shown, tag: tag, fillsInverse: inverted)
        }
        guard case .path(let name) = head.expression else {
            throw .init(message: tag.position + "\(tag.shown) opens a block on a literal")
        }
        return Open(kind: .section(name), closeName: head.text, shown: shown, tag: tag, fillsInverse: inverted)
    }

    /// `{{…}}`, `{{{…}}}`, `{{&…}}`: a path, a literal or a helper call.
    mutating func value(_ tag: Tag, topLevel: Bool) throws(Template.ParseError) -> Template.Node {
        let escaped = tag.kind == nil && dialect.escapesHTML
        guard isHandlebars else {
            let name = try name(of: tag)
            if topLevel, let check, let problem = check(name) { throw .init(message: tag.position + problem) }
            return .value(.path(name), escaped: escaped)
        }
        guard !tag.content.isEmpty else { throw .init(message: tag.position + "\(tag.shown) has no name") }
        var reader = ExpressionReader(tag.content, tag: tag, dialect: dialect)
        let head = try reader.invocation()
        if let call = try reader.call(head) { return .value(.call(call), escaped: escaped) }
        return .value(head.expression, escaped: escaped)
    }
}

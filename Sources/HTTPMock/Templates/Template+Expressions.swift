import Foundation

/// Reads the inside of a Handlebars tag: `helper arg 'literal' 12 true key=value (sub …)`, or
/// a path `request.headers.[X-Trace]`, `this`, `../name`, `@index`. Helpers are found in the
/// dialect and prepared here, once.
struct ExpressionReader {
    /// What a tag or sub-expression says: its head, and its arguments when it has any.
    struct Invocation {
        let text: String
        let expression: Template.Expression
        var positional: [Template.Expression] = []
        var hash: [(key: String, value: Template.Expression)] = []
        var hasArguments: Bool { !positional.isEmpty || !hash.isEmpty }
    }

    /// Sub-expressions nested deeper than this are a parse error (they are evaluated recursively).
    static let maximumDepth = 32

    let characters: [Character]
    let tag: Parser.Tag
    let dialect: TemplateDialect
    var index = 0

    init(_ content: String, tag: Parser.Tag, dialect: TemplateDialect) {
        self.characters = Array(content)
        self.tag = tag
        self.dialect = dialect
    }

    func error(_ problem: String) -> Template.ParseError { .init(message: tag.position + "\(tag.shown): \(problem)") }

    /// The whole tag: a head and its arguments, nothing left over.
    mutating func invocation() throws(Template.ParseError) -> Invocation {
        let invocation = try read(depth: 0)
        skipSpaces()
        if index < characters.count { throw error("unexpected \(String(characters[index...]))") }
        return invocation
    }

    /// The helper call `head` is, if it names a helper; arguments without a helper are an error.
    func call(_ head: Invocation) throws(Template.ParseError) -> Template.Call? {
        guard case .path(let name) = head.expression, name.parts.count == 1, !name.isData, name.parent == 0, !name.explicitThis,
            let helper = dialect.helpers[name.parts[0]]
        else {
            if head.hasArguments {
                if case .literal = head.expression { throw error("a literal takes no arguments") }
                throw error("unknown helper \(head.text)")
            }
            return nil
        }
        let site = TemplateHelperSite(
            name: head.text, positional: head.positional.map(\.literalValue),
            hash: head.hash.map { ($0.key, $0.value.literalValue) })
        let prepared: (any Sendable)?
        do {
            prepared = try helper.prepare?(site)
        } catch {
            throw self.error("\(head.text): \(error.message)")
        }
        return Template.Call(name: head.text, helper: helper, positional: head.positional, hash: head.hash, prepared: prepared)
    }

    mutating func skipSpaces() {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
    }

    /// A head and its arguments, up to the end or a `)`.
    mutating func read(depth: Int) throws(Template.ParseError) -> Invocation {
        skipSpaces()
        guard index < characters.count, characters[index] != ")" else { throw error("an expression is missing") }
        let start = index
        let head = try operand(depth: depth, isHead: true)
        var invocation = Invocation(text: String(characters[start..<index]), expression: head)
        while true {
            skipSpaces()
            guard index < characters.count, characters[index] != ")" else { return invocation }
            if let key = hashKey() {
                invocation.hash.append((key, try operand(depth: depth, isHead: false)))
            } else {
                invocation.positional.append(try operand(depth: depth, isHead: false))
            }
        }
    }

    /// `key=` at the reading position: the key, with the reading position after `=`.
    mutating func hashKey() -> String? {
        var end = index
        while end < characters.count, Self.isIdentifier(characters[end]) { end += 1 }
        guard end > index, end < characters.count, characters[end] == "=" else { return nil }
        let key = String(characters[index..<end])
        index = end + 1
        return key
    }

    static func isIdentifier(_ character: Character) -> Bool {
        !character.isWhitespace && !"=~}{()[]/.'\"|".contains(character)
    }

    func isDelimiter(_ position: Int) -> Bool {
        position >= characters.count || characters[position].isWhitespace || characters[position] == ")"
    }

    /// A literal, a path or a `(sub-expression)`.
    mutating func operand(depth: Int, isHead: Bool) throws(Template.ParseError) -> Template.Expression {
        guard index < characters.count else { throw error("an argument is missing") }
        let character = characters[index]
        if character == "(" {
            guard !isHead else { throw error("a sub-expression cannot be called") }
            guard depth < Self.maximumDepth else { throw error("sub-expressions are nested more than \(Self.maximumDepth) deep") }
            index += 1
            let inner = try read(depth: depth + 1)
            guard index < characters.count, characters[index] == ")" else { throw error("( is never closed with )") }
            index += 1
            guard let call = try call(inner) else { throw error("(\(inner.text)) calls no helper (unknown helper \(inner.text))") }
            return .call(call)
        }
        if character == "'" || character == "\"" { return .literal(.string(try quoted(character))) }
        if let literal = keywordOrNumber() { return .literal(literal) }
        return .path(try path())
    }

    mutating func quoted(_ quote: Character) throws(Template.ParseError) -> String {
        index += 1
        var text = ""
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count, characters[index + 1] == quote {
                text.append(quote)
                index += 2
                continue
            }
            if character == quote {
                index += 1
                return text
            }
            text.append(character)
            index += 1
        }
        throw error("the literal \(quote)\(text) is never closed with \(quote)")
    }

    /// `true`, `false`, `null`, `undefined` or a number, followed by a delimiter.
    mutating func keywordOrNumber() -> TemplateValue? {
        var end = index
        while !isDelimiter(end) { end += 1 }
        let word = String(characters[index..<end])
        let value: TemplateValue?
        switch word {
        case "true": value = .bool(true)
        case "false": value = .bool(false)
        case "null", "undefined": value = .null
        default:
            guard word.first == "-" || word.first?.isASCII == true && word.first?.isNumber == true,
                word.dropFirst().allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), word.filter({ $0 == "." }).count <= 1,
                word.last?.isNumber == true
            else { return nil }
            if !word.contains("."), let integer = Int(word) {
                value = .integer(integer)
            } else if let double = Double(word) {
                value = .double(double)
            } else {
                return nil
            }
        }
        index = end
        return value
    }

    /// `a.b`, `a/b`, `a.[any text]`, `a.[0]`, `this`, `this.a`, `./a`, `../a`, `@index`, `@root.a`.
    mutating func path() throws(Template.ParseError) -> Template.Name {
        let start = index
        var parts: [String] = []
        var parent = 0
        var isData = false
        var explicitThis = false
        if characters[index] == "@" {
            isData = true
            index += 1
        }
        while true {
            guard index < characters.count else { break }
            if characters[index] == "[" {
                guard let close = characters[index...].firstIndex(of: "]") else { throw error("[ is never closed with ]") }
                parts.append(String(characters[(index + 1)..<close]))
                index = close + 1
            } else if parts.isEmpty, !isData, characters[index...].starts(with: "..") {
                parent += 1
                index += 2
            } else if parts.isEmpty, !isData, characters[index] == "." {
                explicitThis = true
                index += 1
                if isDelimiter(index) { break }
            } else {
                let segmentStart = index
                while index < characters.count, Self.isIdentifier(characters[index]) { index += 1 }
                guard index > segmentStart else { throw error("unexpected \(characters[index])") }
                let segment = String(characters[segmentStart..<index])
                if parts.isEmpty, !isData, !explicitThis, segment == "this" {
                    explicitThis = true
                } else {
                    parts.append(segment)
                }
            }
            guard index < characters.count, characters[index] == "." || characters[index] == "/" else { break }
            index += 1
        }
        if isData, parts.isEmpty { throw error("@ names no data variable") }
        return Template.Name(
            text: String(characters[start..<index]), parts: parts, parent: parent, isData: isData, explicitThis: explicitThis)
    }
}

extension Template.Expression {
    /// The value, when the expression is a literal.
    var literalValue: TemplateValue? {
        if case .literal(let value) = self { return value }
        return nil
    }
}

import Foundation

/// Reads Jayway's JSONPath syntax into a ``JSONPath`` (paths) and ``JSONPathFilter``s (the
/// `[?(…)]` expressions inside them). A recursive-descent parser over Unicode scalars; nesting
/// is bounded by ``JSONPath/maximumNesting``, so no input exhausts the stack.
struct JSONPathParser {
    private let scalars: [Unicode.Scalar]
    private let text: String
    private var index = 0

    private init(_ text: String) {
        self.text = text
        self.scalars = Array(text.unicodeScalars)
    }

    static func parse(_ raw: String) throws(JSONPath.ParseError) -> JSONPath {
        guard raw.utf8.count <= JSONPath.maximumLength else {
            throw JSONPath.ParseError(offset: 0, message: "a JSONPath may be at most \(JSONPath.maximumLength) characters long")
        }
        var text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw JSONPath.ParseError(offset: 0, message: "the JSONPath is empty") }
        // Jayway reads `store.book` as `$.store.book`.
        if !text.hasPrefix("$"), !text.hasPrefix("@") { text = (text.hasPrefix("[") ? "$" : "$.") + text }
        var parser = JSONPathParser(text)
        let path = try parser.path(depth: 0, inFilter: false)
        if parser.index < parser.scalars.count {
            throw parser.error("unexpected \"\(parser.scalars[parser.index])\"")
        }
        return path
    }

    // MARK: Paths

    private mutating func path(depth: Int, inFilter: Bool) throws(JSONPath.ParseError) -> JSONPath {
        let start = index
        let root: JSONPath.Root
        switch peek() {
        case "$": root = .document
        case "@": root = .current
        default: throw error("a path starts with $ or @")
        }
        index += 1
        var segments: [JSONPath.Segment] = []
        var function: JSONPath.Function?
        while index < scalars.count, function == nil {
            let scalar = scalars[index]
            if scalar == "." {
                let isDeep = peek(1) == "."
                index += isDeep ? 2 : 1
                if peek() == "*" {
                    index += 1
                    segments.append(.init(selector: .wildcard, isDeepScan: isDeep))
                } else if peek() == "[" {
                    guard isDeep else { throw error("a name is expected after .") }
                    segments.append(.init(selector: try bracket(depth: depth), isDeepScan: true))
                } else {
                    let name = readName()
                    guard !name.isEmpty else { throw error("a name is expected after \(isDeep ? ".." : ".")") }
                    if peek() == "(" {
                        index += 1
                        skipSpaces()
                        guard peek() == ")" else { throw error("functions with arguments are not supported: \(name)(…)") }
                        guard !isDeep, let known = JSONPath.Function(rawValue: name) else {
                            throw error(
                                "unknown function \(name)(); supported: \(JSONPath.Function.allCases.map { $0.rawValue + "()" }.joined(separator: ", "))"
                            )
                        }
                        index += 1
                        function = known
                    } else {
                        segments.append(.init(selector: .names([name]), isDeepScan: isDeep))
                    }
                }
            } else if scalar == "[" {
                segments.append(.init(selector: try bracket(depth: depth), isDeepScan: false))
            } else if inFilter || scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
                break
            } else {
                throw error("unexpected \"\(scalar)\" in the path")
            }
        }
        if function != nil, index < scalars.count, !inFilter {
            skipSpaces()
            if index < scalars.count { throw error("a function ends the path") }
        }
        let written = String(String.UnicodeScalarView(scalars[start..<index]))
        return JSONPath(text: written, root: root, segments: segments, function: function)
    }

    /// A name after `.`: up to a character that ends a step or starts an operator.
    private mutating func readName() -> String {
        let start = index
        while index < scalars.count, !Self.nameTerminators.contains(scalars[index]) { index += 1 }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }

    private static let nameTerminators: Set<Unicode.Scalar> = [
        ".", "[", "(", ")", " ", "\t", "\n", "\r", "=", "!", "<", ">", "&", "|", ",", "]", "~",
    ]

    /// `[…]`: names, indexes, a slice, `*` or a filter.
    private mutating func bracket(depth: Int) throws(JSONPath.ParseError) -> JSONPath.Selector {
        index += 1  // [
        skipSpaces()
        let selector: JSONPath.Selector
        switch peek() {
        case "?":
            index += 1
            skipSpaces()
            guard peek() == "(" else { throw error("a filter is written [?(…)]") }
            index += 1
            guard depth + 1 <= JSONPath.maximumNesting else {
                throw error("filters are nested deeper than \(JSONPath.maximumNesting) levels")
            }
            let filter = try orExpression(depth: depth + 1)
            skipSpaces()
            guard peek() == ")" else { throw error("expected ) to close the filter") }
            index += 1
            selector = .filter(filter)
        case "*":
            index += 1
            selector = .wildcard
        case "'", "\"":
            var names: [String] = []
            repeat {
                skipSpaces()
                if peek() == "," {
                    index += 1
                    skipSpaces()
                }
                guard let quote = peek(), quote == "'" || quote == "\"" else { throw error("expected a quoted name") }
                names.append(try quoted(quote))
                skipSpaces()
            } while peek() == ","
            selector = .names(names)
        default:
            selector = try indexesOrSlice()
        }
        skipSpaces()
        guard peek() == "]" else { throw error("expected ]") }
        index += 1
        return selector
    }

    private mutating func indexesOrSlice() throws(JSONPath.ParseError) -> JSONPath.Selector {
        var numbers: [Int?] = [integer()]
        var colons = 0
        var commas = 0
        while true {
            skipSpaces()
            if peek() == ":" {
                colons += 1
                index += 1
                skipSpaces()
                numbers.append(integer())
            } else if peek() == "," {
                commas += 1
                index += 1
                skipSpaces()
                guard let next = integer() else { throw error("expected an index after ,") }
                numbers.append(next)
            } else {
                break
            }
        }
        if colons > 0 {
            guard commas == 0, colons <= 2 else { throw error("a slice is [start:end] or [start:end:step]") }
            guard numbers.contains(where: { $0 != nil }) else { throw error("a slice needs a start or an end: [start:end]") }
            return .slice(start: numbers[0], end: numbers[1], step: colons == 2 ? numbers[2] : nil)
        }
        let indices = numbers.compactMap { $0 }
        guard indices.count == numbers.count, !indices.isEmpty else { throw error("expected an index, a quoted name, * or ?(…)") }
        return .indices(indices)
    }

    private mutating func integer() -> Int? {
        let start = index
        if peek() == "-" { index += 1 }
        while let scalar = peek(), ("0"..."9").contains(scalar) { index += 1 }
        guard index > start, let value = Int(String(String.UnicodeScalarView(scalars[start..<index]))) else {
            index = start
            return nil
        }
        return value
    }

    /// A string in `quote`s; `\` escapes the next character (`\n`, `\t` as in JSON).
    private mutating func quoted(_ quote: Unicode.Scalar) throws(JSONPath.ParseError) -> String {
        let start = index
        index += 1
        var result = String.UnicodeScalarView()
        while let scalar = peek() {
            index += 1
            if scalar == quote { return String(result) }
            if scalar == "\\", let next = peek() {
                index += 1
                switch next {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                default: result.append(next)
                }
            } else {
                result.append(scalar)
            }
        }
        index = start
        throw error("a string is not closed")
    }

    // MARK: Filters

    private mutating func orExpression(depth: Int) throws(JSONPath.ParseError) -> JSONPathFilter {
        var result = try andExpression(depth: depth)
        while skipSpaces(), consume("||") {
            result = .or(result, try andExpression(depth: depth))
        }
        return result
    }

    private mutating func andExpression(depth: Int) throws(JSONPath.ParseError) -> JSONPathFilter {
        var result = try unary(depth: depth)
        while skipSpaces(), consume("&&") {
            result = .and(result, try unary(depth: depth))
        }
        return result
    }

    private mutating func unary(depth: Int) throws(JSONPath.ParseError) -> JSONPathFilter {
        skipSpaces()
        guard depth <= JSONPath.maximumNesting else { throw error("the filter is nested deeper than \(JSONPath.maximumNesting) levels") }
        if peek() == "!", peek(1) != "=" {
            index += 1
            return .not(try unary(depth: depth + 1))
        }
        if peek() == "(" {
            index += 1
            let inner = try orExpression(depth: depth + 1)
            skipSpaces()
            guard peek() == ")" else { throw error("expected ) to close (") }
            index += 1
            return inner
        }
        let left = try operand(depth: depth)
        skipSpaces()
        guard let relation = relation() else {
            guard case .path(let path) = left else { throw error("a value alone is not a condition; compare it with ==, <, in, …") }
            return .exists(path)
        }
        skipSpaces()
        let right = try operand(depth: depth)
        return .compare(left, relation, right)
    }

    private mutating func relation() -> JSONPathFilter.Relation? {
        for (token, relation) in Self.symbolRelations where consume(token) { return relation }
        for relation in JSONPathFilter.Relation.words {
            let word = relation.rawValue
            let end = index + word.unicodeScalars.count
            guard end <= scalars.count, String(String.UnicodeScalarView(scalars[index..<end])) == word else { continue }
            if end < scalars.count, scalars[end].properties.isAlphabetic { continue }
            index = end
            return relation
        }
        return nil
    }

    /// Longest first, so `===` is not read as `==` followed by `=`.
    private static let symbolRelations: [(String, JSONPathFilter.Relation)] = [
        ("===", .strictlyEqual), ("!==", .strictlyNotEqual), ("==", .equal), ("!=", .notEqual), ("<=", .lessOrEqual),
        (">=", .greaterOrEqual), ("=~", .matches), ("<", .less), (">", .greater),
    ]

    private mutating func operand(depth: Int) throws(JSONPath.ParseError) -> JSONPathFilter.Operand {
        skipSpaces()
        guard let scalar = peek() else { throw error("the filter ends where a value should be") }
        switch scalar {
        case "@", "$":
            return .path(try path(depth: depth, inFilter: true))
        case "'", "\"":
            return .value(.string(try quoted(scalar)))
        case "/":
            return .regex(try regex())
        case "[":
            return .value(try arrayLiteral())
        case "{":
            return .value(try objectLiteral())
        default:
            if let number = number() { return .value(number) }
            for (word, value) in [("true", JSONValue.bool(true)), ("false", .bool(false)), ("null", .null)] where consume(word) {
                return .value(value)
            }
            throw error("expected a path (@… or $…), a string, a number, true, false, null, [list] or /regex/")
        }
    }

    private mutating func number() -> JSONValue? {
        let start = index
        if peek() == "-" { index += 1 }
        while let scalar = peek(), ("0"..."9").contains(scalar) || scalar == "." || scalar == "e" || scalar == "E" {
            index += 1
            if scalar == "e" || scalar == "E", peek() == "-" || peek() == "+" { index += 1 }
        }
        let text = String(String.UnicodeScalarView(scalars[start..<index]))
        if let integer = Int(text) { return .integer(integer) }
        if text.contains(where: \.isNumber), let double = Double(text), double.isFinite { return .double(double) }
        index = start
        return nil
    }

    /// `[v, v, …]` of literal values (strings in either quote, numbers, true, false, null).
    private mutating func arrayLiteral() throws(JSONPath.ParseError) -> JSONValue {
        index += 1
        var values: [JSONValue] = []
        skipSpaces()
        if peek() == "]" {
            index += 1
            return .array(values)
        }
        while true {
            skipSpaces()
            guard case .value(let value) = try operand(depth: 0) else { throw error("a list holds literal values only") }
            values.append(value)
            skipSpaces()
            if consume(",") { continue }
            guard consume("]") else { throw error("expected , or ] in the list") }
            return .array(values)
        }
    }

    /// `{…}` read as (lenient) JSON, up to its matching brace.
    private mutating func objectLiteral() throws(JSONPath.ParseError) -> JSONValue {
        let start = index
        var level = 0
        var quote: Unicode.Scalar?
        while let scalar = peek() {
            index += 1
            if let open = quote {
                if scalar == "\\" {
                    index += 1
                } else if scalar == open {
                    quote = nil
                }
            } else if scalar == "'" || scalar == "\"" {
                quote = scalar
            } else if scalar == "{" {
                level += 1
            } else if scalar == "}" {
                level -= 1
                if level == 0 { break }
            }
        }
        guard level == 0 else {
            index = start
            throw error("an object literal is not closed")
        }
        let literal = String(String.UnicodeScalarView(scalars[start..<index]))
        do {
            return try JSONReader.parse(literal, lenient: true)
        } catch {
            index = start
            throw self.error("the object literal is not JSON: \(error.message)")
        }
    }

    /// `/pattern/flags`: `\/` is a slash inside the pattern; flags `i` (case-insensitive),
    /// `s` (dot matches newlines), `m` (multi-line anchors).
    private mutating func regex() throws(JSONPath.ParseError) -> TextRegex {
        let start = index
        index += 1
        var pattern = ""
        var closed = false
        while let scalar = peek() {
            index += 1
            if scalar == "\\", peek() == "/" {
                pattern.unicodeScalars.append("/")
                index += 1
            } else if scalar == "/" {
                closed = true
                break
            } else {
                pattern.unicodeScalars.append(scalar)
            }
        }
        guard closed else {
            index = start
            throw error("a regular expression /…/ is not closed")
        }
        var flags = ""
        while let scalar = peek(), "ismx".unicodeScalars.contains(scalar) {
            flags.unicodeScalars.append(scalar)
            index += 1
        }
        do {
            return try TextRegex(flags.isEmpty ? pattern : "(?\(flags))" + pattern)
        } catch {
            index = start
            throw self.error("/\(pattern)/ is not a regular expression: \(error.message)")
        }
    }

    // MARK: Reading

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    /// Skips spaces; always `true`, so it can lead a `while` condition.
    @discardableResult
    private mutating func skipSpaces() -> Bool {
        while let scalar = peek(), scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" { index += 1 }
        return true
    }

    private mutating func consume(_ token: String) -> Bool {
        let tokenScalars = Array(token.unicodeScalars)
        guard index + tokenScalars.count <= scalars.count, Array(scalars[index..<(index + tokenScalars.count)]) == tokenScalars else {
            return false
        }
        index += tokenScalars.count
        return true
    }

    private func error(_ message: String) -> JSONPath.ParseError {
        JSONPath.ParseError(offset: index, message: "JSONPath \"\(text)\": \(message)")
    }
}

import Foundation

/// A JSON parser that keeps what matchers need: an integer stays an integer, a number written
/// with a fraction or an exponent stays a `Double` (`10.0` is not read back as `10`), and a
/// mistake is reported by line and column.
///
/// With `lenient`, it reads what WireMock's Jackson reader accepts in mapping files besides
/// JSON: `//` and `/* … */` comments and single-quoted strings (`'name': 'value'`). Trailing
/// commas and unquoted names are refused, as WireMock refuses them.
///
/// Bounded: nesting deeper than ``maximumDepth`` is an error, so no input exhausts the stack;
/// the cost is linear in the input.
package struct JSONReader {
    /// A position and what was wrong there.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// 1-based line and column (columns count Unicode scalars).
        package let line: Int
        package let column: Int
        package let message: String

        package var description: String { "line \(line), column \(column): \(message)" }
    }

    /// Objects and arrays nested deeper than this are refused.
    static let maximumDepth = 512

    /// The document in `data`.
    /// - Throws: ``Failure`` naming the line and column of the first mistake.
    package static func parse(_ data: Data, lenient: Bool = false) throws(Failure) -> JSONValue {
        try parseOrdered(data, lenient: lenient).value
    }

    /// The document in `text`.
    package static func parse(_ text: String, lenient: Bool = false) throws(Failure) -> JSONValue {
        try parseOrdered(text, lenient: lenient).value
    }

    /// The document in `data`, object members in document order.
    package static func parseOrdered(_ data: Data, lenient: Bool = false) throws(Failure) -> OrderedJSON {
        var reader = JSONReader(bytes: [UInt8](data), lenient: lenient)
        return try reader.document()
    }

    /// The document in `text`, object members in document order.
    package static func parseOrdered(_ text: String, lenient: Bool = false) throws(Failure) -> OrderedJSON {
        var reader = JSONReader(bytes: Array(text.utf8), lenient: lenient)
        return try reader.document()
    }

    /// The document in `data` and, when it is an object whose member `key` is an array, the line
    /// each element of that array starts on (`{"mappings": [...]}` files, for reports that name
    /// a mapping's line). One pass over the bytes.
    package static func parseOrdered(_ data: Data, lenient: Bool, linesOfElementsOf key: String) throws(Failure) -> (OrderedJSON, [Int]?) {
        var reader = JSONReader(bytes: [UInt8](data), lenient: lenient)
        reader.recordLinesOf = key
        let document = try reader.document()
        return (document, reader.recordedLines)
    }

    private let bytes: [UInt8]
    private let lenient: Bool
    private var index = 0
    private var depth = 0
    /// When set, the line of each element of this top-level member's array is recorded.
    private var recordLinesOf: String?
    private var recordedLines: [Int]?

    private init(bytes: [UInt8], lenient: Bool) {
        self.bytes = bytes
        self.lenient = lenient
        // A UTF-8 byte order mark is not part of the document.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    private mutating func document() throws(Failure) -> OrderedJSON {
        try skipSpace()
        guard index < bytes.count else { throw failure("the document is empty") }
        let value = try self.value()
        try skipSpace()
        if index < bytes.count { throw failure("unexpected \(describe(bytes[index])) after the document") }
        return value
    }

    private mutating func value(recording: Bool = false) throws(Failure) -> OrderedJSON {
        guard index < bytes.count else { throw failure("the document ends where a value should be") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array(recording: recording)
        case UInt8(ascii: "\""): return .scalar(.string(try string(quote: UInt8(ascii: "\""))))
        case UInt8(ascii: "'") where lenient: return .scalar(.string(try string(quote: UInt8(ascii: "'"))))
        case UInt8(ascii: "t"): return .scalar(try word("true", .bool(true)))
        case UInt8(ascii: "f"): return .scalar(try word("false", .bool(false)))
        case UInt8(ascii: "n"): return .scalar(try word("null", .null))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .scalar(try number())
        case let byte: throw failure("unexpected \(describe(byte)) where a value should be")
        }
    }

    private mutating func object() throws(Failure) -> OrderedJSON {
        try enter()
        index += 1
        var members: [OrderedJSON.Member] = []
        var positions: [String: Int] = [:]
        try skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            try skipSpace()
            guard index < bytes.count else { throw failure("the document ends inside an object") }
            let key: String
            switch bytes[index] {
            case UInt8(ascii: "\""): key = try string(quote: UInt8(ascii: "\""))
            case UInt8(ascii: "'") where lenient: key = try string(quote: UInt8(ascii: "'"))
            case let byte: throw failure("expected a member name in double quotes, got \(describe(byte))")
            }
            try skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw failure("expected : after the member name \"\(key)\"")
            }
            index += 1
            try skipSpace()
            let member = OrderedJSON.Member(key: key, value: try value(recording: depth == 1 && key == recordLinesOf))
            // A repeated name keeps its last value (as Jackson does), at its first place.
            if let position = positions[key] {
                members[position] = member
            } else {
                positions[key] = members.count
                members.append(member)
            }
            try skipSpace()
            guard index < bytes.count else { throw failure("the document ends inside an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(members)
            }
            throw failure("expected , or } in an object, got \(describe(bytes[index]))")
        }
    }

    private mutating func array(recording: Bool = false) throws(Failure) -> OrderedJSON {
        try enter()
        index += 1
        var elements: [OrderedJSON] = []
        if recording { recordedLines = [] }
        try skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            try skipSpace()
            if recording {
                let line = currentLine()
                recordedLines?.append(line)
            }
            elements.append(try value())
            try skipSpace()
            guard index < bytes.count else { throw failure("the document ends inside an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(elements)
            }
            throw failure("expected , or ] in an array, got \(describe(bytes[index]))")
        }
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > Self.maximumDepth { throw failure("objects and arrays are nested deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func word(_ text: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
        let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        guard index + expected.count <= bytes.count, bytes[index..<(index + expected.count)].elementsEqual(expected) else {
            throw failure("expected \(text)")
        }
        index += expected.count
        return value
    }

    private mutating func number() throws(Failure) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs digits after -") }
        if bytes[index] == UInt8(ascii: "0"), index + 1 < bytes.count, isDigit(bytes[index + 1]) {
            throw failure("a number may not start with 0")
        }
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs digits after .") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs digits in its exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else { throw failure("the number \(text) is out of range") }
        return .double(double)
    }

    private mutating func string(quote: UInt8) throws(Failure) -> String {
        index += 1
        var result: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote {
                index += 1
                return String(decoding: result, as: UTF8.self)
            }
            if byte < 0x20 { throw failure("a control character (\(describe(byte))) inside a string must be escaped") }
            if byte != UInt8(ascii: "\\") {
                result.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): result.append(escape)
            case UInt8(ascii: "'") where lenient: result.append(escape)
            case UInt8(ascii: "b"): result.append(0x08)
            case UInt8(ascii: "f"): result.append(0x0C)
            case UInt8(ascii: "n"): result.append(0x0A)
            case UInt8(ascii: "r"): result.append(0x0D)
            case UInt8(ascii: "t"): result.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                {
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw failure("\\u\(String(scalar, radix: 16)) is an unpaired surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                result.append(contentsOf: Array(String(character).utf8))
            default:
                throw failure("\\\(describe(escape)) is not an escape")
            }
        }
        throw failure("the document ends inside a string")
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
        else { throw failure("\\u needs four hexadecimal digits") }
        index += 4
        return value
    }

    private mutating func skipSpace() throws(Failure) {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D:
                index += 1
            case UInt8(ascii: "/") where lenient && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            case UInt8(ascii: "/") where lenient && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                let start = index
                index += 2
                while index + 1 < bytes.count, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) { index += 1 }
                guard index + 1 < bytes.count else {
                    index = start
                    throw failure("a /* comment is not closed")
                }
                index += 2
            default:
                return
            }
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x21, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return String(format: "byte 0x%02X", byte)
    }

    /// The line of the current position, counted on from the last call (the recorded lines
    /// of a large file cost one pass over it, not one per element).
    private var lineCursor = (position: 0, line: 1)

    private mutating func currentLine() -> Int {
        var (position, line) = lineCursor
        while position < index {
            if bytes[position] == 0x0A { line += 1 }
            position += 1
        }
        lineCursor = (position, line)
        return line
    }

    /// An error at the current position.
    private func failure(_ message: String) -> Failure {
        var line = 1
        var lineStart = 0
        let end = min(index, bytes.count)
        for position in 0..<end where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        let column = String(decoding: bytes[lineStart..<end], as: UTF8.self).unicodeScalars.count + 1
        return Failure(line: line, column: column, message: message)
    }
}

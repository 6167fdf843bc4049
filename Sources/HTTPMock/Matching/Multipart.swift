import Foundation

/// One part of a `multipart/*` body (RFC 7578, RFC 2046 §5.1): its header fields and its bytes.
struct MultipartPart: Sendable {
    package let headers: HTTPHeaders
    package let body: Data
}

/// Reads a `multipart/*` request body into its parts.
enum Multipart {
    /// Parts at most; a body with more is not read as multipart.
    static let maximumParts = 1_000

    /// The parts of `request`'s body; `nil` when its `Content-Type` is not `multipart/*` with a
    /// boundary, or the body does not follow it.
    static func parts(of request: MockRequest) -> [MultipartPart]? {
        guard let contentType = request.headers["Content-Type"], let boundary = boundary(in: contentType), let body = request.body else {
            return nil
        }
        return parts(of: body, boundary: boundary)
    }

    /// `boundary` of a `multipart/…; boundary=…` content type (quoted or not).
    static func boundary(in contentType: String) -> String? {
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let type = pieces.first, type.lowercased().hasPrefix("multipart/") else { return nil }
        for piece in pieces.dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty || value.utf8.count > 70 ? nil : value
        }
        return nil
    }

    /// Splits `body` at `--boundary` delimiters: the preamble and epilogue are ignored; each
    /// part is header lines, an empty line, then its bytes up to the CRLF before the next
    /// delimiter. Lines ending in a bare LF are accepted too.
    static func parts(of body: Data, boundary: String) -> [MultipartPart]? {
        let bytes = [UInt8](body)
        let delimiter = Array("--\(boundary)".utf8)
        var positions: [Int] = []
        var index = 0
        while let found = find(delimiter, in: bytes, from: index) {
            // A delimiter starts the body or a line.
            if found == 0 || (found >= 1 && bytes[found - 1] == 0x0A) {
                positions.append(found)
                if positions.count > maximumParts + 1 { return nil }
            }
            index = found + delimiter.count
        }
        guard positions.count >= 2 else { return nil }
        var parts: [MultipartPart] = []
        for (start, end) in zip(positions, positions.dropFirst()) {
            var cursor = start + delimiter.count
            // `--` after a delimiter closes the body.
            if cursor + 1 < bytes.count, bytes[cursor] == UInt8(ascii: "-"), bytes[cursor + 1] == UInt8(ascii: "-") { break }
            // The rest of the delimiter line (transport padding, CRLF).
            while cursor < end, bytes[cursor] != 0x0A { cursor += 1 }
            cursor += 1
            var headers = HTTPHeaders()
            while cursor < end {
                var lineEnd = cursor
                while lineEnd < end, bytes[lineEnd] != 0x0A { lineEnd += 1 }
                var line = bytes[cursor..<lineEnd]
                if line.last == 0x0D { line = line.dropLast() }
                cursor = lineEnd + 1
                if line.isEmpty { break }
                let text = String(decoding: line, as: UTF8.self)
                guard let colon = text.firstIndex(of: ":") else { return nil }
                headers.combine(
                    name: String(text[..<colon]).trimmingCharacters(in: .whitespaces),
                    value: String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
            }
            // The part's bytes end before the line break that precedes the next delimiter.
            var bodyEnd = end
            if bodyEnd > cursor, bytes[bodyEnd - 1] == 0x0A { bodyEnd -= 1 }
            if bodyEnd > cursor, bytes[bodyEnd - 1] == 0x0D { bodyEnd -= 1 }
            parts.append(MultipartPart(headers: headers, body: cursor < bodyEnd ? Data(bytes[cursor..<bodyEnd]) : Data()))
        }
        return parts
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        let first = needle[0]
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// WireMock's `multipartPatterns` entry: with `ANY`, some part satisfies its header matchers
/// and body patterns; with `ALL`, every part does. A request that is not multipart matches no
/// pattern.
package struct MultipartCondition: Sendable, CustomStringConvertible {
    package enum MatchingType: String, Sendable {
        case any = "ANY"
        case all = "ALL"
    }

    let matchingType: MatchingType
    package let headers: [(name: String, matcher: MultiValueMatcher)]
    let bodyPatterns: [ValueMatcher]

    package init(matchingType: MatchingType, headers: [(name: String, matcher: MultiValueMatcher)], bodyPatterns: [ValueMatcher]) {
        self.matchingType = matchingType
        self.headers = headers
        self.bodyPatterns = bodyPatterns
    }

    func matches(_ parts: [MultipartPart]?) -> Bool {
        guard let parts, !parts.isEmpty else { return false }
        switch matchingType {
        case .any: return parts.contains(where: matches)
        case .all: return parts.allSatisfy(matches)
        }
    }

    func matches(_ part: MultipartPart) -> Bool {
        for (name, matcher) in headers where !matcher.matches(.values(part.headers[name].map { [$0] } ?? [])) { return false }
        let body = RequestBody(part.body)
        return bodyPatterns.allSatisfy { $0.matches(.body(body)) }
    }

    package var description: String {
        var pieces: [String] = []
        for (name, matcher) in headers { pieces.append("header \(name) \(matcher)") }
        for pattern in bodyPatterns { pieces.append("body \(pattern)") }
        return "multipart (\(matchingType.rawValue)): " + pieces.joined(separator: ", ")
    }
}

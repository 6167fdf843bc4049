import Foundation

/// What ``HTTPMock/exportHAR(to:redacting:)`` and replay scopes remove from an archive before
/// it is written, so secrets never reach the disk.
///
/// ```swift
/// try mock.exportHAR(to: url, redacting: [
///     .default,                                  // Authorization, Proxy-Authorization, Cookie, Set-Cookie
///     .headers(["X-Api-Key"]),
///     .queryItems(["token"]),
///     .jsonFields(["auth.token", "password"]),
///     .replacing("ada@example.com", with: "user@example.com"),
/// ])
/// ```
///
/// Redacted header values, query values and JSON fields are written as `REDACTED`. An array
/// combines exactly the redactions it lists (add `.default` to keep the standard headers); `[]`
/// redacts nothing. Replay still matches requests whose redacted parts differ: a query item or
/// matched header recorded as `REDACTED` matches any value.
public struct Redaction: Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
    enum Rule: Sendable, Hashable {
        case headers([String])
        case queryItems([String])
        case jsonFields([String])
        case replacing(String, String)
    }

    let rules: [Rule]

    init(rules: [Rule]) { self.rules = rules }

    /// Combines `elements`, in order.
    public init(arrayLiteral elements: Redaction...) {
        self.init(rules: elements.flatMap(\.rules))
    }

    /// Redacts `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`.
    public static let `default` = Redaction.headers(["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"])

    /// Redacts these request and response headers (names case-insensitive).
    public static func headers(_ names: [String]) -> Redaction { Redaction(rules: [.headers(names)]) }

    /// Redacts the values of these query items in request URLs.
    public static func queryItems(_ names: [String]) -> Redaction { Redaction(rules: [.queryItems(names)]) }

    /// Redacts these fields of JSON request and response bodies; a dotted key path
    /// (`"auth.token"`) walks into objects, and through arrays into each element.
    public static func jsonFields(_ keyPaths: [String]) -> Redaction { Redaction(rules: [.jsonFields(keyPaths)]) }

    /// Replaces every occurrence of `secret` with `replacement` in URLs, header values and
    /// bodies (text or binary).
    public static func replacing(_ secret: String, with replacement: String) -> Redaction {
        Redaction(rules: [.replacing(secret, replacement)])
    }

    public var description: String { "Redaction(\(rules))" }

    var headerNames: Set<String> {
        Set(
            rules.flatMap { rule -> [String] in
                if case .headers(let names) = rule { return names.map { $0.lowercased() } } else { return [] }
            })
    }

    var queryItemNames: Set<String> {
        Set(rules.flatMap { rule -> [String] in if case .queryItems(let names) = rule { return names } else { return [] } })
    }

    var jsonKeyPaths: [[String]] {
        rules.flatMap { rule -> [[String]] in
            if case .jsonFields(let paths) = rule { return paths.map { $0.split(separator: ".").map(String.init) } } else { return [] }
        }
    }

    var replacements: [(String, String)] {
        rules.compactMap { rule in
            if case .replacing(let secret, let replacement) = rule, !secret.isEmpty { return (secret, replacement) } else { return nil }
        }
    }
}

extension Redaction {
    /// `entry` with every secret replaced.
    func apply(to entry: HAREntry) -> HAREntry {
        var entry = entry
        entry.request.url = redactURL(entry.request.url)
        entry.request.headers = redactHeaders(entry.request.headers)
        entry.request.body = entry.request.body.map(redactBody)
        entry.response.headers = redactHeaders(entry.response.headers)
        entry.response.body = redactBody(entry.response.body)
        return entry
    }

    private func replaceAll(_ text: String) -> String {
        var text = text
        for (secret, replacement) in replacements { text = text.replacingOccurrences(of: secret, with: replacement) }
        return text
    }

    private func redactHeaders(_ headers: [HARHeader]) -> [HARHeader] {
        let names = headerNames
        return headers.map { header in
            HARHeader(
                name: header.name, value: names.contains(header.name.lowercased()) ? HARPlaceholder.redacted : replaceAll(header.value))
        }
    }

    private func redactURL(_ url: String) -> String {
        let names = queryItemNames
        var result = url
        if !names.isEmpty, var components = URLComponents(string: url), let items = components.percentEncodedQueryItems {
            components.percentEncodedQueryItems = items.map { item in
                let name = item.name.removingPercentEncodingIfValid
                return names.contains(name) ? URLQueryItem(name: item.name, value: HARPlaceholder.redacted) : item
            }
            result = components.string ?? url
        }
        return replaceAll(result)
    }

    private func redactBody(_ body: Data) -> Data {
        var body = body
        let paths = jsonKeyPaths
        if !paths.isEmpty, let first = body.first(where: { !$0.isWhitespaceByte }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            let json = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        {
            var changed = false
            var redacted = json
            for path in paths where !path.isEmpty {
                redacted = Self.redact(redacted, path: path[...], changed: &changed)
            }
            if changed, let data = try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys, .withoutEscapingSlashes]) {
                body = data
            }
        }
        for (secret, replacement) in replacements {
            let needle = Data(secret.utf8)
            let substitute = Data(replacement.utf8)
            var searchStart = body.startIndex
            while let range = body.range(of: needle, in: searchStart..<body.endIndex) {
                body.replaceSubrange(range, with: substitute)
                searchStart = range.lowerBound + substitute.count
            }
        }
        return body
    }

    private static func redact(_ value: Any, path: ArraySlice<String>, changed: inout Bool) -> Any {
        guard let key = path.first else { return value }
        if let array = value as? [Any] {
            return array.map { redact($0, path: path, changed: &changed) }
        }
        guard var object = value as? [String: Any], let child = object[key] else { return value }
        if path.count == 1 {
            object[key] = HARPlaceholder.redacted
            changed = true
        } else {
            object[key] = redact(child, path: path.dropFirst(), changed: &changed)
        }
        return object
    }
}

extension UInt8 {
    fileprivate var isWhitespaceByte: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}

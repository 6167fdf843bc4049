import Foundation

/// The one query decoding rule: `&`-separated `name=value` pairs (a pair without `=` has no
/// value), each side percent-decoded (left as written where that fails), in order. `+` is the
/// only choice, made per reader:
/// - a space in `application/x-www-form-urlencoded` text: WireMock's `queryParameters` (as
///   Java's `URLDecoder`, which the jar uses) and a form body's fields;
/// - itself in ``MockRequest/queryItems`` and the DSL's `query:`, as `URLComponents` reads it
///   (a client that sends a space in a query sends `%20`).
enum FormDecoding {
    /// The pairs of `text`, decoded; with `plusIsSpace`, `+` is a space before percent-decoding.
    static func pairs(_ text: String, plusIsSpace: Bool) -> [(name: String, value: String?)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0], plusIsSpace: plusIsSpace), parts.count > 1 ? decode(parts[1], plusIsSpace: plusIsSpace) : nil)
        }
    }

    /// Form fields (`+` is a space); repeated names keep every value in order, a name without
    /// `=` has the value "".
    static func fields(_ text: String) -> [String: [String]] {
        var fields: [String: [String]] = [:]
        for (name, value) in pairs(text, plusIsSpace: true) { fields[name, default: []].append(value ?? "") }
        return fields
    }

    private static func decode(_ part: Substring, plusIsSpace: Bool) -> String {
        (plusIsSpace ? String(part).replacingOccurrences(of: "+", with: " ") : String(part)).removingPercentEncodingIfValid
    }
}

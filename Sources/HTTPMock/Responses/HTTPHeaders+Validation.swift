/// The one check every front end (factories, the DSL's `Headers`, `headers:` dictionaries,
/// HAR archives, mock-tree `configuration.json`) runs on the header fields of a response,
/// so that nothing a user wrote can split a response on the wire (RFC 9110 §5.1, §5.5).
extension HTTPHeaders {
    /// Why the field `name: value` cannot be sent, or `nil` when it can: a name must be a
    /// non-empty token, a value must not contain CR, LF or NUL.
    package static func problem(name: String, value: String) -> String? {
        if name.isEmpty {
            return "a header name is empty (value \(quoted(value)))"
        }
        if !name.utf8.allSatisfy(ASCIIBytes.isTokenByte) {
            return "header name \(quoted(name)) is not a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~ only)"
        }
        if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
            return "header \(name) has a value containing CR, LF or NUL, which would split the response: got \(quoted(value))"
        }
        return nil
    }

    /// The problems of every field, in order (empty when all can be sent).
    var problems: [String] {
        compactMap { Self.problem(name: $0.name, value: $0.value) }
    }

    /// `"text"` with control characters spelled out and long values shortened, for messages.
    static func quoted(_ text: String) -> String {
        JSONValue.quoted(text, shortenedTo: 200)
    }
}

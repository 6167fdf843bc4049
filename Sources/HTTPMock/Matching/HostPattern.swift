/// A registered host: labels that are literal, `*` (exactly one label), `**` (one or more
/// labels) or hold a `*` inside (`api-*`: one label, glob-style), and an optional port.
/// Without a port any port (and any scheme) matches.
///
/// `*.example.com` matches `a.example.com`, not `a.b.example.com` nor `example.com`;
/// `**.example.com` matches both of the first two. An IPv6 address is one literal label,
/// written in brackets (`[::1]:8080`); an internationalised name is kept in its punycode form,
/// so the Unicode and the ASCII spelling are one host.
struct HostPattern: Hashable, Sendable, CustomStringConvertible {
    enum Label: Hashable, Sendable {
        case literal(String)
        case single
        case multi
        case glob(SegmentGlob)
    }

    let labels: [Label]
    let port: Int?

    var isLiteral: Bool { labels.allSatisfy { if case .literal = $0 { return true } else { return false } } }

    /// `*` and an in-label `*` weigh 1, `**` weighs 2.
    var wildcardWeight: Int {
        labels.reduce(0) { total, label in
            switch label {
            case .literal: return total
            case .single, .glob: return total + 1
            case .multi: return total + 2
            }
        }
    }

    var literalCharacterCount: Int {
        labels.reduce(0) { total, label in
            switch label {
            case .literal(let text): return total + text.count
            case .glob(let glob): return total + glob.literalCharacterCount
            case .single, .multi: return total
            }
        }
    }

    /// The host name without port (`api.example.com`).
    var name: String {
        labels.map { label in
            switch label {
            case .literal(let text): return text
            case .single: return "*"
            case .multi: return "**"
            case .glob(let glob): return glob.description
            }
        }.joined(separator: ".")
    }

    /// `name` or `name:port`: the index key of a literal host.
    var description: String { port.map { "\(name):\($0)" } ?? name }

    /// Parses a registered host, refusing what no request host can ever be.
    /// - Throws: a message naming what was received and what is wrong with it.
    static func parse(_ raw: String) throws(PatternError) -> HostPattern {
        var text = raw
        if text.containsBytes(of: "%") {
            guard let decoded = text.removingPercentEncoding else {
                throw PatternError("host \"\(raw)\" holds a % that is not percent-encoding")
            }
            text = decoded
        }
        text = text.lowercased()
        if let at = text.firstIndex(of: "@") {
            throw PatternError(
                "host \"\(raw)\" holds user information (\"\(text[...at])\"); give only the host name, like \"\(text[text.index(after: at)...])\""
            )
        }
        if text.hasPrefix("[") { return try parseIPv6(text, raw: raw) }

        var port: Int?
        let colons = text.filter { $0 == ":" }.count
        if colons > 1 {
            if IPv6.canonical(text) != nil {
                throw PatternError(
                    "host \"\(raw)\" is an IPv6 address: write it in brackets, like \"[\(text)]\" (or \"[\(text)]:8080\" with a port)")
            }
            throw PatternError(
                "host \"\(raw)\" has \(colons) \":\"; write one port at most (\"host:8080\"), and an IPv6 address in brackets (\"[::1]:8080\")"
            )
        }
        if let colon = text.firstIndex(of: ":") {
            port = try parsePort(text[text.index(after: colon)...], raw: raw)
            text = String(text[..<colon])
        }
        if text.hasSuffix(".") { text.removeLast() }
        guard !text.isEmpty else {
            throw PatternError(
                raw.isEmpty
                    ? "the host is empty; give a host name like \"api.example.com\""
                    : "host \"\(raw)\" has no name before its port; give a host name like \"localhost:8080\"")
        }
        var labels: [Label] = []
        for label in text.split(separator: ".", omittingEmptySubsequences: false) {
            labels.append(try parseLabel(String(label), raw: raw))
        }
        return HostPattern(labels: labels, port: port)
    }

    private static func parseLabel(_ label: String, raw: String) throws(PatternError) -> Label {
        switch label {
        case "": throw PatternError("host \"\(raw)\" has an empty label (two dots in a row, or a leading dot)")
        case "*": return .single
        case "**": return .multi
        default: break
        }
        if let bad = label.unicodeScalars.first(where: { !isAllowed($0) }) {
            throw PatternError("host \"\(raw)\": \(describe(bad)) cannot appear in a host name (label \"\(label)\")")
        }
        if label.containsBytes(of: "**") {
            throw PatternError(
                "host \"\(raw)\": \"\(label)\" is not a pattern; ** stands alone as a whole label (one or more labels), and * inside a label is one glob wildcard"
            )
        }
        if label.containsBytes(of: "*") {
            guard label.unicodeScalars.allSatisfy(\.isASCII) else {
                throw PatternError(
                    "host \"\(raw)\": a label with * must be ASCII; write the rest of \"\(label)\" in its punycode (xn--) form")
            }
            return .glob(SegmentGlob(pieces: label.split(separator: "*", omittingEmptySubsequences: false).map(String.init)))
        }
        guard let ascii = RouteHost.asciiLabel(label) else {
            throw PatternError("host \"\(raw)\": label \"\(label)\" cannot be written in punycode")
        }
        return .literal(ascii)
    }

    private static func parseIPv6(_ text: String, raw: String) throws(PatternError) -> HostPattern {
        guard let close = text.firstIndex(of: "]") else {
            throw PatternError(
                "host \"\(raw)\" opens a \"[\" without a closing \"]\"; write an IPv6 address like \"[::1]\" or \"[::1]:8080\"")
        }
        let address = String(text[text.index(after: text.startIndex)..<close])
        guard let canonical = IPv6.canonical(address) else {
            throw PatternError("host \"\(raw)\": \"\(address)\" is not an IPv6 address")
        }
        let rest = text[text.index(after: close)...]
        var port: Int?
        if !rest.isEmpty {
            guard rest.first == ":" else {
                throw PatternError("host \"\(raw)\": only \":port\" may follow \"]\", got \"\(rest)\"")
            }
            port = try parsePort(rest.dropFirst(), raw: raw)
        }
        return HostPattern(labels: [.literal("[\(canonical)]")], port: port)
    }

    private static func parsePort(_ text: Substring, raw: String) throws(PatternError) -> Int {
        guard text.allSatisfy(\.isASCII), let number = Int(text), (1...65_535).contains(number) else {
            throw PatternError("host \"\(raw)\": \"\(text)\" is not a port number (1...65535)")
        }
        return number
    }

    /// Letters, digits, `-`, `_` (seen in real DNS names), `*`, and any non-ASCII character
    /// that is not a space or control (an internationalised label).
    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_" || scalar == "*"
        }
        return !scalar.properties.isWhitespace && scalar.properties.generalCategory != .control
            && scalar.properties.generalCategory != .format
    }

    private static func describe(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case " ": return "a space"
        case "\t": return "a tab"
        default:
            return scalar.isASCII && scalar.value >= 0x21 && scalar.value < 0x7F
                ? "\"\(scalar)\"" : "U+\(String(scalar.value, radix: 16, uppercase: true))"
        }
    }

    /// Whether a request to `host` (normalised) on `port` matches.
    func matches(host: String, port requestPort: Int?) -> Bool {
        if let port, port != requestPort { return false }
        if isLiteral { return name == host }
        return Self.match(host.split(separator: ".", omittingEmptySubsequences: false), labels)
    }

    /// Glob matching over labels: `*` and globbed labels take one label, `**` one or more.
    /// A `**` takes as few labels as it can, and when what follows fails only the latest `**`
    /// takes one more, which is enough (any earlier one could be emulated by the later one):
    /// at worst labels × pattern steps, whatever the number of `**`.
    private static func match(_ host: [Substring], _ pattern: [Label]) -> Bool {
        var i = 0
        var j = 0
        var star = -1
        var starEnd = 0
        while j < host.count || i < pattern.count {
            if i < pattern.count, case .multi = pattern[i] {
                // At least one label.
                guard j < host.count else { return false }
                star = i
                starEnd = j + 1
                i += 1
                j = starEnd
                continue
            }
            if i < pattern.count, j < host.count, matchesOne(pattern[i], host[j]) {
                i += 1
                j += 1
                continue
            }
            guard star >= 0, starEnd < host.count else { return false }
            starEnd += 1
            i = star + 1
            j = starEnd
        }
        return true
    }

    private static func matchesOne(_ label: Label, _ text: Substring) -> Bool {
        switch label {
        case .literal(let literal): return text == literal
        case .single: return true
        case .glob(let glob): return glob.matches(text)
        case .multi: return false
        }
    }
}

/// A registered host: labels that are literal, `*` (exactly one label) or `**` (one or more
/// labels), and an optional port. Without a port any port (and any scheme) matches.
///
/// `*.example.com` matches `a.example.com`, not `a.b.example.com` nor `example.com`;
/// `**.example.com` matches both of the first two.
struct HostPattern: Hashable, Sendable, CustomStringConvertible {
    enum Label: Hashable, Sendable {
        case literal(String)
        case single
        case multi
    }

    let labels: [Label]
    let port: Int?

    var isLiteral: Bool { labels.allSatisfy { if case .literal = $0 { return true } else { return false } } }

    var wildcardWeight: Int {
        labels.reduce(0) { total, label in
            switch label {
            case .literal: return total
            case .single: return total + 1
            case .multi: return total + 2
            }
        }
    }

    var literalCharacterCount: Int {
        labels.reduce(0) { total, label in
            if case .literal(let text) = label { return total + text.count }
            return total
        }
    }

    /// The host name without port (`api.example.com`).
    var name: String {
        labels.map { label in
            switch label {
            case .literal(let text): return text
            case .single: return "*"
            case .multi: return "**"
            }
        }.joined(separator: ".")
    }

    /// `name` or `name:port`: the index key of a literal host.
    var description: String { port.map { "\(name):\($0)" } ?? name }

    static func parse(_ raw: String) throws(PatternError) -> HostPattern {
        var host = RouteHost.normalize(raw)
        var port: Int?
        if let colon = host.lastIndex(of: ":"), !host.hasPrefix("[") || host[..<colon].hasSuffix("]") {
            let portText = host[host.index(after: colon)...]
            guard let number = Int(portText), (1...65_535).contains(number) else {
                throw PatternError("host \"\(raw)\": \"\(portText)\" is not a port number (1...65535)")
            }
            port = number
            host = String(host[..<colon])
        }
        guard !host.isEmpty else {
            throw PatternError("the host is empty; give a host name like \"api.example.com\"")
        }
        if host.hasPrefix("[") {  // IPv6 literal
            return HostPattern(labels: [.literal(host)], port: port)
        }
        var labels: [Label] = []
        for label in host.split(separator: ".", omittingEmptySubsequences: false) {
            switch label {
            case "": throw PatternError("host \"\(raw)\" has an empty label (two dots in a row, or a leading dot)")
            case "*": labels.append(.single)
            case "**": labels.append(.multi)
            default:
                guard !label.contains("*") else {
                    throw PatternError("host \"\(raw)\": \"\(label)\" is not a pattern; use * (one label) or ** (one or more labels) as a whole label")
                }
                labels.append(.literal(String(label)))
            }
        }
        return HostPattern(labels: labels, port: port)
    }

    /// Whether a request to `host` (normalised) on `port` matches.
    func matches(host: String, port requestPort: Int?) -> Bool {
        if let port, port != requestPort { return false }
        if isLiteral { return name == host }
        let requestLabels = host.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return Self.match(requestLabels[...], labels[...])
    }

    private static func match(_ host: ArraySlice<String>, _ pattern: ArraySlice<Label>) -> Bool {
        guard let first = pattern.first else { return host.isEmpty }
        let rest = pattern.dropFirst()
        switch first {
        case .literal(let text):
            return host.first == text && match(host.dropFirst(), rest)
        case .single:
            return !host.isEmpty && match(host.dropFirst(), rest)
        case .multi:
            var remaining = host.dropFirst()  // at least one label
            guard !host.isEmpty else { return false }
            while true {
                if match(remaining, rest) { return true }
                guard !remaining.isEmpty else { return false }
                remaining = remaining.dropFirst()
            }
        }
    }
}

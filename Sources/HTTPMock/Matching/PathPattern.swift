/// A registered path: literal segments, `*` (exactly one segment), `**` (zero or more
/// segments) and `:name` (one segment, captured into `MockRequest.pathParameters`).
///
/// Literal segments are percent-decoded; write `%2A` for a literal `*` segment and `%3A` for
/// a literal leading `:`.
struct PathPattern: Hashable, Sendable, CustomStringConvertible {
    enum Segment: Hashable, Sendable {
        case literal(String)
        case single
        case parameter(String)
        case multi
    }

    let segments: [Segment]

    /// No wildcard or parameter: the route can live in the exact index.
    var isLiteral: Bool { segments.allSatisfy { if case .literal = $0 { return true } else { return false } } }

    /// `*` and `:name` count 1, `**` counts 2.
    var wildcardWeight: Int {
        segments.reduce(0) { total, segment in
            switch segment {
            case .literal: return total
            case .single, .parameter: return total + 1
            case .multi: return total + 2
            }
        }
    }

    var literalCharacterCount: Int {
        segments.reduce(0) { total, segment in
            if case .literal(let text) = segment { return total + text.count }
            return total
        }
    }

    /// The normalised path of a literal pattern, the index key.
    var literalPath: String {
        RoutePath.join(segments.map { segment in
            if case .literal(let text) = segment { return text }
            return ""
        })
    }

    var description: String {
        RoutePath.join(segments.map { segment in
            switch segment {
            case .literal(let text): return text
            case .single: return "*"
            case .parameter(let name): return ":" + name
            case .multi: return "**"
            }
        })
    }

    /// Parses a registered path.
    /// - Throws: a message naming the offending segment.
    static func parse(_ path: String) throws(PatternError) -> PathPattern {
        var segments: [Segment] = []
        var names: Set<String> = []
        for raw in RoutePath.rawSegments(path) {
            if raw == "*" {
                segments.append(.single)
            } else if raw == "**" {
                segments.append(.multi)
            } else if raw.hasPrefix(":") {
                let name = String(raw.dropFirst())
                guard !name.isEmpty else {
                    throw PatternError("path \"\(path)\": a \":\" segment needs a parameter name, like \":id\"")
                }
                guard name.unicodeScalars.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }) else {
                    throw PatternError("path \"\(path)\": parameter name \"\(name)\" may only hold letters, digits and _")
                }
                guard names.insert(name).inserted else {
                    throw PatternError("path \"\(path)\": parameter \":\(name)\" appears twice")
                }
                segments.append(.parameter(name))
            } else if raw.contains("*") {
                throw PatternError("path \"\(path)\": \"\(raw)\" is not a pattern; use * (one segment) or ** (any number of segments) as a whole segment, or %2A for a literal *")
            } else {
                segments.append(.literal(raw.removingPercentEncodingIfValid))
            }
        }
        return PathPattern(segments: segments)
    }

    /// The captured parameters if `path` (decoded request segments) matches, else `nil`.
    /// `**` takes as few segments as it can, so captures are deterministic.
    func match(_ path: [String]) -> [String: String]? {
        var captures: [String: String] = [:]
        return match(path[...], segments[...], &captures) ? captures : nil
    }

    private func match(_ path: ArraySlice<String>, _ pattern: ArraySlice<Segment>, _ captures: inout [String: String]) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        let restPattern = pattern.dropFirst()
        switch first {
        case .literal(let text):
            guard path.first == text else { return false }
            return match(path.dropFirst(), restPattern, &captures)
        case .single:
            guard !path.isEmpty else { return false }
            return match(path.dropFirst(), restPattern, &captures)
        case .parameter(let name):
            guard let value = path.first else { return false }
            captures[name] = value
            if match(path.dropFirst(), restPattern, &captures) { return true }
            captures[name] = nil
            return false
        case .multi:
            var rest = path
            while true {
                if match(rest, restPattern, &captures) { return true }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
        }
    }
}

/// A malformed host or path pattern, with a message naming it.
struct PatternError: Error, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}

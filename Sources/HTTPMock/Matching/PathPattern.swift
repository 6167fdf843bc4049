/// A registered path: literal segments, `*` (exactly one segment), `**` (zero or more
/// segments), `:name` (one segment, captured into `MockRequest.pathParameters`) and segments
/// with a `*` inside (`*.json`, `v*`, `*-*`: one segment, glob-style).
///
/// Literal segments are percent-decoded; write `%2A` for a literal `*` and `%3A` for a literal
/// leading `:`.
struct PathPattern: Hashable, Sendable, CustomStringConvertible {
    enum Segment: Hashable, Sendable {
        case literal(String)
        case single
        case parameter(String)
        case multi
        case glob(SegmentGlob)
    }

    let segments: [Segment]

    /// No wildcard or parameter: the route can live in the exact index.
    var isLiteral: Bool { segments.allSatisfy { if case .literal = $0 { return true } else { return false } } }

    /// `**` alone (a WireMock mapping's, whose URL rule says the rest): every path matches,
    /// capturing nothing, so a lookup need not split the request's path to know it.
    var matchesEveryPath: Bool { segments.count == 1 && segments[0] == .multi }

    /// `*`, an in-segment `*` and `:name` count 1, `**` counts 2.
    var wildcardWeight: Int {
        segments.reduce(0) { total, segment in
            switch segment {
            case .literal: return total
            case .single, .parameter, .glob: return total + 1
            case .multi: return total + 2
            }
        }
    }

    var literalCharacterCount: Int {
        segments.reduce(0) { total, segment in
            switch segment {
            case .literal(let text): return total + text.count
            case .glob(let glob): return total + glob.literalCharacterCount
            case .single, .parameter, .multi: return total
            }
        }
    }

    /// The normalised path of a literal pattern, the index key (a `/` inside a segment is
    /// `%2F`, as in a normalised request path).
    var literalPath: String {
        RoutePath.join(
            segments.map { segment in
                if case .literal(let text) = segment { return RoutePath.encodeSeparators(text) }
                return ""
            })
    }

    var description: String {
        RoutePath.join(
            segments.map { segment in
                switch segment {
                case .literal(let text): return text
                case .single: return "*"
                case .parameter(let name): return ":" + name
                case .multi: return "**"
                case .glob(let glob): return glob.description
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
                guard
                    name.unicodeScalars.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
                    )
                else {
                    throw PatternError("path \"\(path)\": parameter name \"\(name)\" may only hold letters, digits and _")
                }
                guard names.insert(name).inserted else {
                    throw PatternError("path \"\(path)\": parameter \":\(name)\" appears twice")
                }
                segments.append(.parameter(name))
            } else if raw.containsBytes(of: "**") {
                throw PatternError(
                    "path \"\(path)\": \"\(raw)\" is not a pattern; ** stands alone as a whole segment (any number of segments), * inside a segment is one glob wildcard, and %2A is a literal *"
                )
            } else if raw.containsBytes(of: "*") {
                let pieces = raw.split(separator: "*", omittingEmptySubsequences: false).map { String($0).removingPercentEncodingIfValid }
                segments.append(.glob(SegmentGlob(pieces: pieces)))
            } else {
                segments.append(.literal(raw.removingPercentEncodingIfValid))
            }
        }
        return PathPattern(segments: segments)
    }

    /// The captured parameters if `path` (decoded request segments) matches, else `nil`.
    ///
    /// Glob matching over segments: each `**` takes as few segments as it can, and when what
    /// follows fails only the latest `**` takes one more. That is enough (an earlier `**`
    /// taking more could be emulated by the later one) and gives the same captures as trying
    /// every split in order: at worst segments × pattern steps, whatever the number of `**`.
    func match(_ path: [String]) -> [String: String]? {
        var captures: [String: String] = [:]
        var i = 0
        var j = 0
        var star = -1
        var starEnd = 0
        while j < path.count {
            if i < segments.count {
                switch segments[i] {
                case .multi:
                    star = i
                    starEnd = j
                    i += 1
                    continue
                case .literal(let text):
                    if path[j] == text {
                        i += 1
                        j += 1
                        continue
                    }
                case .single:
                    i += 1
                    j += 1
                    continue
                case .parameter(let name):
                    // Overwritten on every retry, so the successful pass writes the last value.
                    captures[name] = path[j]
                    i += 1
                    j += 1
                    continue
                case .glob(let glob):
                    if glob.matches(path[j]) {
                        i += 1
                        j += 1
                        continue
                    }
                }
            }
            guard star >= 0 else { return nil }
            starEnd += 1
            i = star + 1
            j = starEnd
        }
        while i < segments.count, case .multi = segments[i] { i += 1 }
        return i == segments.count ? captures : nil
    }
}

/// A malformed host or path pattern, with a message naming it.
package struct PatternError: Error, Sendable, CustomStringConvertible {
    package let message: String
    init(_ message: String) { self.message = message }
    package var description: String { message }
}

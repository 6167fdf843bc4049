/// Finds the routes whose host and path match a request, at a cost that does not grow with
/// the number of routes.
///
/// - Exact routes (literal host and path) are looked up by `host path` in a dictionary.
/// - Routes with a path pattern under a literal host go into a segment trie for that host;
///   lookup cost grows with the path's depth.
/// - Routes with a host pattern go into one trie per distinct host pattern; the host patterns
///   are tried in turn (there are few in practice).
///
/// - Routes whose URL rule is a regular expression (WireMock's `urlPattern`,
///   `urlPathPattern`) with a literal text every match contains are filed by a short piece of
///   it (``LiteralGate``): a request's raw path and query are read once, and only the routes
///   whose piece occurs in them are candidates, however their patterns start. Routes with a
///   path template whose parameters must match such a pattern (or equal a text) are filed the
///   same way, looked up in the normalised path.
///
/// A value type: registration mutates the registry's copy while lookups read a snapshot
/// taken under the lock, without holding it.
struct RouteIndex: Sendable {
    private var exact: [ExactKey: [Int]] = [:]
    private var literalHostTries: [String: PathTrie] = [:]
    private var patternHostTries: [(host: HostPattern, trie: PathTrie)] = []
    /// Whether any literal route names a port: only then are `host:port` buckets worth a lookup.
    private var hasPortedRoutes = false
    /// Identifies the trie nodes below a `**`, for the walk's memo.
    private var nextNodeID = 0
    private var gate = LiteralGate()
    /// Routes filed by their path parameters' literals, looked up in the normalised path.
    private var parameterGate = LiteralGate()

    /// Host (with `:port` when named) and path of a literal route; hashed without concatenating.
    struct ExactKey: Hashable, Sendable {
        var host: String
        var path: String
    }

    static func exactKey(host: String, path: String) -> ExactKey { ExactKey(host: host, path: path) }

    mutating func insert(_ key: RouteKey, at position: Int) {
        if key.host.isLiteral, key.host.port != nil { hasPortedRoutes = true }
        // Only routes whose path pattern the lookup checks again (a literal path is trusted to
        // the index: a `urlPattern` that ends its path at `?` stays in a trie).
        if !key.path.isLiteral, let windows = LiteralGate.windows(of: key), !windows.isEmpty {
            gate.insert(host: key.host, position: position, windows: windows)
        } else if !key.path.isLiteral, let windows = LiteralGate.parameterWindows(of: key), !windows.isEmpty {
            parameterGate.insert(host: key.host, position: position, windows: windows)
        } else if key.isExact {
            exact[Self.exactKey(host: key.host.description, path: key.path.literalPath), default: []].append(position)
        } else if key.host.isLiteral {
            literalHostTries[key.host.description, default: PathTrie()].insert(key.path.segments[...], position, nextID: &nextNodeID)
        } else if let index = patternHostTries.firstIndex(where: { $0.host == key.host }) {
            patternHostTries[index].trie.insert(key.path.segments[...], position, nextID: &nextNodeID)
        } else {
            var trie = PathTrie()
            trie.insert(key.path.segments[...], position, nextID: &nextNodeID)
            patternHostTries.append((key.host, trie))
        }
    }

    /// Positions of every route whose host and path match, in no particular order, without
    /// duplicates (a route filed by a literal of its URL pattern: whose host matches and whose
    /// literal occurs in `rawPath` or `rawQuery`; its path pattern is checked by the caller).
    func candidates(
        host: String, port: Int?, path: String, rawPath: String, rawQuery: String?, segments: () -> [String]
    ) -> [Int] {
        let exactHits = exact[Self.exactKey(host: host, path: path)]
        // The common case: an exact route and nothing that could compete with it.
        if !hasPortedRoutes, literalHostTries.isEmpty, patternHostTries.isEmpty, gate.isEmpty, parameterGate.isEmpty {
            return exactHits ?? []
        }
        var found = exactHits ?? []
        if !gate.isEmpty {
            gate.collect(host: host, port: port, rawPath: rawPath, rawQuery: rawQuery, into: &found)
        }
        if !parameterGate.isEmpty {
            parameterGate.collect(host: host, port: port, rawPath: path, rawQuery: nil, into: &found)
        }
        let hostWithPort = hasPortedRoutes ? port.map { "\(host):\($0)" } : nil
        if let hostWithPort {
            found += exact[Self.exactKey(host: hostWithPort, path: path)] ?? []
        }
        if !literalHostTries.isEmpty || !patternHostTries.isEmpty {
            // The tries a path can reach at all, by its first segment, before the path is split:
            // a WireMock root's routes are all in the gate, and the tries hold the admin API's.
            // No array of the tries found: this runs for every request.
            let first = Self.firstSegment(of: path)
            let reachable = { (trie: PathTrie?) in trie.flatMap { $0.mayMatch(firstSegment: first) ? $0 : nil } }
            let literal = reachable(literalHostTries[host])
            let ported = reachable(hostWithPort.flatMap { literalHostTries[$0] })
            let patterned = { (entry: (host: HostPattern, trie: PathTrie)) in
                entry.trie.mayMatch(firstSegment: first) && entry.host.matches(host: host, port: port)
            }
            if literal != nil || ported != nil || patternHostTries.contains(where: patterned) {
                let segments = segments()
                literal?.collect(segments, into: &found)
                ported?.collect(segments, into: &found)
                for entry in patternHostTries where patterned(entry) { entry.trie.collect(segments, into: &found) }
            }
        }
        if found.count > 1 {
            var seen = Set<Int>()
            found = found.filter { seen.insert($0).inserted }
        }
        return found
    }
}

extension RouteIndex {
    /// The first segment of a normalised path (`nil` for `/`), as ``RoutePath/segments(ofNormalized:)``
    /// would split it, but without splitting the rest.
    static func firstSegment(of path: String) -> Substring? {
        let utf8 = path.utf8
        guard let start = utf8.firstIndex(where: { $0 != UInt8(ascii: "/") }) else { return nil }
        let end = utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
        return path[start..<end]
    }
}

/// A trie over path segments: literal children by name, one child for `*`/`:name`, one per
/// in-segment glob, one for `**`.
///
/// The walk is polynomial whatever the number of `**`: a `**` node is walked from each request
/// position at most once per lookup (a memo of `(node, position)` pairs, kept only below a
/// first `**`, where two ways can reach the same state), so a lookup costs at most
/// nodes × segments², not segments to the power of the number of `**`.
struct PathTrie: Sendable {
    private var literal: [String: PathTrie] = [:]
    /// `*` and `:name` (0 or 1 element; an array so the struct can hold itself).
    private var single: [PathTrie] = []
    /// Segments with a `*` inside, each with its subtree.
    private var globs: [(glob: SegmentGlob, trie: PathTrie)] = []
    /// `**` (0 or 1 element).
    private var multi: [PathTrie] = []
    private var terminal: [Int] = []
    /// Set on `**` nodes: the memo's key.
    private var id = -1

    /// A `**` node walked from a request position.
    private struct Visit: Hashable {
        var node: Int
        var position: Int
    }

    mutating func insert(_ segments: ArraySlice<PathPattern.Segment>, _ position: Int, nextID: inout Int) {
        guard let first = segments.first else {
            terminal.append(position)
            return
        }
        let rest = segments.dropFirst()
        switch first {
        case .literal(let text):
            literal[text, default: PathTrie()].insert(rest, position, nextID: &nextID)
        case .single, .parameter:
            if single.isEmpty { single.append(PathTrie()) }
            single[0].insert(rest, position, nextID: &nextID)
        case .glob(let glob):
            if let index = globs.firstIndex(where: { $0.glob == glob }) {
                globs[index].trie.insert(rest, position, nextID: &nextID)
            } else {
                var trie = PathTrie()
                trie.insert(rest, position, nextID: &nextID)
                globs.append((glob, trie))
            }
        case .multi:
            if multi.isEmpty {
                var node = PathTrie()
                node.id = nextID
                nextID += 1
                multi.append(node)
            }
            multi[0].insert(rest, position, nextID: &nextID)
        }
    }

    /// Whether a path whose first segment is `first` (`nil`: the path has none) can reach a
    /// route of this trie: `false` only when the root's children are all literal and none is
    /// `first` (a percent-encoded segment, which splitting decodes, is always let through).
    func mayMatch(firstSegment first: Substring?) -> Bool {
        if !single.isEmpty || !globs.isEmpty || !multi.isEmpty { return true }
        guard let first else { return !terminal.isEmpty }
        if first.utf8.contains(UInt8(ascii: "%")) { return true }
        return literal[String(first)] != nil
    }

    /// Appends the positions of the routes whose path matches `segments` (duplicates possible).
    func collect(_ segments: [String], into found: inout [Int]) {
        var visited: Set<Visit> = []  // allocates only if a `**` is reached below a `**`
        collect(segments, from: 0, into: &found, visited: &visited, belowMulti: false)
    }

    private func collect(
        _ segments: [String], from start: Int, into found: inout [Int],
        visited: inout Set<Visit>, belowMulti: Bool
    ) {
        if start < segments.count {
            let first = segments[start]
            literal[first]?.collect(segments, from: start + 1, into: &found, visited: &visited, belowMulti: belowMulti)
            single.first?.collect(segments, from: start + 1, into: &found, visited: &visited, belowMulti: belowMulti)
            for entry in globs where entry.glob.matches(first) {
                entry.trie.collect(segments, from: start + 1, into: &found, visited: &visited, belowMulti: belowMulti)
            }
        } else {
            found += terminal
        }
        if let multi = multi.first {
            // `**` takes zero or more segments. Above any `**` a node is reached once, at one
            // position; below one, stop where an earlier walk of this `**` already went (it
            // went on to the end).
            var position = start
            while position <= segments.count {
                if belowMulti, !visited.insert(Visit(node: multi.id, position: position)).inserted { break }
                multi.collect(segments, from: position, into: &found, visited: &visited, belowMulti: true)
                position += 1
            }
        }
    }
}

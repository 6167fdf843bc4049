/// Finds the routes whose host and path match a request, at a cost that does not grow with
/// the number of routes.
///
/// - Exact routes (literal host and path) are looked up by `host path` in a dictionary.
/// - Routes with a path pattern under a literal host go into a segment trie for that host;
///   lookup cost grows with the path's depth.
/// - Routes with a host pattern go into one trie per distinct host pattern; the host patterns
///   are tried in turn (there are few in practice).
///
/// A value type: registration mutates the registry's copy while lookups read a snapshot
/// taken under the lock, without holding it.
struct RouteIndex: Sendable {
    private var exact: [ExactKey: [Int]] = [:]
    private var literalHostTries: [String: PathTrie] = [:]
    private var patternHostTries: [(host: HostPattern, trie: PathTrie)] = []
    /// Whether any literal route names a port: only then are `host:port` buckets worth a lookup.
    private var hasPortedRoutes = false

    /// Host (with `:port` when named) and path of a literal route; hashed without concatenating.
    struct ExactKey: Hashable, Sendable {
        var host: String
        var path: String
    }

    static func exactKey(host: String, path: String) -> ExactKey { ExactKey(host: host, path: path) }

    mutating func insert(_ key: RouteKey, at position: Int) {
        if key.host.isLiteral, key.host.port != nil { hasPortedRoutes = true }
        if key.isExact {
            exact[Self.exactKey(host: key.host.description, path: key.path.literalPath), default: []].append(position)
        } else if key.host.isLiteral {
            literalHostTries[key.host.description, default: PathTrie()].insert(key.path.segments[...], position)
        } else if let index = patternHostTries.firstIndex(where: { $0.host == key.host }) {
            patternHostTries[index].trie.insert(key.path.segments[...], position)
        } else {
            var trie = PathTrie()
            trie.insert(key.path.segments[...], position)
            patternHostTries.append((key.host, trie))
        }
    }

    /// Positions of every route whose host and path match, in no particular order, without
    /// duplicates.
    func candidates(host: String, port: Int?, path: String, segments: () -> [String]) -> [Int] {
        let exactHits = exact[Self.exactKey(host: host, path: path)]
        // The common case: an exact route and nothing that could compete with it.
        if !hasPortedRoutes, literalHostTries.isEmpty, patternHostTries.isEmpty {
            return exactHits ?? []
        }
        var found = exactHits ?? []
        let hostWithPort = hasPortedRoutes ? port.map { "\(host):\($0)" } : nil
        if let hostWithPort {
            found += exact[Self.exactKey(host: hostWithPort, path: path)] ?? []
        }
        if !literalHostTries.isEmpty || !patternHostTries.isEmpty {
            let segments = segments()
            literalHostTries[host]?.collect(segments[...], into: &found)
            if let hostWithPort { literalHostTries[hostWithPort]?.collect(segments[...], into: &found) }
            for entry in patternHostTries where entry.host.matches(host: host, port: port) {
                entry.trie.collect(segments[...], into: &found)
            }
        }
        if found.count > 1 {
            var seen = Set<Int>()
            found = found.filter { seen.insert($0).inserted }
        }
        return found
    }
}

/// A trie over path segments: literal children by name, one child for `*`/`:name`, one for `**`.
struct PathTrie: Sendable {
    private var literal: [String: PathTrie] = [:]
    /// `*` and `:name` (0 or 1 element; an array so the struct can hold itself).
    private var single: [PathTrie] = []
    /// `**` (0 or 1 element).
    private var multi: [PathTrie] = []
    private var terminal: [Int] = []

    mutating func insert(_ segments: ArraySlice<PathPattern.Segment>, _ position: Int) {
        guard let first = segments.first else {
            terminal.append(position)
            return
        }
        let rest = segments.dropFirst()
        switch first {
        case .literal(let text):
            literal[text, default: PathTrie()].insert(rest, position)
        case .single, .parameter:
            if single.isEmpty { single.append(PathTrie()) }
            single[0].insert(rest, position)
        case .multi:
            if multi.isEmpty { multi.append(PathTrie()) }
            multi[0].insert(rest, position)
        }
    }

    func collect(_ segments: ArraySlice<String>, into found: inout [Int]) {
        if let first = segments.first {
            let rest = segments.dropFirst()
            literal[first]?.collect(rest, into: &found)
            single.first?.collect(rest, into: &found)
        } else {
            found += terminal
        }
        if let multi = multi.first {
            // `**` takes zero or more segments.
            var rest = segments
            while true {
                multi.collect(rest, into: &found)
                guard !rest.isEmpty else { break }
                rest = rest.dropFirst()
            }
        }
    }
}

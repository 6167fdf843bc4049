/// Routes with a URL regular expression, filed by a piece of a text every match contains
/// (``TextRegex/requiredLiterals``), so a request only considers the routes whose piece occurs
/// in its raw path or query, whatever the patterns' shape: 1,000 mappings
/// `/api/v[0-9]+/items/[a-z]+-N` are filed under `-0` … `-999`, and `/api/v3/items/xyz-999`
/// finds the two routes filed under `-9` and `-99` (whose patterns then say no) and `-999`.
///
/// A piece is 1 to 7 bytes of a required literal (without `?`, so it cannot straddle the path
/// and the query), packed into an integer; a lookup reads each position of the path and query
/// once per piece length in use (at most 7): its cost grows with the URL's length, not with
/// the number of routes. Each route is filed under its rarest piece (fewest routes hold it;
/// then the longest; then the last), chosen again for every route whenever their number has
/// doubled, so adding a route is O(1) amortised. The caller checks path patterns and
/// conditions and orders the matches; this only leaves out routes that cannot match.
struct LiteralGate: Sendable {
    private struct Entry: Sendable {
        var position: Int
        var host: HostPattern
        var windows: [UInt64]
    }

    static let maximumWindow = 7

    private var entries: [Entry] = []
    /// Piece → indexes into `entries`.
    private var filed: [UInt64: [Int]] = [:]
    /// How many routes hold each piece (each route counted once per piece).
    private var holders: [UInt64: Int] = [:]
    /// Bit `n` set: some route is filed under an `n`-byte piece.
    private var lengths: UInt16 = 0
    /// One bit per hash of a filed piece (``sieveBit(_:)``): a lookup asks the dictionary only
    /// for the pieces whose bit is set, and most of a URL's pieces are filed under nothing.
    private var sieve = [UInt64](repeating: 0, count: 1 << (sieveBits - 6))
    private static let sieveBits = 16
    private var refileAt = 1

    var isEmpty: Bool { entries.isEmpty }

    /// The pieces a route can be filed under: `nil` when it has no URL regular expression.
    static func windows(of key: RouteKey) -> [UInt64]? {
        switch key.conditions?.url {
        case .urlPattern(let regex)?, .pathPattern(let regex)?: return windows(of: regex)
        default: return nil
        }
    }

    /// The pieces a route can be filed under by its path parameters' matchers (WireMock's
    /// `urlPathTemplate` + `pathParameters`: `matches`, case-sensitive `equalTo`), to look up in
    /// the normalised path (decoded segments, where a literal without `/` or `%` reads as
    /// written): `nil` when it has none.
    static func parameterWindows(of key: RouteKey) -> [UInt64]? {
        var literals: [[UInt8]] = []
        for condition in key.conditions?.conditions ?? [] {
            guard case .pathParameter = condition.field else { continue }
            switch condition.matcher {
            case .single(.matches(let regex)): literals += regex.requiredLiterals
            case .single(.equalTo(let text, caseInsensitive: false)): literals.append(Array(text.utf8))
            default: continue
            }
        }
        guard !literals.isEmpty else { return nil }
        return windows(of: literals, separators: [UInt8(ascii: "/"), UInt8(ascii: "%")])
    }

    /// Every distinct piece of `regex`'s required literals: each literal split at `?`, then
    /// each part whole when at most 7 bytes, else each of its 7-byte windows.
    static func windows(of regex: TextRegex) -> [UInt64] {
        windows(of: regex.requiredLiterals, separators: [UInt8(ascii: "?")])
    }

    private static func windows(of literals: [[UInt8]], separators: [UInt8]) -> [UInt64] {
        var found: [UInt64] = []
        var seen = Set<UInt64>()
        for literal in literals {
            for part in literal.split(whereSeparator: separators.contains) where !part.isEmpty {
                let width = min(part.count, maximumWindow)
                var start = part.startIndex
                while start + width <= part.endIndex {
                    let key = pack(part[start..<(start + width)])
                    if seen.insert(key).inserted { found.append(key) }
                    start += 1
                }
            }
        }
        return found
    }

    /// 1…7 bytes behind a 1 bit that says how many.
    static func pack(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var value: UInt64 = 1
        for byte in bytes { value = value << 8 | UInt64(byte) }
        return value
    }

    private static func length(of key: UInt64) -> Int { (63 - key.leadingZeroBitCount) / 8 }

    /// A piece's bit in ``sieve``: the top bits of a multiplicative hash.
    private static func sieveBit(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - sieveBits)) }

    mutating func insert(host: HostPattern, position: Int, windows: [UInt64]) {
        entries.append(Entry(position: position, host: host, windows: windows))
        for window in windows { holders[window, default: 0] += 1 }
        if entries.count >= refileAt {
            refileAt = entries.count * 2
            filed = [:]
            lengths = 0
            for word in sieve.indices { sieve[word] = 0 }
            for index in entries.indices { file(index) }
        } else {
            file(entries.count - 1)
        }
    }

    private mutating func file(_ index: Int) {
        var best: UInt64 = 0
        var bestHolders = Int.max
        for window in entries[index].windows {
            let count = holders[window] ?? 0
            if count < bestHolders || (count == bestHolders && Self.length(of: window) >= Self.length(of: best)) {
                best = window
                bestHolders = count
            }
        }
        filed[best, default: []].append(index)
        lengths |= 1 << UInt16(Self.length(of: best))
        let bit = Self.sieveBit(best)
        sieve[bit >> 6] |= 1 << UInt64(bit & 63)
    }

    /// Appends the positions of the routes whose host matches and whose piece occurs in
    /// `rawPath` or `rawQuery`, each once.
    func collect(host: String, port: Int?, rawPath: String, rawQuery: String?, into found: inout [Int]) {
        var hits: [UInt64] = []
        scan(rawPath, into: &hits)
        if let rawQuery { scan(rawQuery, into: &hits) }
        for window in hits {
            for index in filed[window] ?? [] {
                let entry = entries[index]
                if Self.hostMatches(entry.host, host: host, port: port) { found.append(entry.position) }
            }
        }
    }

    private func scan(_ text: String, into hits: inout [UInt64]) {
        var text = text
        text.withUTF8 { bytes in
            let count = bytes.count
            let widest = min(Self.maximumWindow, 15 - lengths.leadingZeroBitCount)
            guard widest >= 1 else { return }
            for start in 0..<count {
                var value: UInt64 = 1
                let longest = min(widest, count - start)
                for width in 1...longest {
                    value = value << 8 | UInt64(bytes[start + width - 1])
                    guard lengths & (1 << UInt16(width)) != 0 else { continue }
                    let bit = Self.sieveBit(value)
                    guard sieve[bit >> 6] & (1 << UInt64(bit & 63)) != 0, filed[value] != nil, !hits.contains(value) else { continue }
                    hits.append(value)
                }
            }
        }
    }

    /// As the tries file hosts: a literal host by name (with its port when it names one), a
    /// pattern by matching.
    private static func hostMatches(_ pattern: HostPattern, host: String, port: Int?) -> Bool {
        guard pattern.isLiteral else { return pattern.matches(host: host, port: port) }
        if let wanted = pattern.port {
            return wanted == port && pattern.description == "\(host):\(wanted)"
        }
        return pattern.description == host
    }
}

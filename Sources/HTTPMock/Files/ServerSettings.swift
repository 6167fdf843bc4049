import Foundation

/// The `httpmock` CLI's own `configuration.json` (Espresso-Martini's server settings), read and
/// checked as strictly as a route file: here rather than in the CLI so the reader is
/// fuzzed (`Fuzz/Sources/FuzzServerSettings`) and tested without a process.
///
/// One object with the keys `hostname` (a string), `port` (a whole number from 0 to 65535),
/// `delay` (seconds, from 0 to ``maximumDelay``) and `log_level` (`TRACE` … `CRITICAL`, any
/// case). A mistake names the file, the key and the JSON value received; an unknown key is an
/// error that suggests the closest known one (`"prot"` → `port`).
package struct ServerSettings: Sendable, Equatable {
    package var hostname: String?
    package var port: Int?
    package var delay: TimeInterval?
    /// Upper-cased, one of ``logLevels``.
    package var logLevel: String?

    static let knownKeys = ["delay", "hostname", "log_level", "port"]
    /// Espresso-Martini's log levels, most verbose first.
    static let logLevels = ["TRACE", "DEBUG", "INFO", "NOTICE", "WARNING", "ERROR", "CRITICAL"]
    /// The longest delay the CLI takes, in seconds (a day): longer is a mistake, and a finite but
    /// huge value (`1e11`) would overflow the conversion to nanoseconds.
    package static let maximumDelay: TimeInterval = 86_400

    package init() {}

    /// Reads `data`, the contents of the file at `file` (used in messages only).
    /// - Throws: ``HTTPMockError`` naming the file (and line and column for malformed JSON),
    ///   the key and what was received.
    package init(_ data: Data, file: String) throws(HTTPMockError) {
        func failure(_ message: String) -> HTTPMockError { HTTPMockError(.mockTree, "\(file): \(message)") }
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw HTTPMockError(
                .mockTree,
                "\(file)\(MockConfiguration.position(of: error, in: data)): malformed JSON (\(MockConfiguration.debugDescription(of: error)))"
            )
        }
        guard let object = json as? [String: Any] else {
            throw failure(
                "the settings must be an object like {\"port\": 8080, \"delay\": 0.5}, got \(MockConfiguration.describe(json))")
        }
        for key in object.keys.sorted() where !Self.knownKeys.contains(key) {
            let suggestion = Self.closestKnownKey(to: key).map { " — did you mean \($0)?" } ?? ""
            throw failure(
                "unknown key \(MockConfiguration.quoted(key))\(suggestion) (known keys: \(Self.knownKeys.joined(separator: ", ")))")
        }
        func invalid(_ key: String, _ expected: String, _ value: Any) -> HTTPMockError {
            failure("\(key) must be \(expected), got \(MockConfiguration.describe(value))")
        }
        if let value = object["hostname"] {
            guard let text = value as? String, !text.isEmpty else { throw invalid("hostname", "a non-empty string", value) }
            hostname = text
        }
        if let value = object["port"] {
            guard let number = MockConfiguration.integer(value), (0...65_535).contains(number) else {
                throw invalid("port", "a whole number from 0 to 65535 (0 picks a free port)", value)
            }
            port = number
        }
        if let value = object["delay"] {
            guard let seconds = MockConfiguration.number(value), seconds >= 0, seconds <= Self.maximumDelay else {
                throw invalid("delay", "a number of seconds from 0 to \(Int(Self.maximumDelay))", value)
            }
            delay = seconds
        }
        if let value = object["log_level"] {
            guard let text = value as? String, Self.logLevels.contains(text.uppercased()) else {
                throw invalid("log_level", "one of \(Self.logLevels.joined(separator: ", "))", value)
            }
            logLevel = text.uppercased()
        }
    }

    /// The known key closest to `key` (at most two edits, ignoring case and `-`/`_`), if any.
    static func closestKnownKey(to key: String) -> String? {
        closest(to: key, among: knownKeys)
    }

    /// The candidate closest to `text` by edit distance, ignoring case and treating `-` as `_`,
    /// if it is at most two edits away (one for words of three letters or fewer).
    package static func closest(to text: String, among candidates: [String]) -> String? {
        func normalized(_ text: String) -> [Character] { Array(text.lowercased().replacingOccurrences(of: "-", with: "_")) }
        let typed = normalized(text)
        guard typed.count <= 64 else { return nil }  // a distance is quadratic; nobody mistypes 64 letters
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, normalized(candidate))
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        return best.distance <= (typed.count <= 3 ? 1 : 2) ? best.candidate : nil
    }

    /// Levenshtein distance, transpositions counted as one edit.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousRow: [Int] = []
        var row = Array(0...b.count)
        for i in 1...a.count {
            let beforePrevious = previousRow
            previousRow = row
            row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                row[j] = min(previousRow[j] + 1, row[j - 1] + 1, previousRow[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    row[j] = min(row[j], beforePrevious[j - 2] + 1)
                }
            }
        }
        return row[b.count]
    }
}

import Foundation

/// Why a request did not match: the registrations closest to it, with one line per field
/// that differs (`query: expected page=1, got page=2`).
///
/// Closeness is a weighted distance in the manner of WireMock: host and path weigh 3 each
/// (scaled by how different the text is), method, query, headers and body 1 each, a predicate
/// that said no and a queue already used up ½ each. Pure logic: it reads a snapshot of the
/// routes and never touches the lock.
struct NearMiss: Sendable {
    let route: String
    let location: SourceLocation?
    let distance: Double
    let reasons: [String]
}

enum NearMissAnalysis {
    struct QueueState: Sendable {
        var pending: Int
        var served: Int
    }

    static let maximumShown = 3

    /// The closest registrations to `request`, closest first (ties: earlier registration).
    /// `scenarios` holds the scenario states when the request was looked up (missing: started).
    static func nearMisses(
        for request: MockRequest, routes: [Route], queues: [QueueState],
        scenarios: [String: String] = [:], revealSecrets: Bool = false
    ) -> [NearMiss] {
        var facts = RequestFacts()
        let segments = request.pathSegments
        var misses: [(NearMiss, Int)] = []
        for (position, route) in routes.enumerated() where route.key.predicate?.isInternal != true {
            let queue = position < queues.count ? queues[position] : QueueState(pending: 0, served: 0)
            misses.append(
                (
                    analyze(
                        route.key, queue: queue, request: request, segments: segments, facts: &facts,
                        scenarios: scenarios, location: route.location, revealSecrets: revealSecrets), route.order
                ))
        }
        misses.sort { $0.0.distance != $1.0.distance ? $0.0.distance < $1.0.distance : $0.1 < $1.1 }
        return misses.prefix(maximumShown).map(\.0)
    }

    /// The near miss of one route: what the request does not satisfy of it (``RouteKey/misses(of:segments:facts:scenarios:revealSecrets:)``),
    /// plus, when that is nothing, a queue already used up.
    private static func analyze(
        _ key: RouteKey, queue: QueueState, request: MockRequest, segments: [String],
        facts: inout RequestFacts, scenarios: [String: String], location: SourceLocation?, revealSecrets: Bool
    ) -> NearMiss {
        var misses = key.misses(of: request, segments: segments, facts: &facts, scenarios: scenarios, revealSecrets: revealSecrets)
        if misses.isEmpty, queue.pending == 0 {
            misses.append(
                RouteMiss(
                    .responses, .half,
                    "responses: all \(queue.served) queued response\(queue.served == 1 ? " was" : "s were") already served"))
        }
        return NearMiss(
            route: revealSecrets ? key.description : key.maskedDescription, location: location,
            distance: RouteMiss.distance(of: misses), reasons: misses.map(\.line))
    }

    /// How different two strings are, 0 (equal) to 1, by edit distance.
    ///
    /// Only a ranking: the common prefix and suffix are set aside first (long paths usually
    /// share most of themselves), and when what remains is still large
    /// (more than `exactLimit` cells) the mismatches at aligned positions plus the length
    /// difference stand in for the edit distance (an upper bound of it), so a report over
    /// very long paths stays linear.
    static func difference(_ a: String, _ b: String) -> Double {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        let longest = max(a.count, b.count)
        guard longest > 0 else { return 0 }
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        let x = a[prefix..<(a.count - suffix)]
        let y = b[prefix..<(b.count - suffix)]
        return Double(editDistance(x, y)) / Double(longest)
    }

    static let exactLimit = 1 << 16

    // Plain index loops, not `enumerated()`, `zip` or `Array(0...n)`: unspecialized (a debug
    // build, the one tests and `swift run` use) those ask the runtime for generic metadata per
    // element, under a lock the server's worker threads then contend for; under
    // ThreadSanitizer, 300 misses of 4 KB paths took two minutes.
    private static func editDistance(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        if a.count * b.count > exactLimit {
            var mismatches = abs(a.count - b.count)
            var index = 0
            while index < min(a.count, b.count) {
                if a[index] != b[index] { mismatches += 1 }
                index += 1
            }
            return mismatches
        }
        var previous = [Int](repeating: 0, count: b.count + 1)
        var current = previous
        var k = 0
        while k <= b.count {
            previous[k] = k
            k += 1
        }
        var i = 0
        while i < a.count {
            current[0] = i + 1
            let left = a[i]
            var j = 0
            while j < b.count {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == b[j] ? 0 : 1))
                j += 1
            }
            swap(&previous, &current)
            i += 1
        }
        return previous[b.count]
    }

    /// The report for an unmatched request, as the 404 body, errors, the journal and `verify()`
    /// show it. Unless `revealSecrets`, the request's secrets (``SecretMasking``) are masked
    /// wherever they appear, and a last line says so when any was.
    static func report(for request: MockRequest, nearMisses: [NearMiss], revealSecrets: Bool = false) -> String {
        let text = unmaskedReport(for: request, nearMisses: nearMisses, revealSecrets: revealSecrets)
        guard !revealSecrets else { return text }
        let masked = SecretMasking.text(text, hiding: SecretMasking.secrets(of: request))
        guard masked.contains(SecretMasking.placeholder) else { return masked }
        return masked
            + "\n(secrets shown as \(SecretMasking.placeholder); revealSecrets = true, or httpmock serve --reveal-secrets, shows them)"
    }

    /// The URL the client called (over HTTP: `http://127.0.0.1:PORT/path`) and, when the
    /// server matched the request as another (an impersonated host), that one too. Not when
    /// only the host differs and it is the built-in `example.com`: nobody configured that host
    /// (a WireMock user never sees it anywhere else), so naming it only misleads (issue 44.6).
    static func calledURLDescription(of request: MockRequest, revealSecrets: Bool) -> String {
        let called = request.calledURL
        let matched = request.url
        let onlyTheDefaultHost =
            matched.host == Registry.builtInDefaultDomain && called.path == matched.path && called.query == matched.query
        let text =
            called.absoluteString == matched.absoluteString || onlyTheDefaultHost
            ? called.absoluteString : "\(called.absoluteString) (matched as \(matched.absoluteString))"
        return revealSecrets ? text : SecretMasking.url(text)
    }

    private static func unmaskedReport(for request: MockRequest, nearMisses: [NearMiss], revealSecrets: Bool) -> String {
        var lines = ["No mock for \(request.method) \(calledURLDescription(of: request, revealSecrets: revealSecrets))"]
        guard !nearMisses.isEmpty else {
            lines.append("No routes are registered on this HTTPMock instance.")
            return lines.joined(separator: "\n")
        }
        lines.append("Closest registrations:")
        for (index, miss) in nearMisses.enumerated() {
            let place = miss.location.map { " (registered at \($0))" } ?? ""
            lines.append("  \(index + 1). \(miss.route)\(place)")
            for reason in miss.reasons {
                lines.append("     \(reason)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension MatchValue {
    /// ``description`` with each expected value passed through `mask`.
    func maskedDescription(_ mask: (String) -> String) -> String {
        switch kind {
        case .any: return description
        case .values(let values) where values.count == 1: return mask(values[0])
        case .values(let values): return "[" + values.map(mask).joined(separator: ", ") + "]"
        }
    }
}

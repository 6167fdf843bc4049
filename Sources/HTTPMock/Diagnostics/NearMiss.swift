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

    private static func analyze(
        _ key: RouteKey, queue: QueueState, request: MockRequest, segments: [String],
        facts: inout RequestFacts, scenarios: [String: String], location: SourceLocation?, revealSecrets: Bool
    ) -> NearMiss {
        var distance = 0.0
        var reasons: [String] = []

        let requestHost = request.port.map { "\(request.normalizedHost):\($0)" } ?? request.normalizedHost
        if !key.host.matches(host: request.normalizedHost, port: request.effectivePort) {
            distance += 3 * max(0.1, difference(key.host.description, requestHost))
            reasons.append("host: expected \(key.host), got \(requestHost)")
        }
        // A URL rule (a WireMock mapping's) says more than the path pattern it is indexed by.
        let parameters = key.path.match(segments)
        if key.conditions?.url == nil, parameters == nil {
            distance += 3 * max(0.1, difference(key.path.description, request.normalizedPath))
            reasons.append("path: expected \(key.path), got \(request.normalizedPath)")
        }
        if let method = key.method, method != request.method {
            distance += 1
            reasons.append("method: expected \(method), got \(request.method)")
        }
        if let query = key.query {
            let lines = queryDifferences(query, request.query, revealSecrets: revealSecrets)
            if !lines.isEmpty {
                distance += min(1, 0.5 + 0.25 * Double(lines.count))
                reasons += lines
            }
        }
        if let headers = key.headers, !headers.matches(request.headers) {
            let lines = headerDifferences(headers, request.headers, revealSecrets: revealSecrets)
            distance += min(1, 0.5 + 0.25 * Double(lines.count))
            reasons += lines
        }
        if let body = key.body, !body.matches(request, json: { facts.json(of: request) }, body: facts.body(of: request)) {
            distance += 1
            if case .compiled(let compiled) = body.rule, let detail = compiled.matcher.mismatch(.body(facts.body(of: request))) {
                // XML and XPath say where the body differs or why it is not XML.
                reasons.append("body: " + detail)
            } else {
                reasons.append("body: expected \(body), got \(describeBody(request.body, revealSecrets: revealSecrets))")
            }
        }
        if let conditions = key.conditions {
            // The URL, host and port weigh as a path does; the other matchers together as the
            // query or the headers do (as in WireMock, where they weigh 1 against the URL's 10).
            var others = 0
            for miss in conditions.misses(request, parameters: parameters ?? [:], facts: &facts) {
                if miss.weight >= 10 {
                    distance += 3 * max(0.1, miss.distance)
                } else {
                    others += 1
                }
                reasons.append(revealSecrets ? miss.line : SecretMasking.maskingExpectations(in: miss.line))
            }
            if others > 0 { distance += min(1, 0.5 + 0.25 * Double(others)) }
        }
        if let required = key.scenario {
            let current = scenarios[required.scenario] ?? ScenarioState.started
            if current != required.state {
                distance += 0.5
                reasons.append(
                    "scenario: skipped for its scenario state: \"\(required.scenario)\" is \"\(current)\", this route needs \"\(required.state)\""
                )
            }
        }
        // A predicate runs only when everything else matches: it is user code and may have effects.
        if reasons.isEmpty, let predicate = key.predicate, !predicate.test(request) {
            distance += 0.5
            let explanation = predicate.explanation?(request) ?? "the predicate returned false"
            reasons.append("where: " + (revealSecrets ? explanation : SecretMasking.maskingExpectations(in: explanation)))
        }
        if reasons.isEmpty, queue.pending == 0 {
            distance += 0.5
            reasons.append("responses: all \(queue.served) queued response\(queue.served == 1 ? " was" : "s were") already served")
        }
        return NearMiss(
            route: revealSecrets ? key.description : key.maskedDescription, location: location, distance: distance, reasons: reasons)
    }

    private static func queryDifferences(_ requirement: QueryRequirement, _ query: RequestQuery, revealSecrets: Bool) -> [String] {
        var lines: [String] = []
        func shown(_ values: [String], of key: String) -> [String] {
            revealSecrets || !SecretMasking.isSecretKey(key) ? values : values.map { _ in SecretMasking.placeholder }
        }
        for (key, expected) in requirement.values.sorted(by: { $0.key < $1.key }) {
            let actual = query.values(for: key)
            guard !expected.matches(actual) else { continue }
            let values = shown(actual, of: key)
            let got = actual.isEmpty ? "no \(key)" : "\(key)=\(values.count == 1 ? values[0] : "[" + values.joined(separator: ", ") + "]")"
            let wanted =
                revealSecrets || !SecretMasking.isSecretKey(key)
                ? "\(expected)" : expected.maskedDescription { _ in SecretMasking.placeholder }
            lines.append("query: expected \(key)=\(wanted), got \(got)")
        }
        if requirement.matching == .exact {
            for key in query.keys where requirement.values[key] == nil {
                lines.append("query: unexpected \(key)=\(shown(query.values(for: key), of: key).joined(separator: ",")) (matching: .exact)")
            }
        }
        return lines
    }

    /// One line per header that differs. A secret header's values (``SecretMasking``) are
    /// masked on both sides unless `revealSecrets`: the expected one is a credential too.
    private static func headerDifferences(_ requirement: HeaderRequirement, _ headers: HTTPHeaders, revealSecrets: Bool) -> [String] {
        var lines: [String] = []
        for (name, expected) in requirement.values.sorted(by: { $0.key < $1.key }) {
            let single = HeaderRequirement([name: expected])
            guard !single.matches(headers) else { continue }
            let masks = !revealSecrets && SecretMasking.isSecretHeader(name)
            let got = headers[name].map { "\(name): \(masks ? SecretMasking.headerValue($0, named: name) : $0)" } ?? "no \(name)"
            let wanted = masks ? expected.maskedDescription { SecretMasking.headerValue($0, named: name) } : "\(expected)"
            lines.append("headers: expected \(name): \(wanted), got \(got)")
        }
        return lines
    }

    private static func describeBody(_ body: Data?, revealSecrets: Bool) -> String {
        guard let body, !body.isEmpty else { return "no body" }
        guard let text = String(data: body, encoding: .utf8) else { return "\(body.count) bytes of binary data" }
        let limit = 160
        let shown = text.count <= limit ? text : String(text.prefix(limit))
        let masked = revealSecrets ? shown : SecretMasking.bodyText(shown)
        return text.count <= limit ? masked : masked + "… (\(body.count) bytes)"
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

    private static func editDistance(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        if a.count * b.count > exactLimit {
            return zip(a, b).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) } + abs(a.count - b.count)
        }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for (i, left) in a.enumerated() {
            current[0] = i + 1
            for (j, right) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1))
            }
            swap(&previous, &current)
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

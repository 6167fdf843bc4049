import Foundation

/// One thing a request does not satisfy of a route, as a near-miss report prints it
/// (`query: expected page=1, got page=2`), and how much it weighs in the route's distance.
///
/// Every part of a route is explained here, whatever front end registered it: the DSL's host,
/// path, method, query, headers and body, a front end's conditions (WireMock's URL rules and
/// matchers, through ``RequestConditions/misses(_:parameters:facts:)``), the scenario state and
/// the predicate. ``NearMissAnalysis`` ranks routes by ``distance(of:)`` and prints the lines.
struct RouteMiss: Sendable {
    /// The part of the route a miss is about, in report order.
    enum Section: Sendable {
        case host, path, method, query, headers, body, conditions, scenario, predicate, responses
    }

    /// How a miss weighs (in the manner of WireMock: where the request goes weighs most).
    enum Share: Sendable {
        /// The host, the path, a URL rule or another matcher WireMock weighs 10: 3 × how
        /// different (0…1, at least 0.1).
        case place(Double)
        /// The method, the body: 1.
        case whole
        /// One of several lines of its section (query, headers, other matchers): together ½,
        /// plus ¼ per line, at most 1.
        case grouped
        /// Skipped for a state (the scenario's, a predicate's no, a used-up queue): ½.
        case half
    }

    let section: Section
    let share: Share
    /// The report's line, secrets already masked unless revealed.
    let line: String

    init(_ section: Section, _ share: Share, _ line: String) {
        self.section = section
        self.share = share
        self.line = line
    }

    /// A route's distance from a request: the sum of its misses' shares, grouped lines counted
    /// once per section (in report order: the sum is the same however the misses were found).
    static func distance(of misses: [RouteMiss]) -> Double {
        var distance = 0.0
        var section: Section?
        var grouped = 0
        func closeSection() {
            if grouped > 0 { distance += min(1, 0.5 + 0.25 * Double(grouped)) }
            grouped = 0
        }
        for miss in misses {
            if miss.section != section {
                closeSection()
                section = miss.section
            }
            switch miss.share {
            case .place(let difference): distance += 3 * max(0.1, difference)
            case .whole: distance += 1
            case .grouped: grouped += 1
            case .half: distance += 0.5
            }
        }
        closeSection()
        return distance
    }
}

extension RouteKey {
    /// Everything `request` does not satisfy of this route, in report order: host, path, method,
    /// query, headers, body, the front end's conditions, the scenario state; and, only when
    /// nothing else differs, the predicate (user code, which may have effects, runs last).
    /// `segments` are the request's path segments; `scenarios` the scenario states when the
    /// request was looked up (missing: started). Unless `revealSecrets`, secrets are masked.
    func misses(
        of request: MockRequest, segments: [String], facts: inout RequestFacts, scenarios: [String: String],
        revealSecrets: Bool
    ) -> [RouteMiss] {
        var misses: [RouteMiss] = []
        let requestHost = request.port.map { "\(request.normalizedHost):\($0)" } ?? request.normalizedHost
        if !host.matches(host: request.normalizedHost, port: request.effectivePort) {
            misses.append(
                RouteMiss(
                    .host, .place(NearMissAnalysis.difference(host.description, requestHost)),
                    "host: expected \(host), got \(requestHost)"))
        }
        // A URL rule (a WireMock mapping's) says more than the path pattern it is indexed by.
        let parameters = path.match(segments)
        if conditions?.url == nil, parameters == nil {
            misses.append(
                RouteMiss(
                    .path, .place(NearMissAnalysis.difference(path.description, request.normalizedPath)),
                    "path: expected \(path), got \(request.normalizedPath)"))
        }
        if let method, method != request.method {
            misses.append(RouteMiss(.method, .whole, "method: expected \(method), got \(request.method)"))
        }
        if let query {
            misses += Self.queryDifferences(query, request.query, revealSecrets: revealSecrets).map { RouteMiss(.query, .grouped, $0) }
        }
        if let headers, !headers.matches(request.headers) {
            misses += Self.headerDifferences(headers, request.headers, revealSecrets: revealSecrets).map {
                RouteMiss(.headers, .grouped, $0)
            }
        }
        if let body, !body.matches(request, json: { facts.json(of: request) }, body: facts.body(of: request)) {
            let line: String
            if case .compiled(let compiled) = body.rule, let detail = compiled.matcher.mismatch(.body(facts.body(of: request))) {
                // XML and XPath say where the body differs or why it is not XML.
                line = "body: " + detail
            } else {
                line = "body: expected \(body), got \(Self.describeBody(request.body, revealSecrets: revealSecrets))"
            }
            misses.append(RouteMiss(.body, .whole, line))
        }
        if let conditions {
            // The URL, host and port weigh as a path does; the other matchers together as the
            // query or the headers do (as in WireMock, where they weigh 1 against the URL's 10).
            for miss in conditions.misses(request, parameters: parameters ?? [:], facts: &facts) {
                misses.append(
                    RouteMiss(
                        .conditions, miss.weight >= 10 ? .place(miss.distance) : .grouped,
                        revealSecrets ? miss.line : SecretMasking.maskingExpectations(in: miss.line)))
            }
        }
        if let scenario {
            let current = scenarios[scenario.scenario] ?? ScenarioState.started
            if current != scenario.state {
                misses.append(
                    RouteMiss(
                        .scenario, .half,
                        "scenario: skipped for its scenario state: \"\(scenario.scenario)\" is \"\(current)\", this route needs \"\(scenario.state)\""
                    ))
            }
        }
        if misses.isEmpty, let predicate, !predicate.test(request) {
            let explanation = predicate.explanation?(request) ?? "the predicate returned false"
            misses.append(
                RouteMiss(
                    .predicate, .half, "where: " + (revealSecrets ? explanation : SecretMasking.maskingExpectations(in: explanation))))
        }
        return misses
    }

    /// One line per query parameter that differs, and per unexpected one under `.exact`.
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
}

import Foundation

/// One thing a request does not satisfy of a route, as a near-miss report prints it
/// (`query: expected page=1, got page=2`), and how much it weighs in the route's distance.
///
/// Every part of a route is explained here, whatever front end registered it: host, path and
/// method, its conditions through ``RequestConditions/misses(_:parameters:facts:revealSecrets:)``
/// (the DSL's query, headers and body in the DSL's words and sections, a front end's URL rules
/// and matchers in WireMock's), the scenario state and the predicate. ``NearMissAnalysis`` ranks routes by ``distance(of:)`` and prints the lines.
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
    /// its conditions (the DSL's query, headers and body, or a front end's), the scenario state; and, only when
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
        if let conditions {
            // The DSL's query, headers and body report in their own sections, in its words. A
            // front end's URL, host and port weigh as a path does; its other matchers together
            // as the query or the headers do (as in WireMock, where they weigh 1 against the
            // URL's 10).
            for miss in conditions.misses(request, parameters: parameters ?? [:], facts: &facts, revealSecrets: revealSecrets) {
                if let section = miss.declaredSection {
                    misses.append(RouteMiss(section, section == .body ? .whole : .grouped, miss.line))
                } else {
                    misses.append(
                        RouteMiss(
                            .conditions, miss.weight >= 10 ? .place(miss.distance) : .grouped,
                            revealSecrets ? miss.line : SecretMasking.maskingExpectations(in: miss.line)))
                }
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
}

import Foundation
import Testing

@testable import HTTPMock

/// The one near-miss explainer (`RouteKey.misses`) and the distance routes are ranked by.
@Suite("One near-miss explainer for every front end")
struct RouteMissTests {
    @Test(
        "the distance: 3 × difference (at least 0.1) per place, 1 per method or body, ½ + ¼ per grouped line per section (at most 1), ½ per state"
    )
    func distanceOfMisses() {
        let misses = [
            RouteMiss(.host, .place(0.05), "host"),  // 0.3
            RouteMiss(.method, .whole, "method"),  // 1
            RouteMiss(.query, .grouped, "q1"),
            RouteMiss(.query, .grouped, "q2"),  // 0.5 + 0.5 = 1
            RouteMiss(.headers, .grouped, "h1"),  // 0.75
            RouteMiss(.conditions, .grouped, "c1"),
            RouteMiss(.conditions, .place(0.5), "url"),  // 1.5
            RouteMiss(.conditions, .grouped, "c2"),
            RouteMiss(.conditions, .grouped, "c3"),  // three others: min(1, 0.5 + 0.75) = 1
            RouteMiss(.scenario, .half, "scenario"),  // 0.5
        ]
        #expect(abs(RouteMiss.distance(of: misses) - 6.05) < 1e-9)
        #expect(RouteMiss.distance(of: []) == 0)
    }

    @Test("a DSL route and a route with a front end's conditions are explained in one list, in report order")
    func oneListForEveryPart() throws {
        let request = MockRequest(
            method: .post, url: URL(string: "https://api.example.com/users?page=2")!, headers: ["X-Env": "prod"], body: nil)
        let key = RouteKey(
            host: try HostPattern.parse("api.example.com"), path: try PathPattern.parse("/users"), method: .get,
            query: QueryRequirement(values: ["page": "1"], matching: .contains), headers: HeaderRequirement(["X-Env": "test"]),
            body: nil, predicate: nil,
            conditions: RequestConditions(
                url: nil, conditions: [.init(.header("X-Env"), .single(.equalTo("staging", caseInsensitive: false)))]),
            scenario: ScenarioState("flow", "second"))
        var facts = RequestFacts()
        let misses = key.misses(
            of: request, segments: request.pathSegments, facts: &facts, scenarios: [:], revealSecrets: true)
        let lines = misses.map(\.line)
        #expect(lines.count == 5, "\(lines)")
        guard lines.count == 5 else { return }
        #expect(lines[0] == "method: expected GET, got POST")
        #expect(lines[1] == "query: expected page=1, got page=2")
        #expect(lines[2] == "headers: expected x-env: test, got x-env: prod")
        // The front end's condition, in its own words (RequestConditions' explainer).
        #expect(
            lines[3].hasPrefix("header X-Env: expected ") && lines[3].contains("staging") && lines[3].contains("got \"prod\""),
            "\(lines[3])")
        #expect(lines[4] == "scenario: skipped for its scenario state: \"flow\" is \"started\", this route needs \"second\"")
        // method 1, query ¾, headers ¾, one other matcher ¾, scenario ½.
        #expect(abs(RouteMiss.distance(of: misses) - 3.75) < 1e-9)
    }
}

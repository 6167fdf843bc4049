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

    @Test("a DSL route and a route with a front end's conditions are explained by one explainer, in report order")
    func oneListForEveryPart() throws {
        let request = MockRequest(
            method: .post, url: URL(string: "https://api.example.com/users?page=2")!, headers: ["X-Env": "prod"], body: nil)
        // The DSL's query and headers, lowered into the one matcher set.
        let declared = RouteKey(
            host: try HostPattern.parse("api.example.com"), path: try PathPattern.parse("/users"), method: .get,
            conditions: RequestConditions(
                declared: .init(
                    query: QueryRequirement(values: ["page": "1"], matching: .contains), headers: HeaderRequirement(["X-Env": "test"]))),
            scenario: ScenarioState("flow", "second"))
        var facts = RequestFacts()
        let misses = declared.misses(of: request, segments: request.pathSegments, facts: &facts, scenarios: [:], revealSecrets: true)
        #expect(
            misses.map(\.line) == [
                "method: expected GET, got POST",
                "query: expected page=1, got page=2",
                "headers: expected x-env: test, got x-env: prod",
                "scenario: skipped for its scenario state: \"flow\" is \"started\", this route needs \"second\"",
            ])
        // method 1, query ¾, headers ¾, scenario ½.
        #expect(abs(RouteMiss.distance(of: misses) - 3.0) < 1e-9)

        // A front end's condition on the same header, in its own words, through the same explainer.
        let frontEnd = RouteKey(
            host: try HostPattern.parse("api.example.com"), path: try PathPattern.parse("/users"),
            conditions: RequestConditions(
                url: nil, conditions: [.init(.header("X-Env"), .single(.equalTo("staging", caseInsensitive: false)))]))
        let other = frontEnd.misses(of: request, segments: request.pathSegments, facts: &facts, scenarios: [:], revealSecrets: true)
        #expect(other.count == 1)
        #expect(
            other.first.map { $0.line.hasPrefix("header X-Env: expected ") && $0.line.contains("got \"prod\"") } == true,
            "\(other.map(\.line))")
        #expect(abs(RouteMiss.distance(of: other) - 0.75) < 1e-9)
    }

    @Test("equal DSL declarations compare equal (one queue); a front end's conditions only to themselves")
    func declaredConditionsCompareByDeclaration() {
        let declared = RequestConditions.Declared(
            query: QueryRequirement(values: ["q": "swift"], matching: .exact), headers: HeaderRequirement(["Accept": .any]),
            body: .jsonContains(["a": 1]))
        #expect(RequestConditions(declared: declared) == RequestConditions(declared: declared))
        #expect(RequestConditions(declared: declared).hashValue == RequestConditions(declared: declared).hashValue)
        var other = declared
        other.query = QueryRequirement(values: ["q": "swift"], matching: .contains)
        #expect(RequestConditions(declared: declared) != RequestConditions(declared: other))
        let frontEnd = RequestConditions(url: .path("/a"), conditions: [])
        #expect(frontEnd == frontEnd)
        #expect(frontEnd != RequestConditions(url: .path("/a"), conditions: []))
        // Specificity counts the DSL's query (two conditions: a value, the names), its headers
        // and its body once each, as before they were lowered.
        #expect(RequestConditions(declared: declared).count == 3)
        // Even a part that lowers to no condition counts (an empty query under `.contains`).
        #expect(RequestConditions(declared: .init(query: QueryRequirement(values: [:], matching: .contains))).count == 1)
    }
}

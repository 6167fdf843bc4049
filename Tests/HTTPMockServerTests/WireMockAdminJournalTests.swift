#if Server
import Foundation
import HTTPMock
import HTTPMockServer
import Testing

/// The journal through WireMock's admin API (SPEC §22, §23): serve events, their ids, paging,
/// removal, near misses.
@Suite("WireMock admin API: the journal as serve events", .serialized, .timeLimit(.minutes(2)))
struct WireMockAdminJournalTests {
    @Test("GET /__admin/requests?limit=20 reads 20 entries of a 1,000-entry journal, newest first, with the total")
    func pollingCostsTheLimit() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/n", responses: [.empty(status: .noContent, lifetime: .eternal)])
        let session = mock.urlSession
        for n in 0..<1_000 {
            _ = try await session.data(from: URL(string: "https://example.com/n?i=\(n)")!)
        }
        // The journal query behind the endpoint looks at `limit` entries, whatever the journal's length.
        var looked = 0
        let (newest, total) = mock.adminNewestJournalEntries(limit: 20, since: nil) { _ in
            looked += 1
            return true
        }
        #expect(looked == 20)
        #expect(total == 1_000)
        #expect(newest.first?.request.url.query == "i=999")
        try await servingAdmin(mock) { admin in
            let page = try await admin.json("/__admin/requests?limit=20")
            guard case .array(let events)? = page["requests"] else {
                Issue.record("no requests in \(page)")
                return
            }
            #expect(events.count == 20)
            #expect(events.first?["request"]?["url"] == "/n?i=999")
            #expect(events.last?["request"]?["url"] == "/n?i=980")
            #expect(page["meta"]?["total"] == 1_000)
            #expect(page["requestJournalDisabled"] == false)
            #expect(try await admin.send("GET", "/__admin/requests?limit=x").status == 422)
        }
    }

    @Test("since, unmatched and matchingStub filter the serve events; ids stay valid as the journal is trimmed")
    func filtersAndStableIDs() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.journalLimit = 3
        try await servingAdmin(mock) { admin in
            let stub = "5d7f4c6e-3a2b-4c1d-8e9f-0a1b2c3d4e5f"
            let created = try await admin.send(
                "POST", "/__admin/mappings", #"{"id":"\#(stub)","request":{"urlPath":"/hit"},"response":{"status":200,"body":"ok"}}"#)
            #expect(created.status == 201)
            try await admin.send("GET", "/hit")
            try await admin.send("GET", "/miss")
            let events = try await admin.json("/__admin/requests")
            let hitID = try #require(events["requests"]?[1]?["id"])
            #expect(events["requests"]?[1]?["stubMapping"]?["id"] == .string(stub))
            #expect(events["requests"]?[1]?["wasMatched"] == true)
            #expect(events["requests"]?[1]?["response"]?["body"] == "ok")
            #expect(events["requests"]?[0]?["wasMatched"] == false)
            #expect(events["requests"]?[0]?["stubMapping"]?["request"]?["method"] == "ANY")

            let unmatched = try await admin.json("/__admin/requests?unmatched=true")
            #expect(unmatched["requests"]?[0]?["request"]?["url"] == "/miss")
            #expect(unmatched["requests"]?[1] == nil)
            let ofStub = try await admin.json("/__admin/requests?matchingStub=\(stub)")
            #expect(ofStub["requests"]?[0]?["id"] == hitID)
            #expect(ofStub["requests"]?[1] == nil)
            let future = try await admin.json("/__admin/requests?since=2999-01-01T00:00:00Z")
            #expect(future["requests"] == [])
            #expect(future["meta"]?["total"] == 2)
            let past = try await admin.json("/__admin/requests?since=2000-01-01T00:00:00.000Z")
            #expect(past["requests"]?[1]?["id"] == hitID)

            // Two more requests: the journal keeps 3, the hit's id still finds it.
            try await admin.send("GET", "/miss")
            guard case .string(let id) = hitID else { return }
            #expect(try await admin.json("/__admin/requests/\(id)")["request"]?["url"] == "/hit")
            try await admin.send("GET", "/miss")
            #expect(try await admin.send("GET", "/__admin/requests/\(id)").status == 404)
            let remaining = try await admin.json("/__admin/requests")
            let newest = try #require(remaining["requests"]?[0]?["id"])
            guard case .string(let newestID) = newest else { return }
            #expect(try await admin.send("DELETE", "/__admin/requests/\(newestID)").status == 200)
            #expect(try await admin.json("/__admin/requests")["meta"]?["total"] == 2)
        }
    }

    @Test("requests/remove and remove-by-metadata answer the serve events removed; mappings/unmatched lists and removes unused mappings")
    func removal() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        try await servingAdmin(mock) { admin in
            try await admin.send(
                "POST", "/__admin/mappings", #"{"request":{"urlPath":"/a"},"response":{"status":200},"metadata":{"team":"red"}}"#)
            try await admin.send(
                "POST", "/__admin/mappings", #"{"request":{"urlPath":"/b"},"response":{"status":200},"metadata":{"team":"blue"}}"#)
            try await admin.send("POST", "/__admin/mappings", #"{"request":{"urlPath":"/never"},"response":{"status":200}}"#)
            for path in ["/a", "/a", "/b", "/c"] { try await admin.send("GET", path) }
            let unused = try await admin.json("/__admin/mappings/unmatched")
            #expect(unused["mappings"]?[0]?["request"]?["urlPath"] == "/never")
            #expect(unused["meta"]?["total"] == 1)
            #expect(try await admin.send("DELETE", "/__admin/mappings/unmatched").status == 200)
            #expect(try await admin.json("/__admin/mappings")["meta"]?["total"] == 2)
            #expect(try await admin.send("POST", "/__admin/requests/count", #"{"urlPath":"/a"}"#).json?["count"] == 2)
            let removed = try await admin.send(
                "POST", "/__admin/requests/remove-by-metadata", #"{"matchesJsonPath":{"expression":"$.team","equalTo":"red"}}"#)
            guard case .array(let events)? = removed.json?["serveEvents"] else {
                Issue.record("no serveEvents in \(removed.text)")
                return
            }
            #expect(events.count == 2)
            #expect(events.allSatisfy { $0["request"]?["url"] == "/a" })
            let byPattern = try await admin.send("POST", "/__admin/requests/remove", #"{"method":"GET","url":"/c"}"#)
            #expect(byPattern.json?["serveEvents"]?[0]?["request"]?["url"] == "/c")
            let left = try await admin.json("/__admin/requests")
            #expect(left["meta"]?["total"] == 1)
            #expect(left["requests"]?[0]?["request"]?["url"] == "/b")
        }
    }

    @Test("near misses: the closest mappings with a distance, at most 3; HTTPMock's report on its own endpoint")
    func nearMisses() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        try await servingAdmin(mock) { admin in
            for path in ["/users/1", "/orders", "/zzz", "/products/9"] {
                try await admin.send(
                    "POST", "/__admin/mappings", #"{"request":{"method":"GET","urlPath":"\#(path)"},"response":{"status":200}}"#)
            }
            try await admin.send("GET", "/users/2")
            let near = try await admin.json("/__admin/requests/unmatched/near-misses")
            guard case .array(let misses)? = near["nearMisses"] else {
                Issue.record("no nearMisses in \(near)")
                return
            }
            #expect(misses.count == 3)
            #expect(misses[0]["stubMapping"]?["request"]?["urlPath"] == "/users/1")
            let distances = misses.compactMap { miss -> Double? in
                if case .double(let value)? = miss["matchResult"]?["distance"] { return value }
                return nil
            }
            #expect(distances.count == 3)
            #expect(distances == distances.sorted())
            #expect(distances.allSatisfy { $0 > 0 && $0 < 1 })
            #expect(misses[0]["nearMissReport"] == nil)

            let forRequest = try await admin.send("POST", "/__admin/near-misses/request", #"{"url":"/orderz","method":"GET"}"#)
            #expect(forRequest.json?["nearMisses"]?[0]?["stubMapping"]?["request"]?["urlPath"] == "/orders")
            let forPattern = try await admin.send("POST", "/__admin/near-misses/request-pattern", #"{"url":"/users/3","method":"GET"}"#)
            #expect(forPattern.json?["nearMisses"]?[0]?["request"]?["url"] == "/users/2")
            #expect(forPattern.json?["nearMisses"]?[0]?["requestPattern"]?["url"] == "/users/3")

            let ours = try await admin.json("/__admin/httpmock/near-misses")
            guard case .string(let report)? = ours["nearMisses"]?[0]?["nearMissReport"] else {
                Issue.record("no report in \(ours)")
                return
            }
            #expect(report.contains("/users/1"))
        }
    }

    @Test("a global delayDistribution is kept in the settings and drawn per response; fixedDelay and extended too")
    func settings() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        try await servingAdmin(mock) { admin in
            let set = try await admin.send(
                "POST", "/__admin/settings",
                #"{"fixedDelay":5,"delayDistribution":{"type":"uniform","lower":1,"upper":3},"extended":{"team":"pay"}}"#)
            #expect(set.status == 200)
            #expect(mock.defaultDelay == 0.005)
            #expect(mock.adminRandomDelay == RandomDelay(.uniform(lower: 0.001, upper: 0.003)))
            let settings = try await admin.json("/__admin/settings")["settings"]
            #expect(settings?["fixedDelay"] == 5)
            #expect(settings?["delayDistribution"]?["type"] == "uniform")
            #expect(settings?["extended"]?["team"] == "pay")
            let patched = try await admin.send("PATCH", "/__admin/settings/extended", #"{"extended":{"region":"eu"}}"#)
            #expect(patched.status == 200)
            #expect(try await admin.json("/__admin/settings")["settings"]?["extended"] == ["team": "pay", "region": "eu"])
            try await admin.send("POST", "/__admin/mappings", #"{"request":{"url":"/x"},"response":{"status":200,"body":"x"}}"#)
            #expect(try await admin.send("GET", "/x").text == "x")
            let refused = try await admin.send(
                "POST", "/__admin/settings", #"{"delayDistribution":{"type":"uniform","lower":3,"upper":1}}"#)
            #expect(refused.status == 422)
            #expect(refused.text.contains("/delayDistribution/upper"))
            #expect(mock.adminRandomDelay == RandomDelay(.uniform(lower: 0.001, upper: 0.003)))
            #expect(try await admin.send("POST", "/__admin/settings", "{}").status == 200)
            #expect(mock.adminRandomDelay == nil)
            #expect(try await admin.json("/__admin/settings")["settings"] == [:])
            #expect(try await admin.json("/__admin/health")["status"] == "healthy")
            #expect(try await admin.json("/__admin/version")["version"] == "2.35.1")
        }
        for _ in 0..<200 {
            let draw = RandomDelay(.uniform(lower: 0.001, upper: 0.003)).sample()
            #expect(draw >= 0.001 && draw <= 0.003)
            #expect(RandomDelay(.lognormal(median: 0.01, sigma: 0.5)).sample() >= 0)
        }
    }

    @Test("scenarios reset by name, and PUT …/state with an empty body is Started")
    func scenarioByName() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        try await servingAdmin(mock) { admin in
            try await admin.send(
                "POST", "/__admin/mappings",
                #"{"scenarioName":"s","requiredScenarioState":"Started","newScenarioState":"two","request":{"url":"/s"},"response":{"status":200}}"#
            )
            try await admin.send("GET", "/s")
            #expect(mock.state(of: "s") == "two")
            #expect(try await admin.send("POST", "/__admin/scenarios/s/reset").status == 200)
            #expect(mock.state(of: "s") == ScenarioState.started)
            try await admin.send("GET", "/s")
            #expect(try await admin.send("PUT", "/__admin/scenarios/s/state").status == 200)
            #expect(mock.state(of: "s") == ScenarioState.started)
            #expect(try await admin.send("POST", "/__admin/scenarios/nope/reset").status == 404)
            let listed = try await admin.json("/__admin/scenarios")
            #expect(listed["scenarios"]?[0]?["mappings"]?[0]?["scenarioName"] == "s")
        }
    }
}
#endif

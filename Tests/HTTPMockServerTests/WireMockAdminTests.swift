#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

/// Sends `method path` with a JSON body to the server; returns status and body text.
private func call(
    _ session: URLSession, _ server: HTTPMockServer, _ method: String, _ path: String, json: String? = nil,
    headers: [String: String] = [:]
) async throws -> (status: Int, text: String) {
    var request = URLRequest(url: URL(string: server.baseURL.absoluteString + path)!)
    request.httpMethod = method
    if let json {
        request.httpBody = Data(json.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let (data, response) = try await session.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}

@Suite("WireMock admin API through startServer(admin: true) (SPEC §19)", .serialized, .timeLimit(.minutes(1)))
struct WireMockAdminTests {
    @Test("a mapping posted to /__admin/mappings answers, lists, and is removed by id; admin requests are not journaled")
    func mappingLifecycle() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        try await serving(mock, admin: true) { server in
            let session = makePlainSession()
            let created = try await call(
                session, server, "POST", "/__admin/mappings",
                json: #"{"request":{"method":"GET","urlPathPattern":"/items/[0-9]+","headers":{"Accept":{"contains":"json"}}},"#
                    + #""response":{"status":200,"jsonBody":{"ok":true},"headers":{"X-Id":"1"}}}"#)
            #expect(created.status == 201)
            let id = try #require(try JSONDecoder().decode([String: JSONValue].self, from: Data(created.text.utf8))["id"])
            guard case .string(let mappingID) = id else {
                Issue.record("the mapping's id is not a string: \(id)")
                return
            }

            let hit = try await call(session, server, "GET", "/items/12", headers: ["Accept": "application/json"])
            #expect(hit.status == 200)
            #expect(hit.text == #"{"ok":true}"#)
            #expect(try await call(session, server, "GET", "/items/12", headers: ["Accept": "text/html"]).status == 404)
            #expect(try await call(session, server, "GET", "/items/x", headers: ["Accept": "application/json"]).status == 404)

            let listed = try await call(session, server, "GET", "/__admin/mappings")
            #expect(listed.text.contains(#""total":1"#))
            #expect(try await call(session, server, "DELETE", "/__admin/mappings/\(mappingID)").status == 200)
            #expect(try await call(session, server, "GET", "/items/12", headers: ["Accept": "application/json"]).status == 404)
            #expect(try await call(session, server, "GET", "/__admin/mappings/\(mappingID)").status == 404)
        }
        #expect(mock.recordedRequests.count == 4)
        #expect(!mock.recordedRequests.contains { $0.request.url.path.hasPrefix("/__admin") })
    }

    @Test(
        "a jsonBody posted, imported or edited through the admin API is answered, and the mapping listed, in the order it was written (issue 45.2)"
    )
    func jsonBodyKeepsItsOrder() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        let body = #"{"zeta":1,"alpha":{"y":[{"d":1,"c":2}],"b":2},"mid":null}"#
        try await serving(mock, admin: true) { server in
            let session = makePlainSession()
            let posted = try await call(
                session, server, "POST", "/__admin/mappings", json: #"{"request":{"url":"/posted"},"response":{"jsonBody":"# + body + "}}")
            #expect(posted.status == 201)
            #expect(try await call(session, server, "GET", "/posted").text == body)
            // The admin API answers and lists a mapping as it was written, jsonBody in its order.
            #expect(posted.text.contains(#""jsonBody":"# + body), "\(posted.text)")
            let imported = try await call(
                session, server, "POST", "/__admin/mappings/import",
                json: #"{"mappings":[{"request":{"url":"/imported"},"response":{"jsonBody":"# + body + "}}]}")
            #expect(imported.status == 200)
            #expect(try await call(session, server, "GET", "/imported").text == body)
            guard case .string(let id)? = try JSONReader.parse(posted.text)["id"] else {
                Issue.record("no id in \(posted.text)")
                return
            }
            let put = try await call(
                session, server, "PUT", "/__admin/mappings/\(id)",
                json: #"{"request":{"url":"/put"},"response":{"jsonBody":"# + body + "}}")
            #expect(put.status == 200)
            #expect(try await call(session, server, "GET", "/put").text == body)
            let one = try await call(session, server, "GET", "/__admin/mappings/\(id)")
            #expect(one.text.hasPrefix(#"{"request":{"url":"/put"},"response":{"jsonBody":"# + body), "\(one.text)")
            let all = try await call(session, server, "GET", "/__admin/mappings")
            #expect(all.text.components(separatedBy: #""jsonBody":"# + body).count == 3, "\(all.text)")
            #expect(all.text.hasSuffix(#""meta":{"total":2}}"#), "\(all.text)")
            // A body that is not JSON names where it stops being JSON.
            let broken = try await call(session, server, "POST", "/__admin/mappings", json: "{\"request\":\n {\"url\": }")
            #expect(broken.status == 422 || broken.status == 400)
            #expect(broken.text.contains("line 2"), "\(broken.text)")
        }
    }

    @Test("an unsupported field is a 422 naming it, and nothing is registered")
    func unsupportedField() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        try await serving(mock, admin: true) { server in
            let session = makePlainSession()
            let refused = try await call(
                session, server, "POST", "/__admin/mappings",
                json: #"{"request":{"url":"/a"},"response":{"status":200,"transformers":["my-extension"]}}"#)
            #expect(refused.status == 422)
            #expect(refused.text.contains("/response/transformers"))
            #expect(try await call(session, server, "GET", "/a").status == 404)
            #expect(try await call(session, server, "GET", "/__admin/mappings").text.contains(#""total":0"#))
        }
    }

    @Test("priority wins over specificity; a Swift route and a mapping share the registry")
    func priorityBeforeSpecificity() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/users/1", responses: [.plaintext("swift", lifetime: .eternal)])
        try await serving(mock, admin: true) { server in
            let session = makePlainSession()
            #expect(try await call(session, server, "GET", "/users/1").text == "swift")
            let created = try await call(
                session, server, "POST", "/__admin/mappings",
                json: #"{"priority":1,"request":{"urlPattern":"/users/.*"},"response":{"status":200,"body":"wiremock"}}"#)
            #expect(created.status == 201)
            #expect(try await call(session, server, "GET", "/users/1").text == "wiremock")
        }
    }

    @Test("scenarios: Started is HTTPMock's started, PUT moves a scenario, reset brings it back")
    func scenarios() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        try await serving(mock, admin: true) { server in
            let session = makePlainSession()
            for (required, body) in [("Started", "first"), ("second", "later")] {
                _ = try await call(
                    session, server, "POST", "/__admin/mappings",
                    json: #"{"scenarioName":"flow","requiredScenarioState":"\#(required)","newScenarioState":"second","#
                        + #""request":{"url":"/flow"},"response":{"status":200,"body":"\#(body)"}}"#)
            }
            #expect(try await call(session, server, "GET", "/flow").text == "first")
            #expect(mock.state(of: "flow") == "second")
            #expect(try await call(session, server, "GET", "/__admin/scenarios").text.contains(#""state":"second""#))
            #expect(try await call(session, server, "POST", "/__admin/scenarios/reset").status == 200)
            #expect(mock.state(of: "flow") == ScenarioState.started)
            let moved = try await call(session, server, "PUT", "/__admin/scenarios/flow/state", json: #"{"state":"second"}"#)
            #expect(moved.status == 200)
            #expect(try await call(session, server, "GET", "/flow").text == "later")
        }
    }

    @Test("scenarios of Swift routes are listed with the states their routes name, and move from the admin API")
    func swiftScenarios() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/cart", when: ScenarioState("cart", "started"), responses: [.plaintext("empty", lifetime: .eternal)])
        mock.addResponses(forPath: "/cart", when: ScenarioState("cart", "full"), responses: [.plaintext("full", lifetime: .eternal)])
        try await serving(mock, admin: true) { server in
            let session = makePlainSession()
            let listed = try await call(session, server, "GET", "/__admin/scenarios")
            #expect(listed.text.contains(#""possibleStates":["Started","full"]"#))
            #expect(try await call(session, server, "PUT", "/__admin/scenarios/cart/state", json: #"{"state":"full"}"#).status == 200)
            #expect(try await call(session, server, "GET", "/cart").text == "full")
            #expect(try await call(session, server, "PUT", "/__admin/scenarios/nope/state", json: #"{"state":"x"}"#).status == 404)
        }
    }

    @Test("the admin API is off unless asked, and the dashboard and events answer when it is on")
    func offByDefaultAndDashboard() async throws {
        let plain = HTTPMock()
        plain.logHandler = nil
        let server = try await plain.startServer()
        let exchange = try await rawExchange(port: server.port, "GET /__admin/mappings HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(exchange.hasPrefix("HTTP/1.1 404"))
        #expect(plain.recordedRequests.count == 1)
        await server.stop()

        let mock = HTTPMock()
        mock.logHandler = nil
        try await serving(mock, admin: true) { server in
            let page = try await rawExchange(port: server.port, "GET /__admin/ HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(page.contains("text/html"))
            #expect(page.contains(#"data-testid="reset""#))
            #expect(page.contains("/__admin/events"))
            let client = try RawClient(port: server.port)
            try client.send("GET /__admin/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let events = client.read(timeout: 30) { $0.contains("\"routes\"") }
            #expect(events.contains("text/event-stream"))
            #expect(events.contains("data: {"))
        }
        #expect(mock.recordedRequests.isEmpty)
    }

    @Test("loadWireMock(from:) loads mappings/ and __files/, and reports a bad file by name and field")
    func loadFolder() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-\(UUID().uuidString)")
        let mappings = root.appendingPathComponent("mappings/sub")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("__files"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(#"{"name":"Ada"}"#.utf8).write(to: root.appendingPathComponent("__files/ada.json"))
        try Data(#"{"mappings":[{"request":{"urlPath":"/ada"},"response":{"bodyFileName":"ada.json"}}]}"#.utf8)
            .write(to: mappings.appendingPathComponent("one.json"))
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadWireMock(from: root)
        try await serving(mock, admin: true) { server in
            let answer = try await call(makePlainSession(), server, "GET", "/ada")
            #expect(answer.text == #"{"name":"Ada"}"#)
        }

        try Data(#"{"request":{"urlPath":"/b","customMatcher":{"name":"is-admin"}},"response":{}}"#.utf8).write(
            to: mappings.appendingPathComponent("two.json"))
        let other = HTTPMock()
        other.logHandler = nil
        let error = #expect(throws: HTTPMockError.self) { try other.loadWireMock(from: root) }
        #expect(error?.message.contains("two.json") == true)
        #expect(error?.message.contains("/request/customMatcher") == true)
        #expect(other.adminRouteStates.isEmpty)
    }

    @Test("forward(to:) answers with what a second server sends")
    func forward() async throws {
        let upstream = HTTPMock()
        upstream.logHandler = nil
        upstream.addResponses(forPath: "/v2/users/1", query: ["full": "1"], responses: [.plaintext("from upstream")])
        let second = try await upstream.startServer()
        defer { Task { await second.stop() } }
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(
            forPath: "/users/**", host: "api.example.com",
            responses: [.forward(to: second.baseURL.appendingPathComponent("v2"))])
        let (data, response) = try await mock.urlSession.data(from: URL(string: "https://api.example.com/users/1?full=1")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "from upstream")
        #expect(mock.recordedRequests.first?.statusCode == 200)
        #expect(upstream.recordedRequests.count == 1)
    }
}
#endif

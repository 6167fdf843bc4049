#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import HTTPMock
@testable import HTTPMockServer
import Testing

/// Sends `method path` (with `body` and `headers`) to `server`; status, reason phrase, headers, body.
private func exchange(
    _ server: HTTPMockServer, _ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]
) async throws -> (status: Int, headers: [String: String], text: String) {
    var request = URLRequest(url: URL(string: server.baseURL.absoluteString + path)!)
    request.httpMethod = method
    request.httpBody = body.map { Data($0.utf8) }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let (data, response) = try await makePlainSession().data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    var fields: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
        if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
    }
    return (http.statusCode, fields, String(decoding: data, as: UTF8.self))
}

/// Posts a mapping to the admin API; the status and body of the answer.
private func post(_ server: HTTPMockServer, mapping: String) async throws -> (status: Int, text: String) {
    let answer = try await exchange(server, "POST", "/__admin/mappings", body: mapping, headers: ["Content-Type": "application/json"])
    return (answer.status, answer.text)
}

@Suite("WireMock mappings: webhooks, proxying, refusals, files, distance (SPEC §22)", .serialized, .timeLimit(.minutes(2)))
struct WireMockMatchingTests {
    @Test("a webhook goes out after the response, with its method, headers and body")
    func webhookAfterTheResponse() async throws {
        let target = HTTPMock()
        target.logHandler = nil
        target.addResponses(forPath: "/hook", host: "**", method: .put, responses: [.empty(status: .noContent, lifetime: .eternal)])
        let receiver = try await target.startServer()
        defer { Task { await receiver.stop() } }
        let mock = HTTPMock()
        mock.logHandler = nil
        try await serving(mock, admin: true) { server in
            let mapping = """
                {"request": {"urlPath": "/order"}, "response": {"status": 201, "body": "created"},
                 "postServeActions": [{"name": "webhook", "parameters": {"method": "PUT", "url": "\(receiver.baseURL.absoluteString)/hook",
                   "headers": {"X-Event": "order"}, "body": "{\\"id\\": 1}"}}]}
                """
            #expect(try await post(server, mapping: mapping).status == 201)
            #expect(target.recordedRequests.isEmpty)
            let answer = try await exchange(server, "GET", "/order")
            #expect(answer.status == 201 && answer.text == "created")
            let hook = try await target.waitForRequest(to: "/hook", timeout: 20).request
            #expect(hook.method == .put)
            #expect(hook.headers["X-Event"] == "order")
            #expect(hook.body == Data(#"{"id": 1}"#.utf8))
        }
    }

    @Test("proxyBaseUrl with added and removed request headers and a path prefix removed")
    func proxyAdjustments() async throws {
        let upstream = HTTPMock()
        upstream.logHandler = nil
        upstream.addResponses(forPath: "/v2/users/1", host: "**", responses: [.plaintext("from upstream", lifetime: .eternal)])
        let origin = try await upstream.startServer()
        defer { Task { await origin.stop() } }
        let mock = HTTPMock()
        mock.logHandler = nil
        try await serving(mock, admin: true) { server in
            let mapping = """
                {"request": {"urlPathPattern": "/legacy/.*"},
                 "response": {"proxyBaseUrl": "\(origin.baseURL.absoluteString)/v2", "proxyUrlPrefixToRemove": "/legacy",
                              "additionalProxyRequestHeaders": {"X-Proxied": "yes"}, "removeProxyRequestHeaders": ["X-Secret"]}}
                """
            #expect(try await post(server, mapping: mapping).status == 201)
            let answer = try await exchange(server, "GET", "/legacy/users/1", headers: ["X-Secret": "s", "X-Kept": "k"])
            #expect(answer.text == "from upstream")
            let forwarded = try #require(upstream.recordedRequests.last?.request)
            #expect(forwarded.url.path == "/v2/users/1")
            #expect(forwarded.headers["X-Proxied"] == "yes")
            #expect(forwarded.headers["X-Secret"] == nil)
            #expect(forwarded.headers["X-Kept"] == "k")
        }
    }

    @Test(
        "what HTTPMock cannot honour is a 422 naming the field, and nothing is registered",
        arguments: [
            (#"{"request": {"customMatcher": {"name": "is-admin"}}}"#, "/request/customMatcher"),
            (#"{"request": {"bodyPatterns": [{"matchesJsonSchema": {"type": "object"}}]}}"#, "/request/bodyPatterns/0/matchesJsonSchema"),
            (#"{"request": {"url": "/a"}, "fromConfiguredStub": true}"#, "/fromConfiguredStub"),
            (#"{"request": {"url": "/a"}, "postServeActions": [{"name": "kafka-publisher"}]}"#, "the extension kafka-publisher"),
            (#"{"request": {"urlPathPattern": "/users/{id}"}}"#, "/request/urlPathPattern"),
            (#"{"request": {"bodyPatterns": [{"matchesXPath": "//["}]}}"#, "/request/bodyPatterns/0/matchesXPath"),
            (#"{"request": {"bodyPatterns": [{"matchesJsonPath": "$.a[?(@.b ==]"}]}}"#, "/request/bodyPatterns/0/matchesJsonPath"),
            (#"{"request": {"url": "/a"}, "response": {"statusMessage": "OK\r\nX-Evil: 1"}}"#, "/response/statusMessage"),
            (#"{"request": {"headers": {"X": {"equalTo": "a", "contains": "b"}}}}"#, "/request/headers/X"),
        ])
    func refusals(mapping: String, fragment: String) async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        try await serving(mock, admin: true) { server in
            let answer = try await post(server, mapping: mapping)
            #expect(answer.status == 422, "\(mapping)")
            #expect(answer.text.contains(fragment), "\(answer.text)")
            #expect(mock.adminRouteStates.isEmpty)
        }
    }

    @Test("a mapping file that is not JSON is named with its line and column; comments and single quotes are fine")
    func fileErrorsByLine() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-lines-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("// a comment\n{ 'request': { 'url': '/a' }, /* trailing */ \"response\": { \"body\": \"a\" } }\n".utf8)
            .write(to: root.appendingPathComponent("mappings/good.json"))
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadWireMock(from: root)
        #expect(mock.adminRouteStates.count == 1)
        try Data("{\n  \"request\": { \"url\": \"/b\" },\n  \"response\": { \"body\": \"b\", }\n}\n".utf8)
            .write(to: root.appendingPathComponent("mappings/trailing-comma.json"))
        let other = HTTPMock()
        other.logHandler = nil
        let error = #expect(throws: HTTPMockError.self) { try other.loadWireMock(from: root) }
        #expect(error?.message.contains("mappings/trailing-comma.json:3:") == true, "\(String(describing: error))")
        #expect(other.adminRouteStates.isEmpty)
    }

    @Test("a folder of 300 files is parsed on every core: all load, in file order; the first broken file in order is the one named")
    func manyFilesLoadInOrder() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-many-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        for index in 0..<300 {
            let name = String(format: "m%03d.json", index)
            try Data(#"{"request": {"url": "/item/\#(index)"}, "response": {"body": "\#(index)"}}"#.utf8)
                .write(to: root.appendingPathComponent("mappings/" + name))
        }
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadWireMock(from: root)
        #expect(mock.adminRouteStates.count == 300)
        // Two broken files: the one that sorts first is reported, whichever core read it.
        try Data("{ \"request\": ".utf8).write(to: root.appendingPathComponent("mappings/m250.json"))
        try Data(#"{"request": {"url": "/x"}, "response": {"status": "teapot"}}"#.utf8).write(
            to: root.appendingPathComponent("mappings/m120.json"))
        for _ in 0..<5 {
            let other = HTTPMock()
            other.logHandler = nil
            let error = #expect(throws: HTTPMockError.self) { try other.loadWireMock(from: root) }
            #expect(error?.message.contains("mappings/m120.json:1: /response/status") == true, "\(String(describing: error))")
            #expect(other.adminRouteStates.isEmpty)
        }
    }

    @Test(
        "a bodyFileName whose file is missing loads (as in WireMock): 500 naming it until the file exists, the folder's other mappings answer"
    )
    func missingBodyFile() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-missing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("__files"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(#"{"request": {"url": "/menu"}, "response": {"bodyFileName": "menu.json"}}"#.utf8)
            .write(to: root.appendingPathComponent("mappings/menu.json"))
        try Data(#"{"request": {"url": "/ok"}, "response": {"body": "ok"}}"#.utf8).write(
            to: root.appendingPathComponent("mappings/ok.json"))
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadWireMock(from: root)
        try await serving(mock, admin: true) { server in
            let missing = try await exchange(server, "GET", "/menu")
            #expect(missing.status == 500 && missing.text.contains("no file menu.json"), "\(missing)")
            #expect(try await exchange(server, "GET", "/ok").text == "ok")
            try Data(#"{"dish":"ajiaco"}"#.utf8).write(to: root.appendingPathComponent("__files/menu.json"))
            let found = try await exchange(server, "GET", "/menu")
            #expect(found.status == 200 && found.text == #"{"dish":"ajiaco"}"#, "\(found)")
        }
    }

    @Test("the distance of a mapping from a request: 0 when it matches, growing with what differs")
    func distance() throws {
        let mapping = try WireMockMapping.parse(
            try JSONReader.parse(
                #"{"request": {"method": "POST", "urlPath": "/orders", "headers": {"Accept": {"equalTo": "application/json"}}}}"#))
        func request(_ method: HTTPMethod, _ path: String, accept: String) -> MockRequest {
            MockRequest(method: method, url: URL(string: "http://localhost" + path)!, headers: ["Accept": accept], body: nil)
        }
        let exact = mapping.distance(to: request(.post, "/orders", accept: "application/json"))
        let header = mapping.distance(to: request(.post, "/orders", accept: "application/xml"))
        let method = mapping.distance(to: request(.get, "/orders", accept: "application/xml"))
        let url = mapping.distance(to: request(.get, "/invoices", accept: "text/html"))
        #expect(exact == 0)
        #expect(0 < header && header < method && method < url && url <= 1, "\(header) \(method) \(url)")
        #expect(
            mapping.misses(request(.get, "/orders", accept: "application/xml")).map(\.line) == [
                "method: expected POST, got GET", #"headers.Accept: expected equalTo "application/json", got "application/xml""#,
            ])
    }

    @Test("a URL pattern is indexed by its literal prefix: a request elsewhere never evaluates it")
    func indexedByPrefix() throws {
        let regex = try TextRegex("/api/v1/users/[0-9]+")
        #expect(WireMockRequestPattern.prefixRoutePath(regex, includesQuery: false) == "/api/v1/users/**")
        #expect(WireMockRequestPattern.prefixRoutePath(try TextRegex("/api/us[a-z]+"), includesQuery: false) == "/api/us*/**")
        #expect(WireMockRequestPattern.prefixRoutePath(try TextRegex("/search\\?q=.*"), includesQuery: true) == "/search")
        #expect(WireMockRequestPattern.prefixRoutePath(try TextRegex("(?i)/API/.*"), includesQuery: false) == "/**")
        #expect(WireMockRequestPattern.prefixRoutePath(try TextRegex("/exact"), includesQuery: false) == "/exact")
        #expect(try WireMockRequestPattern.templateRoutePath("/c/{id}/o/{orderId}", at: "").0 == "/c/:id/o/:orderId")
        #expect(WireMockRequestPattern.literalRoutePath("/files/*/:x") == "/files/%2A/%3Ax")
    }

    @Test("equal priorities: the newest matching mapping answers, whatever its specificity (WireMock's order); priority first")
    func newestMappingAnswers() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        try await serving(mock, admin: true) { server in
            let older =
                #"{"request": {"method": "GET", "urlPath": "/order", "headers": {"X-Tenant": {"equalTo": "a"}}}, "response": {"body": "older"}}"#
            let newer =
                #"{"id": "00000000-0000-4000-8000-0000000000b2", "request": {"urlPathPattern": "/ord.*"}, "response": {"body": "newer"}}"#
            #expect(try await post(server, mapping: older).status == 201)
            #expect(try await post(server, mapping: newer).status == 201)
            // The older mapping is more specific (a literal path, a method, a header): WireMock
            // still answers with the newer one.
            #expect(try await exchange(server, "GET", "/order", headers: ["X-Tenant": "a"]).text == "newer")
            let preferred = #"{"priority": 1, "request": {"urlPath": "/order"}, "response": {"body": "priority 1"}}"#
            #expect(try await post(server, mapping: preferred).status == 201)
            let newest = #"{"request": {"urlPath": "/order"}, "response": {"body": "newest, priority 5"}}"#
            #expect(try await post(server, mapping: newest).status == 201)
            #expect(try await exchange(server, "GET", "/order").text == "priority 1")
            // Without the priority-1 mapping the newest answers again, then the one before it.
            let listed = try await exchange(server, "GET", "/__admin/mappings")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(listed.text.utf8)) as? [String: Any])
            let mappings = try #require(json["mappings"] as? [[String: Any]])
            let priorityOne = try #require(mappings.first { ($0["priority"] as? Int) == 1 }?["id"] as? String)
            let newestID = try #require(
                mappings.first { ($0["response"] as? [String: Any])?["body"] as? String == "newest, priority 5" }?["id"] as? String)
            #expect(try await exchange(server, "DELETE", "/__admin/mappings/" + priorityOne).status == 200)
            #expect(try await exchange(server, "GET", "/order").text == "newest, priority 5")
            #expect(try await exchange(server, "DELETE", "/__admin/mappings/" + newestID).status == 200)
            #expect(try await exchange(server, "GET", "/order", headers: ["X-Tenant": "a"]).text == "newer")
            #expect(try await exchange(server, "DELETE", "/__admin/mappings/00000000-0000-4000-8000-0000000000b2").status == 200)
            #expect(try await exchange(server, "GET", "/order", headers: ["X-Tenant": "a"]).text == "older")
        }
    }

    @Test("what real files write and WireMock 2.35.1 loads: priority 0, a status as a string, basicAuth, caseInsensitive beside matches")
    func wireMockLeniencies() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        try await serving(mock, admin: true) { server in
            // Each as a public repository's mapping file writes it; each compared with the jar.
            let zero = #"{"priority": 0, "request": {"urlPath": "/lenient"}, "response": {"status": "400", "body": "priority 0"}}"#
            let one = #"{"priority": "1", "request": {"urlPath": "/lenient"}, "response": {"body": "priority 1"}}"#
            let basic =
                #"{"request": {"urlPath": "/basic", "basicAuth": {"username": "tony", "password": "password"}}, "response": {"body": "signed in"}}"#
            let bearer =
                #"{"request": {"urlPath": "/bearer", "headers": {"Authorization": {"matches": "^Bearer\\s.*", "caseInsensitive": true}}}, "response": {"body": "bearer"}}"#
            for mapping in [zero, one, basic, bearer] {
                let posted = try await post(server, mapping: mapping)
                #expect(posted.status == 201, "\(mapping) → \(posted.text)")
            }
            let lenient = try await exchange(server, "GET", "/lenient")
            #expect(lenient.status == 400 && lenient.text == "priority 0")
            #expect(
                try await exchange(server, "GET", "/basic", headers: ["Authorization": "Basic dG9ueTpwYXNzd29yZA=="]).text == "signed in")
            #expect(try await exchange(server, "GET", "/basic").status == 404)
            #expect(try await exchange(server, "GET", "/bearer", headers: ["Authorization": "Bearer tok"]).text == "bearer")
            // Still refused, naming the field: a negative priority, a status that is no number.
            let negative = try await post(server, mapping: #"{"priority": -1, "request": {"url": "/x"}, "response": {}}"#)
            #expect(negative.status == 422 && negative.text.contains("priority"), "\(negative.text)")
            let word = try await post(server, mapping: #"{"request": {"url": "/x"}, "response": {"status": "OK"}}"#)
            #expect(word.status == 422 && word.text.contains("status"), "\(word.text)")
        }
    }
}
#endif

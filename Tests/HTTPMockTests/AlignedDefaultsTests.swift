import Foundation
import HTTPMock
import Testing

@Suite("Defaults shared with bstien/HTTPMock, [String: String] variables, requests(where:)")
struct AlignedDefaultsTests {
    let mock = HTTPMock()

    func get(_ path: String, host: String = "api.example.com", headers: [String: String] = [:]) async throws -> Reply {
        try await mock.urlSession.reply(request("https://\(host)\(path)", headers: headers))
    }

    @Test("Headers under a Path apply to that path only unless cascade: true; under a Host they reach every path")
    func headersDoNotCascadeByDefault() async throws {
        mock.registerResponses {
            Host("api.example.com") {
                Headers(["X-Host": "h"])
                Path("/a") {
                    Headers(["X-Local": "a"])
                    MockResponse.plaintext("a")
                    Path("/b") { MockResponse.plaintext("b") }
                }
            }
        }
        let a = try await get("/a")
        #expect(a.header("X-Local") == "a")
        #expect(a.header("X-Host") == "h")
        let b = try await get("/a/b")
        #expect(b.text == "b")
        #expect(b.header("X-Local") == nil)
        #expect(b.header("X-Host") == "h")
    }

    @Test(".encodable writes Date as ISO 8601 by default; a given encoder wins")
    func iso8601Dates() async throws {
        struct Event: Encodable { var at = Date(timeIntervalSince1970: 1_759_320_000) }
        let epoch = JSONEncoder()
        epoch.dateEncodingStrategy = .secondsSince1970
        mock.addResponses(
            forPath: "/event", host: "api.example.com",
            responses: [
                .encodable(Event()),
                .encodable(Event(), encoder: epoch),
            ])
        #expect(try await get("/event").text == #"{"at":"2025-10-01T12:00:00Z"}"#)
        #expect(try await get("/event").text == #"{"at":1759320000}"#)
    }

    @Test("an empty response list creates no route: the request is unmatched, nothing is pending")
    func emptyListCreatesNoRoute() async throws {
        mock.addResponses(forPath: "/nothing", host: "api.example.com", responses: [])
        mock.registerResponses {
            Host("api.example.com") {
                Path("/parent") {
                    Path("/child") { MockResponse.plaintext("child") }
                }
            }
        }
        #expect(mock.pendingResponses.map(\.route) == ["ANY api.example.com/parent/child"])
        let reply = try await get("/nothing")
        #expect(reply.status == 404)
        #expect(!reply.text.contains("0 responses"))
        #expect(mock.recordedRequests.first?.isMatched == false)
        #expect(try await get("/parent/child").text == "child")
    }

    @Test("query:, headers:, Headers(_:) and response headers: accept [String: String] variables")
    func dictionaryVariables() async throws {
        let query: [String: String] = ["q": "swift", "page": "1"]
        let required: [String: String] = ["Authorization": "Bearer t0k"]
        let responseHeaders: [String: String] = ["X-Trace": "t1"]
        let scopeHeaders: [String: String] = ["X-Env": "Test"]
        mock.addResponses(
            forPath: "/search", host: "api.example.com", query: query,
            responses: [.plaintext("query", headers: responseHeaders)])
        mock.addResponses(
            forPath: "/me", host: "api.example.com", headers: required,
            responses: [.encodable(["id": 1], headers: responseHeaders)])
        mock.addResponses(forPath: "/both", host: "api.example.com", query: query, headers: required) {
            MockResponse.empty(headers: responseHeaders)
        }
        mock.registerResponses {
            Host("api.example.com") {
                Headers(scopeHeaders)
                Path("/dsl", query: query, headers: required) { MockResponse.json("{}", headers: responseHeaders) }
                Path("/dsl-query", query: query) { MockResponse.data(Data([1]), headers: responseHeaders) }
                Path("/dsl-headers", headers: required) { MockResponse.redirect(to: "/search?q=swift&page=1", headers: responseHeaders) }
            }
        }
        let search = try await get("/search?page=1&q=swift")
        #expect(search.text == "query")
        #expect(search.header("X-Trace") == "t1")
        #expect(try await get("/me").status == 404)
        #expect(try await get("/me", headers: required).header("X-Trace") == "t1")
        #expect(try await get("/both?q=swift&page=1", headers: required).header("X-Trace") == "t1")
        let dsl = try await get("/dsl?q=swift&page=1", headers: required)
        #expect(dsl.header("X-Env") == "Test")
        #expect(dsl.header("X-Trace") == "t1")
        #expect(try await get("/dsl-query?q=swift&page=1").header("X-Trace") == "t1")
        #expect(try await get("/dsl-headers", headers: required).status == 404)  // redirected to /search, queue used
    }

    @Test("a literal still builds HTTPHeaders and MatchValue (order kept, .any allowed); QueryValue is MatchValue")
    func literalsStillWork() async throws {
        let value: QueryValue = .any
        let same: MatchValue = value
        #expect(same == .any)
        let response = MockResponse.plaintext("x", headers: ["X-B": "2", "X-A": "1"])
        #expect(Array(response.headers.map(\.name)) == ["X-B", "X-A", "Content-Type"])
        mock.addResponses(forPath: "/any", host: "api.example.com", headers: ["X-Trace": .any], responses: [.empty()])
        #expect(try await get("/any", headers: ["X-Trace": "whatever"]).status == 200)
    }

    @Test("MockResponse exposes its status and headers")
    func readableStatusAndHeaders() {
        let response = MockResponse.encodable(["k": 1], status: .created, headers: ["X-Trace": "t1"])
        #expect(response.status == .created)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["X-Trace"] == "t1")
        #expect(MockResponse.failure(URLError(.timedOut)).status.code == 0)
        #expect(MockResponse.failure(URLError(.timedOut)).headers.isEmpty)
    }

    @Test("requests(where:) filters the journal in arrival order")
    func requestsWhere() async throws {
        mock.addResponses(forPath: "/a", host: "api.example.com", responses: [.plaintext("a", lifetime: .eternal)])
        for path in ["/a", "/missing", "/a?x=1", "/other"] {
            _ = try await get(path)
        }
        let unmatched = mock.requests(where: { !$0.isMatched })
        #expect(unmatched.map(\.request.url.path) == ["/missing", "/other"])
        let withQuery = mock.requests(where: { $0.request.url.query != nil })
        #expect(withQuery.map(\.statusCode) == [200])
        #expect(mock.requests(where: { _ in true }).count == 4)
    }

    @Test("the route string names the method, host, path, query and matchers (as GettingStarted.md shows)")
    func routeString() async throws {
        mock.addResponses(
            forPath: "/login", host: "api.example.com", method: .post, query: ["q": "swift"],
            headers: ["X-Trace": .any], body: .jsonContains(["user": "alice"]), where: { _ in true },
            responses: [.empty()])
        _ = try await mock.urlSession.reply(
            request(
                "https://api.example.com/login?q=swift", method: "POST",
                body: Data(#"{"user":"alice"}"#.utf8), headers: ["X-Trace": "1"]))
        #expect(
            mock.recordedRequests.first?.route
                == #"POST api.example.com/login?q=swift [headers: x-trace: <any>] [body: .jsonContains({"user":"alice"})] [where]"#)
    }

    @Test("UnmockedPolicy is Equatable; .mock policies equal only their copies")
    func policyEquality() {
        #expect(UnmockedPolicy.failTest == .failTest)
        #expect(UnmockedPolicy.fail(.timedOut) == .fail(.timedOut))
        #expect(UnmockedPolicy.fail(.timedOut) != .fail(.cancelled))
        let mockPolicy = UnmockedPolicy.mock(.empty())
        let copy = mockPolicy
        #expect(copy == mockPolicy)
        #expect(UnmockedPolicy.mock(.empty()) != mockPolicy)
    }
}

import Foundation
import HTTPMock
import Testing

@Suite("Near misses, verify() and reporting")
struct DiagnosticsTests {
    let mock = HTTPMock()

    init() {
        mock.logHandler = nil  // these tests miss on purpose
    }

    @Test("the near-miss report names the closest routes and, per field, why each did not match")
    func nearMissReport() async throws {
        let searchLine = #line + 1
        mock.addResponses(
            forPath: "/search", host: "api.example.com", query: ["q": "swift", "page": "1"], responses: [.plaintext("results")])
        let postLine = #line + 1
        mock.addResponses(forPath: "/search", host: "api.example.com", method: .post, responses: [.plaintext("post")])
        mock.addResponses(forPath: "/users/:id", host: "api.example.com", responses: [.plaintext("user")])
        let otherLine = #line + 1
        mock.addResponses(forPath: "/search", host: "other.example.org", responses: [.plaintext("other")])

        let reply = try await mock.urlSession.reply("https://api.example.com/search?q=swift&page=2")

        #expect(reply.status == 404)
        #expect(
            reply.text == """
                No mock for GET https://api.example.com/search?q=swift&page=2
                Closest registrations:
                  1. ANY api.example.com/search?page=1&q=swift (registered at HTTPMockTests/DiagnosticsTests.swift:\(searchLine))
                     query: expected page=1, got page=2
                  2. POST api.example.com/search (registered at HTTPMockTests/DiagnosticsTests.swift:\(postLine))
                     method: expected POST, got GET
                  3. ANY other.example.org/search (registered at HTTPMockTests/DiagnosticsTests.swift:\(otherLine))
                     host: expected other.example.org, got api.example.com
                """)
        #expect(mock.recordedRequests.first?.nearMissReport == reply.text)
    }

    @Test("headers, body, missing and unexpected query keys, and used-up queues each get their line")
    func fieldLines() async throws {
        mock.registerResponses {
            Host("api.example.com") {
                Path(
                    "/login", method: .post, headers: ["Authorization": "Bearer t0k", "X-Trace": .any],
                    body: .jsonContains(["user": "alice"])
                ) { MockResponse.empty() }
                Path("/list", query: ["page": "1"]) { MockResponse.empty() }
                Path("/once") { MockResponse.empty() }
            }
        }
        let login = try await mock.urlSession.reply(
            request(
                "https://api.example.com/login", method: "POST",
                body: Data(#"{"user":"bob"}"#.utf8), headers: ["Authorization": "Bearer nope"]))
        // Credentials are masked in reports (SecretMaskingTests); the scheme stays.
        #expect(login.text.contains("headers: expected authorization: Bearer REDACTED, got authorization: Bearer REDACTED"))
        #expect(login.text.contains("headers: expected x-trace: <any>, got no x-trace"))
        #expect(login.text.contains(#"body: expected .jsonContains({"user":"alice"}), got {"user":"bob"}"#))

        let list = try await mock.urlSession.reply("https://api.example.com/list?sort=asc")
        #expect(list.text.contains("query: expected page=1, got no page"))
        #expect(list.text.contains("query: unexpected sort=asc (matching: .exact)"))

        _ = try await mock.urlSession.reply("https://api.example.com/once")
        let again = try await mock.urlSession.reply("https://api.example.com/once")
        #expect(again.text.contains("1. ANY api.example.com/once"))
        #expect(again.text.contains("responses: all 1 queued response was already served"))
    }

    @Test("with no routes at all the report says so")
    func noRoutes() async throws {
        let reply = try await mock.urlSession.reply("https://example.com/x")
        #expect(reply.text.hasSuffix("No routes are registered on this HTTPMock instance."))
    }

    @Test(".fail puts the report in the URLError's user info")
    func reportInURLError() async throws {
        mock.unmockedPolicy = .fail(.notConnectedToInternet)
        mock.addResponses(forPath: "/a", responses: [.empty()])
        let error = await #expect(throws: URLError.self) { _ = try await mock.urlSession.reply("https://example.com/b") }
        let report = error?.userInfo[UnmockedPolicy.nearMissReportKey] as? String
        #expect(report?.contains("path: expected /a, got /b") == true)
    }

    @Test("verify() records one failure per unmatched request and per route with pending responses, once")
    func verify() async throws {
        let line = #line + 1
        mock.addResponses(forPath: "/unused", responses: [.empty(), .empty(), .plaintext("forever", lifetime: .eternal)])
        mock.addResponses(forPath: "/used", responses: [.empty()])
        _ = try await mock.urlSession.reply("https://example.com/used")
        _ = try await mock.urlSession.reply("https://example.com/missing")

        #expect(mock.pendingResponses.map(\.route) == ["ANY example.com/unused"])
        #expect(mock.pendingResponses.map(\.count) == [2])
        var messages: [String] = []
        withKnownIssue {
            messages = mock.verify()
        } matching: { issue in
            issue.description.contains("No mock for GET https://example.com/missing")
                || (issue.description.contains("ANY example.com/unused: 2 queued responses were never requested")
                    && issue.sourceLocation?.line == line)
        }
        #expect(messages.count == 2)
        #expect(messages[0].hasPrefix("No mock for GET https://example.com/missing\nClosest registrations:"))
        #expect(
            messages[1]
                == "ANY example.com/unused: 2 queued responses were never requested (registered at HTTPMockTests/DiagnosticsTests.swift:\(line))"
        )
        #expect(mock.verify().isEmpty)  // already reported
        mock.addResponses(forPath: "/x", host: "other.example.com", responses: [.empty()])
        mock.clearQueue(forHost: "other.example.com")
        #expect(mock.verify().isEmpty)  // clearing another host does not make reported routes new
    }

    @Test("when no request at all reached the instance, verify() says so once and names the fix (issue 44.7)")
    func noRequestReached() async throws {
        mock.addResponses(forPath: "/first", responses: [.empty()])
        mock.addResponses(forPath: "/second", responses: [.empty()])
        // The code under test used its own session (here: none at all), not mock.urlSession.
        var messages: [String] = []
        withKnownIssue {
            messages = mock.verify()
        } matching: {
            $0.description.contains("queued response was never requested")
        }
        #expect(messages.count == 2)
        #expect(messages.first?.contains("No request reached this HTTPMock instance at all") == true)
        #expect(messages.first?.contains("mock.urlSession") == true && messages.first?.contains("interceptSharedSession()") == true)
        #expect(messages.last?.contains("No request reached") == false, "said once, not per route")

        // One request that reached it, even a miss: the hint would mislead, so it is not given.
        let other = HTTPMock()
        other.unmockedPolicy = .notFound
        other.addResponses(forPath: "/a", responses: [.empty()])
        _ = try await other.urlSession.reply("https://example.com/b")
        var others: [String] = []
        withKnownIssue {
            others = other.verify()
        } matching: { _ in
            true
        }
        #expect(others.count == 2)
        #expect(!others.contains { $0.contains("No request reached") })
    }

    @Test("verify() is empty when every request matched and every response was used")
    func verifyClean() async throws {
        mock.addResponses(forPath: "/a", responses: [.empty(), .plaintext("poll", lifetime: .eternal)])
        _ = try await mock.urlSession.reply("https://example.com/a")
        #expect(mock.verify().isEmpty)
        #expect(mock.pendingResponses.isEmpty)
    }

    @Test(".failTest fails the request with .resourceUnavailable and the running test at once; verify() does not report it again")
    func failTest() async throws {
        mock.unmockedPolicy = .failTest
        await withKnownIssue {
            let error = await #expect(throws: URLError.self) { _ = try await mock.urlSession.reply("https://example.com/nope") }
            #expect(error?.code == .resourceUnavailable)
        } matching: {
            $0.description.contains("No mock for GET https://example.com/nope")
        }
        #expect(mock.verify().isEmpty)
    }

    @Test("unmatched requests sent to the network by .passthrough are not misses")
    func passthroughIsNotAMiss() async throws {
        mock.unmockedPolicy = .passthrough
        _ = try? await mock.urlSession.reply("http://127.0.0.1:9/")
        #expect(mock.verify().isEmpty)
    }

    @Test("logHandler sees every match and miss as it happens")
    func logHandler() async throws {
        let events = Captured<[HTTPMockEvent]>()
        mock.logHandler = { event in events.set((events.value ?? []) + [event]) }
        mock.addResponses(forPath: "/hit", responses: [.empty()])
        _ = try await mock.urlSession.reply("https://example.com/hit")
        _ = try await mock.urlSession.reply("https://example.com/miss")
        let seen = events.value ?? []
        #expect(seen.map(\.isMatched) == [true, false])
        #expect(seen.first?.route == "ANY example.com/hit")
        #expect(seen.last?.nearMissReport?.hasPrefix("No mock for GET https://example.com/miss") == true)
        #expect(seen.last?.description.hasPrefix("HTTPMock: No mock for GET") == true)
    }

    @Test("withHTTPMock gives a fresh instance as HTTPMock.current and verifies it on exit")
    func withHTTPMockVerifies() async throws {
        var inner: HTTPMock?
        withKnownIssue {
            withHTTPMock { mock in
                inner = mock
                #expect(HTTPMock.current === mock)
                mock.addResponses(forPath: "/never", responses: [.empty()])
            }
        } matching: {
            $0.description.contains("ANY example.com/never: 1 queued response was never requested")
        }
        #expect(inner !== HTTPMock.shared)
        #expect(HTTPMock.current === HTTPMock.shared)

        let text = try await withHTTPMock { mock in
            mock.addResponses(forPath: "/ok", responses: [.plaintext("ok")])
            return try await mock.urlSession.reply("https://example.com/ok").text
        }
        #expect(text == "ok")
    }

    @Test("describeRoutes() lists routes in registration order, not in the order matching tries them")
    func describeRoutesInRegistrationOrder() {
        mock.addResponses(forPath: "/users/:id", host: "api.example.com", responses: [.plaintext("any user")])
        mock.addResponses(forPath: "/users/me", host: "api.example.com", responses: [.plaintext("me")])  // more specific, tried first
        mock.addResponses(forPath: "/a", host: "api.example.com", responses: [.plaintext("a")])
        let routes = mock.describeRoutes().split(separator: "\n").map { $0.components(separatedBy: " — ")[0] }
        #expect(routes == ["ANY api.example.com/users/:id", "ANY api.example.com/users/me", "ANY api.example.com/a"])
    }
}

@Suite("The .httpMock trait")
struct TraitTests {
    @Test(.httpMock)
    func givesAFreshInstance() async throws {
        #expect(HTTPMock.current !== HTTPMock.shared)
        HTTPMock.current.addResponses(forPath: "/me", responses: [.plaintext("me")])
        #expect(try await HTTPMock.current.urlSession.reply("https://example.com/me").text == "me")
    }

    @Test("parallel test cases each get their own instance", .httpMock, arguments: 0..<24)
    func isolatesParallelTests(index: Int) async throws {
        let mock = HTTPMock.current
        mock.addResponses(forPath: "/who", responses: [.plaintext("case \(index)", lifetime: .multiple(5))])
        for _ in 0..<5 {
            try await Task.sleep(nanoseconds: UInt64.random(in: 0...2_000_000))
            #expect(try await mock.urlSession.reply("https://example.com/who").text == "case \(index)")
        }
        #expect(mock.recordedRequests.count == 5)
    }
}

@Suite(.httpMock)
struct SuiteTraitTests {
    @Test func first() async throws {
        HTTPMock.current.addResponses(forPath: "/x", responses: [.plaintext("first")])
        #expect(try await HTTPMock.current.urlSession.reply("https://example.com/x").text == "first")
    }

    @Test func second() async throws {
        #expect(HTTPMock.current.pendingResponses.isEmpty)
        HTTPMock.current.addResponses(forPath: "/x", responses: [.plaintext("second")])
        #expect(try await HTTPMock.current.urlSession.reply("https://example.com/x").text == "second")
    }
}

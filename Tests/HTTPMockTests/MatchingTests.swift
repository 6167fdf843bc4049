import Foundation
import HTTPMock
import Testing

@Suite("Matching through URLSession: patterns, parameters, request matchers")
struct MatchingTests {
    let mock = HTTPMock()

    func send(_ url: String, method: String = "GET", body: String? = nil, headers: [String: String] = [:]) async throws -> Reply {
        try await mock.urlSession.reply(request(url, method: method, body: body.map { Data($0.utf8) }, headers: headers))
    }

    @Test("host wildcards: * is one label, ** one or more")
    func hostWildcards() async throws {
        mock.addResponses(forPath: "/h", host: "*.example.com", responses: [.plaintext("one label", lifetime: .eternal)])
        mock.addResponses(forPath: "/h", host: "**.example.org", responses: [.plaintext("many labels", lifetime: .eternal)])
        #expect(try await send("https://a.example.com/h").text == "one label")
        #expect(try await send("https://a.b.example.com/h").status == 404)
        #expect(try await send("https://a.b.example.org/h").text == "many labels")
        #expect(try await send("https://example.org/h").status == 404)
    }

    @Test("path wildcards: * is one segment, ** zero or more")
    func pathWildcards() async throws {
        mock.addResponses(forPath: "/files/*", responses: [.plaintext("one", lifetime: .eternal)])
        mock.addResponses(forPath: "/api/**/data", responses: [.plaintext("deep", lifetime: .eternal)])
        #expect(try await send("https://example.com/files/a.txt").text == "one")
        #expect(try await send("https://example.com/files/a/b").status == 404)
        #expect(try await send("https://example.com/api/data").text == "deep")
        #expect(try await send("https://example.com/api/v1/users/7/data").text == "deep")
    }

    @Test(":name captures one segment into pathParameters (decoded)")
    func pathParameters() async throws {
        mock.addResponses(forPath: "/users/:userID/posts/:postID", responses: [.plaintext("post")])
        _ = try await send("https://example.com/users/ada%20l/posts/42?x=1")
        let entry = try #require(mock.recordedRequests.first)
        #expect(entry.request.pathParameters == ["userID": "ada l", "postID": "42"])
        #expect(entry.route == "ANY example.com/users/:userID/posts/:postID")
    }

    @Test("precedence through a real session: the worked table of HTTPMock.docc/Matching.md")
    func precedenceTable() async throws {
        mock.registerResponses {
            Host("api.example.com") {
                Path("/users/me") { MockResponse.plaintext("exact", lifetime: .eternal) }
                Path("/users/:id") { MockResponse.plaintext(":id", lifetime: .eternal) }
                Path("/users/*/posts") { MockResponse.plaintext("*/posts", lifetime: .eternal) }
                Path("/users/**") { MockResponse.plaintext("**", lifetime: .eternal) }
                Path("/users/:id", method: .delete) { MockResponse.plaintext("DELETE :id", lifetime: .eternal) }
            }
            Host("*.example.com") {
                Path("/users/me") { MockResponse.plaintext("host wildcard", lifetime: .eternal) }
            }
        }
        #expect(try await send("https://api.example.com/users/me").text == "exact")
        #expect(try await send("https://api.example.com/users/42").text == ":id")
        #expect(try await send("https://api.example.com/users/42", method: "DELETE").text == "DELETE :id")
        #expect(try await send("https://api.example.com/users/42/posts").text == "*/posts")
        #expect(try await send("https://api.example.com/users/42/posts/7").text == "**")
        #expect(try await send("https://api.example.com/users").text == "**")
        #expect(try await send("https://www.example.com/users/me").text == "host wildcard")
    }

    @Test("an exhausted specific route falls through to the next pattern")
    func exhaustedFallsThrough() async throws {
        mock.addResponses(forPath: "/items/1", responses: [.plaintext("exact")])
        mock.addResponses(forPath: "/items/:id", responses: [.plaintext("pattern", lifetime: .eternal)])
        #expect(try await send("https://example.com/items/1").text == "exact")
        #expect(try await send("https://example.com/items/1").text == "pattern")
    }

    @Test("headers: exact values, .any, case-insensitive names, extra headers ignored")
    func headerMatcher() async throws {
        mock.registerResponses {
            Path("/login", method: .post, headers: ["Authorization": "Bearer t0k", "X-Trace": .any]) {
                MockResponse.plaintext("welcome", lifetime: .eternal)
            }
        }
        #expect(
            try await send(
                "https://example.com/login", method: "POST",
                headers: ["authorization": "Bearer t0k", "x-trace": "1", "X-Other": "2"]
            ).text == "welcome")
        #expect(try await send("https://example.com/login", method: "POST", headers: ["Authorization": "Bearer t0k"]).status == 404)
        #expect(
            try await send("https://example.com/login", method: "POST", headers: ["Authorization": "Bearer nope", "X-Trace": "1"]).status
                == 404)
    }

    @Test("body .equals and .contains")
    func bodyText() async throws {
        mock.addResponses(forPath: "/t", body: .equals("exact body"), responses: [.plaintext("equals", lifetime: .eternal)])
        mock.addResponses(forPath: "/t", body: .contains("needle"), responses: [.plaintext("contains", lifetime: .eternal)])
        #expect(try await send("https://example.com/t", method: "POST", body: "exact body").text == "equals")
        #expect(try await send("https://example.com/t", method: "POST", body: "hay needle hay").text == "contains")
        #expect(try await send("https://example.com/t", method: "POST", body: "exact body!").status == 404)
    }

    @Test("body .json: semantic equality, key order and whitespace free")
    func bodyJSON() async throws {
        struct Login: Encodable {
            var user = "alice"
            var remember = true
            var attempts = 1
        }
        mock.addResponses(forPath: "/j", body: .json(Login()), responses: [.plaintext("json", lifetime: .eternal)])
        #expect(
            try await send("https://example.com/j", method: "POST", body: #" { "attempts": 1.0, "remember": true, "user": "alice" } "#).text
                == "json")
        #expect(
            try await send("https://example.com/j", method: "POST", body: #"{"attempts":1,"remember":true,"user":"alice","x":1}"#).status
                == 404)
        #expect(try await send("https://example.com/j", method: "POST", body: #"{"attempts":1,"remember":1,"user":"alice"}"#).status == 404)
    }

    @Test("body .jsonContains: every given key path present and equal, extra keys ignored")
    func bodyJSONContains() async throws {
        mock.registerResponses {
            Path("/login", method: .post, body: .jsonContains(["user": "alice"])) { MockResponse.plaintext("session", lifetime: .eternal) }
            Path("/nested", method: .post, body: .jsonContains(["profile": ["city": "Paris"]])) {
                MockResponse.plaintext("nested", lifetime: .eternal)
            }
        }
        #expect(try await send("https://example.com/login", method: "POST", body: #"{"user":"alice","password":"x"}"#).text == "session")
        #expect(try await send("https://example.com/login", method: "POST", body: #"{"user":"bob"}"#).status == 404)
        #expect(try await send("https://example.com/login", method: "POST", body: "not json").status == 404)
        #expect(
            try await send("https://example.com/nested", method: "POST", body: #"{"profile":{"city":"Paris","zip":"75001"},"id":1}"#).text
                == "nested")
    }

    @Test("body .form: urlencoded fields present, + is a space")
    func bodyForm() async throws {
        mock.addResponses(
            forPath: "/token", method: .post, body: .form(["grant_type": "password", "scope": "read write"]),
            responses: [.plaintext("token")])
        #expect(
            try await send("https://example.com/token", method: "POST", body: "scope=read+write&grant_type=password&user=a").text == "token"
        )
    }

    @Test("body .graphQL(operationName:): operationName field, or the operation named in the query")
    func bodyGraphQL() async throws {
        mock.registerResponses {
            Path("/graphql", method: .post, body: .graphQL(operationName: "GetUser")) { MockResponse.plaintext("user", lifetime: .eternal) }
            Path("/graphql", method: .post, body: .graphQL(operationName: "ListPosts")) {
                MockResponse.plaintext("posts", lifetime: .eternal)
            }
        }
        #expect(
            try await send(
                "https://example.com/graphql", method: "POST",
                body: #"{"operationName":"GetUser","query":"query GetUser { user { id } }"}"#
            ).text == "user")
        #expect(
            try await send(
                "https://example.com/graphql", method: "POST",
                body: #"{"query":"query ListPosts($n: Int) { posts(first: $n) { id } }","variables":{"n":2}}"#
            ).text == "posts")
        #expect(try await send("https://example.com/graphql", method: "POST", body: #"{"query":"mutation Other { x }"}"#).status == 404)
        // An anonymous operation has no name: its first field is not one.
        mock.addResponses(forPath: "/graphql", body: .graphQL(operationName: "viewer"), responses: [.empty()])
        #expect(try await send("https://example.com/graphql", method: "POST", body: #"{"query":"query { viewer { id } }"}"#).status == 404)
    }

    @Test("where: a predicate on the MockRequest, run outside HTTPMock's lock")
    func predicate() async throws {
        let mock = self.mock
        mock.addResponses(
            forPath: "/upload", where: { request in (request.body?.count ?? 0) > 1_000 },
            responses: [.plaintext("large", lifetime: .eternal)])
        // The predicate may read the instance without deadlocking.
        mock.addResponses(
            forPath: "/upload", where: { _ in mock.recordedRequests.count >= 0 },
            responses: [.plaintext("small", lifetime: .eternal)])
        #expect(try await send("https://example.com/upload", method: "POST", body: String(repeating: "x", count: 2_000)).text == "large")
        #expect(try await send("https://example.com/upload", method: "POST", body: "tiny").text == "small")
    }

    @Test("a route with more constraints wins among routes with the same pattern")
    func constraintsWin() async throws {
        mock.registerResponses {
            Path("/p/:id") { MockResponse.plaintext("plain", lifetime: .eternal) }
            Path("/p/:id", headers: ["X-Beta": "1"]) { MockResponse.plaintext("beta", lifetime: .eternal) }
            Path("/p/:id", headers: ["X-Beta": "1"], body: .contains("v2")) { MockResponse.plaintext("beta v2", lifetime: .eternal) }
        }
        #expect(try await send("https://example.com/p/1").text == "plain")
        #expect(try await send("https://example.com/p/1", headers: ["X-Beta": "1"]).text == "beta")
        #expect(try await send("https://example.com/p/1", method: "POST", body: "v2", headers: ["X-Beta": "1"]).text == "beta v2")
    }

    @Test("malformed patterns and matchers are reported at the call site; nothing registered")
    func invalidPatterns() async throws {
        struct Unencodable: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "no"))
            }
        }
        let cases: [(String, () -> Void)] = [
            ("\"***\" is not a pattern", { mock.addResponses(forPath: "/a/***", responses: [.empty()]) }),
            ("needs a parameter name", { mock.addResponses(forPath: "/users/:", responses: [.empty()]) }),
            ("\"a**\" is not a pattern", { mock.addResponses(forPath: "/x", host: "a**.example.com", responses: [.empty()]) }),
            (
                "BodyMatcher.json could not encode a value of type Unencodable",
                {
                    mock.addResponses(forPath: "/x", body: .json(Unencodable()), responses: [.empty()])
                }
            ),
            (
                "headers X-A and x-a are the same header",
                { mock.addResponses(forPath: "/x", headers: ["X-A": "1", "x-a": "2"], responses: [.empty()]) }
            ),
        ]
        for (expected, register) in cases {
            withKnownIssue {
                register()
            } matching: { issue in
                issue.description.contains(expected) && issue.sourceLocation?.fileID.hasSuffix("MatchingTests.swift") == true
            }
        }
        #expect(try await send("https://example.com/a/b/c").status == 404)
        #expect(try await send("https://example.com/x").status == 404)
    }
}

import Foundation
import HTTPMock
import Testing

@Suite("Declarative DSL")
struct DSLTests {
    let mock = HTTPMock()

    func get(_ path: String, host: String = "api.example.com", method: String = "GET") async throws -> Reply {
        try await mock.urlSession.reply(request("https://\(host)\(path)", method: method))
    }

    @Test("the spec's example tree: cascade at host and path level, nested paths, query, method")
    func specExample() async throws {
        struct Profile: Codable { var name = "Ada" }
        struct Audit: Codable { var entries = 3 }
        mock.registerResponses {
            Host("api.example.com") {
                Headers(["X-Env": "Test"], cascade: true)
                Path("/profile") { MockResponse.encodable(Profile()) }
                Path("/admin") {
                    Headers(["X-Env": "AdminOnly"], cascade: false)
                    MockResponse.empty(status: .unauthorized)
                    Path("/audit") { MockResponse.encodable(Audit()) }
                }
                Path("/search", query: ["q": "swift", "page": "1"], matching: .exact) { MockResponse.plaintext("results") }
                Path("/users", method: .post) { MockResponse.empty(status: .created) }
            }
        }

        let profile = try await get("/profile")
        #expect(profile.text == #"{"name":"Ada"}"#)
        #expect(profile.header("X-Env") == "Test")

        let admin = try await get("/admin")
        #expect(admin.status == 401)
        #expect(admin.header("X-Env") == "AdminOnly")

        let audit = try await get("/admin/audit")
        #expect(audit.text == #"{"entries":3}"#)
        #expect(audit.header("X-Env") == "Test")

        #expect(try await get("/search?page=2&q=swift").status == 404)
        #expect(try await get("/search?page=1&q=swift").text == "results")
        #expect(try await get("/users").status == 404)
        #expect(try await get("/users", method: "POST").status == 201)
    }

    @Test("cascade: true under a path reaches nested paths; cascade: false does not")
    func pathLevelCascade() async throws {
        mock.registerResponses {
            Host("api.example.com") {
                Path("/v1") {
                    Headers(["X-Version": "1"], cascade: true)
                    Headers(["X-Local": "yes"], cascade: false)
                    MockResponse.plaintext("v1")
                    Path("/items") {
                        MockResponse.plaintext("items")
                        Path("/:deep") { MockResponse.plaintext("deep") }
                    }
                }
            }
        }
        let v1 = try await get("/v1")
        #expect(v1.header("X-Version") == "1")
        #expect(v1.header("X-Local") == "yes")
        let items = try await get("/v1/items")
        #expect(items.header("X-Version") == "1")
        #expect(items.header("X-Local") == nil)
        #expect(try await get("/v1/items/:deep").header("X-Version") == "1")
    }

    @Test("later Headers in the same scope override earlier ones; names are case-insensitive")
    func sameScopeOverride() async throws {
        mock.registerResponses {
            Host("api.example.com") {
                Headers(["X-Env": "first", "X-Keep": "kept"])
                Headers(["x-env": "second"])
                Path("/h") { MockResponse.plaintext("h") }
            }
        }
        let reply = try await get("/h")
        #expect(reply.header("X-Env") == "second")
        #expect(reply.header("X-Keep") == "kept")
    }

    @Test("a response's own headers win over inherited ones, including Content-Type")
    func responseHeadersWin() async throws {
        mock.registerResponses {
            Host("api.example.com") {
                Headers(["X-Env": "inherited", "Content-Type": "application/vnd.test+json"])
                Path("/own") { MockResponse.plaintext("own", headers: ["X-ENV": "own"]) }
                Path("/typed") { MockResponse.json("{}") }
            }
        }
        let own = try await get("/own")
        #expect(own.header("X-Env") == "own")
        // An inherited Content-Type beats the factory's default, but not the response's own headers.
        #expect(own.header("Content-Type") == "application/vnd.test+json")
        #expect(try await get("/typed").header("Content-Type") == "application/vnd.test+json")
    }

    @Test("query requirements belong to their Path and are not inherited")
    func queryNotInherited() async throws {
        mock.registerResponses {
            Host("api.example.com") {
                Path("/a", query: ["k": "v"]) {
                    MockResponse.plaintext("a")
                    Path("/b") { MockResponse.plaintext("b", lifetime: .eternal) }
                }
            }
        }
        #expect(try await get("/a/b").text == "b")
        #expect(try await get("/a/b?anything=1").text == "b")
        #expect(try await get("/a").status == 404)
        #expect(try await get("/a?k=v").text == "a")
    }

    @Test("path joining: slashes trimmed, empty segments dropped")
    func pathJoining() async throws {
        mock.registerResponses {
            Host("api.example.com") {
                Path("/api/") {
                    Path("v2/") {
                        Path("//users") { MockResponse.plaintext("users") }
                    }
                }
            }
        }
        #expect(try await get("/api/v2/users").text == "users")
    }

    @Test("builders accept if, if/else, switch, for and #available")
    func controlFlow() async throws {
        let includeBeta = true
        let includeLegacy = false
        enum Mode { case read, write }
        let mode = Mode.write
        mock.registerResponses {
            for region in ["eu", "us"] {
                Host("\(region).example.com") {
                    if includeBeta {
                        Headers(["X-Beta": "on"])
                    }
                    Path("/region") { MockResponse.plaintext(region) }
                    if includeLegacy {
                        Path("/legacy") { MockResponse.plaintext("legacy") }
                    } else {
                        Path("/modern") {
                            switch mode {
                            case .read: MockResponse.plaintext("read")
                            case .write: MockResponse.plaintext("write")
                            }
                            if #available(macOS 12, iOS 15, *) {
                                MockResponse.plaintext("available")
                            }
                        }
                    }
                }
            }
        }
        #expect(try await get("/region", host: "eu.example.com").text == "eu")
        #expect(try await get("/region", host: "us.example.com").header("X-Beta") == "on")
        #expect(try await get("/legacy", host: "eu.example.com").status == 404)
        #expect(try await get("/modern", host: "eu.example.com").text == "write")
        #expect(try await get("/modern", host: "eu.example.com").text == "available")
    }

    @Test("HTTPMock.Host / .Path / .Headers are the same types; a top-level Path uses defaultDomain")
    func nestedNamesAndDefaultDomain() async throws {
        mock.defaultDomain = "default.example.com"
        mock.registerResponses {
            HTTPMock.Host("api.example.com") {
                HTTPMock.Headers(["X-Nested": "1"])
                HTTPMock.Path("/nested") { MockResponse.plaintext("nested") }
            }
            Path("/top") { MockResponse.plaintext("top") }
        }
        #expect(try await get("/nested").header("X-Nested") == "1")
        #expect(try await get("/top", host: "default.example.com").text == "top")
    }

    @Test("the static registerResponses registers on HTTPMock.shared")
    func staticRegistersOnShared() async throws {
        let host = "dsl-\(UUID().uuidString.lowercased()).example.com"
        HTTPMock.registerResponses {
            Host(host) { Path("/shared") { MockResponse.plaintext("shared") } }
        }
        #expect(try await HTTPMock.shared.urlSession.reply("https://\(host)/shared").text == "shared")
        HTTPMock.shared.clearQueue(forHost: host)
    }

    @Test("the DSL and the imperative API build identical routes")
    func identicalToImperative() async throws {
        let imperative = HTTPMock()
        imperative.addResponses(
            forPath: "/a/b", host: "API.example.com", method: .put, query: ["x": ["1", "2"]], matching: .contains,
            responses: [.plaintext("one", headers: ["X-H": "v"])])
        mock.registerResponses {
            Host("api.example.com") {
                Headers(["X-H": "v"])
                Path("a") {
                    Path("/b/", method: "put", query: ["x": ["1", "2"]], matching: .contains) { MockResponse.plaintext("one") }
                }
            }
        }
        let url = "https://api.example.com/a/b?x=1&x=2&y=3"
        let fromDSL = try await mock.urlSession.reply(request(url, method: "PUT"))
        let fromImperative = try await imperative.urlSession.reply(request(url, method: "PUT"))
        #expect(fromDSL.text == fromImperative.text)
        #expect(fromDSL.header("X-H") == fromImperative.header("X-H"))
        #expect(mock.recordedRequests.first?.route == imperative.recordedRequests.first?.route)
        #expect(mock.recordedRequests.first?.route == "PUT api.example.com/a/b?x=[1, 2] (contains)")
    }

    @Test("a mistake anywhere in the tree is reported at its Path and nothing from the tree is registered")
    func atomicTree() async throws {
        let line = #line + 5
        withKnownIssue {
            mock.registerResponses {
                Host("api.example.com") {
                    Path("/fine") { MockResponse.plaintext("fine") }
                    Path("/broken?x=1") { MockResponse.plaintext("broken") }
                }
            }
        } matching: { issue in
            issue.description.contains("contains a query") && issue.sourceLocation?.line == line
        }
        #expect(try await get("/fine").status == 404)
    }
}

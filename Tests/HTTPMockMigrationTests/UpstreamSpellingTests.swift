import Foundation
import HTTPMock
import Testing

// Code written against bstien/HTTPMock (its public API of October 2025) compiles against
// HTTPMock and behaves the same. Each scenario below is written the way an upstream user wrote
// it, inside a member marked deprecated: there the compiler does not warn about deprecated API,
// so this target builds under `-warnings-as-errors` like every other. The tests reach the
// scenarios through `UpstreamScenario`, which does not warn either. That each spelling *does*
// warn, with its fix-it, is checked by `.ci/compile-failures` on Tests/Deprecations.

protocol UpstreamScenario {
    init()
    func run(_ mock: HTTPMock) async throws
}

func run<Scenario: UpstreamScenario>(_ scenario: Scenario.Type, on mock: HTTPMock = HTTPMock()) async throws {
    try await Scenario().run(mock)
}

func get(_ mock: HTTPMock, _ string: String, headers: [String: String] = [:]) async throws -> (Data, HTTPURLResponse) {
    var request = URLRequest(url: try #require(URL(string: string)))
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let (data, response) = try await mock.urlSession.data(for: request)
    return (data, try #require(response as? HTTPURLResponse))
}

struct User: Codable, Equatable {
    var id: Int
    var name: String
}

@Suite("bstien/HTTPMock spellings compile and behave as upstream")
struct UpstreamSpellingTests {
    struct QueryItems: UpstreamScenario {
        @available(*, deprecated, message: "upstream spellings on purpose")
        func run(_ mock: HTTPMock) async throws {
            let items = ["q": "swift", "page": "1"]
            mock.addResponses(forPath: "/search", host: "api.example.com", queryItems: items, responses: [.plaintext("exact")])
            mock.addResponses(
                forPath: "/search", host: "api.example.com", queryItems: ["q": "swift"], queryMatching: .contains,
                responses: [.plaintext("contains")])
            mock.addResponses(forPath: "/default-host", queryItems: ["a": "1"], responses: [.plaintext("default host")])
            mock.registerResponses {
                Host("api.example.com") {
                    Path("/dsl", queryItems: ["x": "1"], queryMatching: .exact) { MockResponse.plaintext("dsl") }
                }
            }
            #expect(try await get(mock, "https://api.example.com/search?page=1&q=swift").0 == Data("exact".utf8))
            #expect(try await get(mock, "https://api.example.com/search?q=swift&other=2").0 == Data("contains".utf8))
            #expect(try await get(mock, "https://example.com/default-host?a=1").0 == Data("default host".utf8))
            #expect(try await get(mock, "https://api.example.com/dsl?x=1").0 == Data("dsl".utf8))
            #expect(try await get(mock, "https://api.example.com/dsl?x=1&y=2").1.statusCode == 404)
        }
    }

    @Test("addResponses(forPath:host:queryItems:queryMatching:responses:) and Path(_:queryItems:queryMatching:)")
    func queryItems() async throws { try await run(QueryItems.self) }

    struct ShouldCascade: UpstreamScenario {
        @available(*, deprecated, message: "upstream spellings on purpose")
        func run(_ mock: HTTPMock) async throws {
            mock.registerResponses {
                Host("api.example.com") {
                    Path("/admin") {
                        Headers(["X-Env": "AdminOnly"], shouldCascade: false)
                        Headers(["X-Team": "core"], shouldCascade: true)
                        MockResponse.empty(status: .unauthorized)
                        Path("/audit") { MockResponse.plaintext("audit") }
                    }
                }
            }
            let admin = try await get(mock, "https://api.example.com/admin").1
            #expect(admin.statusCode == 401)
            #expect(admin.value(forHTTPHeaderField: "X-Env") == "AdminOnly")
            let audit = try await get(mock, "https://api.example.com/admin/audit").1
            #expect(audit.value(forHTTPHeaderField: "X-Env") == nil)
            #expect(audit.value(forHTTPHeaderField: "X-Team") == "core")
        }
    }

    @Test("Headers(_:shouldCascade:)")
    func shouldCascade() async throws { try await run(ShouldCascade.self) }

    struct RegisterForHost: UpstreamScenario {
        @available(*, deprecated, message: "upstream spellings on purpose")
        func run(_ mock: HTTPMock) async throws {
            mock.registerResponses(host: "api.example.com") {
                Path("/user") {
                    MockResponse.encodable(User(id: 1, name: "Alice"))
                    MockResponse.empty(status: .notFound)
                }
                Path("/a") { Path("/b") { MockResponse.plaintext("nested") } }
            }
            let (data, first) = try await get(mock, "https://api.example.com/user")
            #expect(first.statusCode == 200)
            #expect(try JSONDecoder().decode(User.self, from: data) == User(id: 1, name: "Alice"))
            #expect(try await get(mock, "https://api.example.com/user").1.statusCode == 404)
            #expect(try await get(mock, "https://api.example.com/a/b").0 == Data("nested".utf8))
            #expect(try await get(mock, "https://other.example.com/a/b").1.statusCode == 404)
        }
    }

    @Test("registerResponses(host:) { Path … }")
    func registerForHost() async throws { try await run(RegisterForHost.self) }

    struct NestedTypes: UpstreamScenario {
        @available(*, deprecated, message: "upstream spellings on purpose")
        func run(_ mock: HTTPMock) async throws {
            let teapot: MockResponse.Status = .other(418)
            let ok: MockResponse.Status = .ok
            let lifetime: MockResponse.Lifetime = .multiple(2)
            let delivery: MockResponse.Delivery = .delayed(0.01)
            mock.addResponses(
                forPath: "/tea",
                responses: [
                    .plaintext("teapot", status: teapot, lifetime: lifetime, delivery: delivery),
                    .empty(status: ok),
                ])
            #expect(try await get(mock, "https://example.com/tea").1.statusCode == 418)
            #expect(try await get(mock, "https://example.com/tea").1.statusCode == 418)
            #expect(try await get(mock, "https://example.com/tea").1.statusCode == 200)
            #expect(MockResponse.Status.other(503) == .serviceUnavailable)
        }
    }

    @Test("MockResponse.Status with .other(Int), MockResponse.Lifetime, MockResponse.Delivery")
    func nestedTypes() async throws { try await run(NestedTypes.self) }

    struct JSONEncoderSpellings: UpstreamScenario {
        @available(*, deprecated, message: "upstream spellings on purpose")
        func run(_ mock: HTTPMock) async throws {
            struct Event: Encodable { var at = Date(timeIntervalSince1970: 0) }
            let snake = JSONEncoder()
            snake.keyEncodingStrategy = .convertToSnakeCase
            struct Item: Encodable { var itemID = 7 }
            mock.addResponses(
                forPath: "/e",
                responses: [
                    .encodable(Event(), jsonEncoder: .mockDefault),
                    .encodable(Item(), status: .ok, headers: ["X-A": "1"], jsonEncoder: snake),
                ])
            #expect(try await get(mock, "https://example.com/e").0 == Data(#"{"at":"1970-01-01T00:00:00Z"}"#.utf8))
            let (data, response) = try await get(mock, "https://example.com/e")
            #expect(data == Data(#"{"item_id":7}"#.utf8))
            #expect(response.value(forHTTPHeaderField: "X-A") == "1")
        }
    }

    @Test(".encodable(_:jsonEncoder:) and JSONEncoder.mockDefault (ISO 8601 dates)")
    func jsonEncoderSpellings() async throws { try await run(JSONEncoderSpellings.self) }

    struct FileSpellings: UpstreamScenario {
        @available(*, deprecated, message: "upstream spellings on purpose")
        func run(_ mock: HTTPMock) async throws {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-upstream-\(UUID().uuidString).bin")
            try Data("payload".utf8).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            mock.addResponses(
                forPath: "/f",
                responses: [
                    .file(url: url, contentType: "application/x-custom"),
                    .file(url: url, headers: ["Content-Type": "text/override"], contentType: "application/x-custom"),
                ])
            let (data, typed) = try await get(mock, "https://example.com/f")
            #expect(data == Data("payload".utf8))
            #expect(typed.value(forHTTPHeaderField: "Content-Type") == "application/x-custom")
            #expect(try await get(mock, "https://example.com/f").1.value(forHTTPHeaderField: "Content-Type") == "text/override")

            // Bundle.main is the test runner under SwiftPM: the resource is missing, and that is
            // a test failure at the call site, not a crash (upstream stopped the process).
            withKnownIssue {
                mock.addResponses(forPath: "/main", responses: [.file(named: "user", extension: "json")])
            } matching: { issue in
                issue.description.contains("no resource user.json in bundle")
            }
            #expect(try await get(mock, "https://example.com/main").1.statusCode == 404)
        }
    }

    @Test(".file(url:contentType:) and .file(named:extension:) in Bundle.main")
    func fileSpellings() async throws { try await run(FileSpellings.self) }

    struct Policies: UpstreamScenario {
        struct Offline: Error, Equatable { var reason: String }

        @available(*, deprecated, message: "upstream spellings on purpose")
        func run(_ mock: HTTPMock) async throws {
            #expect(UnmockedPolicy.fatalError == .failTest)
            #expect(UnmockedPolicy.fatalError.description == UnmockedPolicy.failTest.description)

            mock.unmockedPolicy = .throwError(Offline(reason: "no mock"))
            do {
                _ = try await get(mock, "https://example.com/none")
                Issue.record("the request should have failed")
            } catch let error as Offline {
                #expect(error == Offline(reason: "no mock"))
            }
        }
    }

    @Test("UnmockedPolicy.throwError(_:) delivers the error unchanged; .fatalError is .failTest")
    func policies() async throws { try await run(Policies.self) }

    struct InstanceAPI: UpstreamScenario {
        @available(*, deprecated, message: "upstream spellings on purpose")
        func run(_ mock: HTTPMock) async throws {
            let session = URLSession(configuration: .ephemeral)
            let custom = HTTPMock(passthroughSession: session)
            #expect(custom.passthroughSession === session)
            #expect(mock.passthroughSession !== mock.urlSession)

            mock.addResponses(forPath: "/user", host: "api.example.com", responses: [.plaintext("hi")])
            let (data, response) = try await mock.data(for: URLRequest(url: try #require(URL(string: "https://api.example.com/user"))))
            #expect(data == Data("hi".utf8))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)

            let headers = ["X-Env": "Test"]
            let response2 = MockResponse.plaintext("x", status: .ok, headers: headers)
            #expect(response2.status == .ok)
            #expect(response2.headers["X-Env"] == "Test")
            #expect(response2.headers["Content-Type"] == "text/plain; charset=utf-8")
        }
    }

    @Test("HTTPMock.passthroughSession, data(for:), MockResponse.status and .headers, headers: variables")
    func instanceAPI() async throws { try await run(InstanceAPI.self) }

    struct ArgumentOrder: UpstreamScenario {
        @available(*, deprecated, message: "upstream spellings on purpose")
        func run(_ mock: HTTPMock) async throws {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-order-\(UUID().uuidString).txt")
            try Data("file".utf8).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            let headers = ["X-Order": "upstream"]
            mock.addResponses(
                forPath: "/o",
                responses: [
                    .encodable(User(id: 1, name: "A"), status: .ok, lifetime: .single, delivery: .instant, headers: headers),
                    .dictionary(["k": 1], lifetime: .single, headers: headers),
                    .plaintext("p", status: .ok, delivery: .delayed(0.01), headers: headers),
                    .empty(status: .accepted, lifetime: .single, delivery: .instant, headers: ["X-Order": "upstream"]),
                    .file(url: url, status: .ok, lifetime: .single, headers: headers, contentType: "text/x-upstream"),
                ])
            for expected in [200, 200, 200, 202, 200] {
                let response = try await get(mock, "https://example.com/o").1
                #expect(response.statusCode == expected)
                #expect(response.value(forHTTPHeaderField: "X-Order") == "upstream")
            }
            #expect(MockResponse.file(url: url, delivery: .instant, headers: headers, contentType: "a/b").headers["Content-Type"] == "a/b")
        }
    }

    @Test("bstien/HTTPMock's argument order: headers: after lifetime: and delivery:")
    func argumentOrder() async throws { try await run(ArgumentOrder.self) }

    struct UpstreamReadme: UpstreamScenario {
        // bstien/HTTPMock's README quick start and examples, as written there.
        @available(*, deprecated, message: "upstream spellings on purpose")
        func run(_ mock: HTTPMock) async throws {
            mock.addResponses(
                forPath: "/user",
                host: "api.example.com",
                responses: [
                    .encodable(User(id: 1, name: "Alice")),
                    .empty(status: .notFound),
                ]
            )
            mock.registerResponses {
                Host("api.example.com") {
                    Headers(["X-Env": "Test"], cascade: true)
                    Path("/profile") { MockResponse.plaintext("profile") }
                    Path("/search", query: ["q": "swift", "page": "1"], matching: .exact) { MockResponse.plaintext("ok-exact") }
                }
            }
            mock.unmockedPolicy = .notFound
            let session = mock.urlSession
            let (_, response) = try await session.data(from: try #require(URL(string: "https://api.example.com/user")))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(try await get(mock, "https://api.example.com/user").1.statusCode == 404)
            #expect(try await get(mock, "https://api.example.com/profile").1.value(forHTTPHeaderField: "X-Env") == "Test")
            #expect(try await get(mock, "https://api.example.com/search?q=swift&page=1").0 == Data("ok-exact".utf8))
            #expect(MockResponse.plaintext("served three times", lifetime: .multiple(3)).lifetime == .multiple(3))
            mock.clearQueues()
            mock.clearQueue(forHost: "domain.com")
        }
    }

    @Test("bstien/HTTPMock's README examples")
    func upstreamReadme() async throws { try await run(UpstreamReadme.self) }
}

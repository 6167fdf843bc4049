import Foundation
import HTTPMock
import Testing

@Suite("Instances and sessions")
struct InstanceTests {
    @Test("the seed example: register for api.example.com/user and fetch through HTTPMock.shared")
    func sharedInstanceServesRegisteredResponse() async throws {
        struct User: Codable, Equatable {
            var id: Int
            var name: String
        }
        let host = "shared-\(UUID().uuidString.lowercased()).example.com"
        HTTPMock.shared.addResponses(forPath: "/user", host: host, responses: [.encodable(User(id: 1, name: "Ada"))])

        let reply = try await HTTPMock.shared.urlSession.reply("https://\(host)/user")

        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "application/json")
        #expect(try JSONDecoder().decode(User.self, from: reply.data) == User(id: 1, name: "Ada"))
        HTTPMock.shared.clearQueue(forHost: host)
    }

    @Test("two instances never see each other's mocks")
    func instancesAreIsolated() async throws {
        let first = HTTPMock()
        let second = HTTPMock()
        first.addResponses(forPath: "/who", responses: [.plaintext("first", lifetime: .eternal)])

        let fromFirst = try await first.urlSession.reply("https://example.com/who")
        let fromSecond = try await second.urlSession.reply("https://example.com/who")

        #expect(fromFirst.text == "first")
        #expect(fromSecond.status == 404)
        #expect(first.recordedRequests.count == 1)
        #expect(second.recordedRequests.count == 1)
        #expect(second.recordedRequests[0].isMatched == false)
    }

    @Test("urlSession asked for by 16 tasks at once, on 20 fresh instances: one session each, and it serves")
    func urlSessionMadeOnceUnderContention() async throws {
        for round in 0..<20 {
            let mock = HTTPMock()
            mock.addResponses(forPath: "/once", responses: [.plaintext("once \(round)", lifetime: .eternal)])
            let sessions = await withTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<16 { group.addTask { ObjectIdentifier(mock.urlSession) } }
                return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
            }
            #expect(sessions.count == 1, "round \(round): \(sessions.count) sessions handed out")
            #expect(sessions.first == ObjectIdentifier(mock.urlSession))
            let reply = try await mock.urlSession.reply("https://example.com/once")
            #expect(reply.text == "once \(round)")
        }
    }

    @Test("each instance has its own protocol class")
    func protocolClassesAreDistinct() {
        let instances = (0..<50).map { _ in HTTPMock() }
        let identifiers = Set(instances.map { ObjectIdentifier($0.protocolClass) })
        #expect(identifiers.count == 50)
    }

    @Test("8 instances x 64 concurrent requests: zero cross-talk")
    func concurrentInstancesHaveNoCrossTalk() async throws {
        let instances = (0..<8).map { _ in HTTPMock() }
        for (index, mock) in instances.enumerated() {
            mock.addResponses(forPath: "/id", host: "api.example.com", responses: [.plaintext("instance-\(index)", lifetime: .eternal)])
        }
        let mismatches = try await withThrowingTaskGroup(of: Bool.self) { group in
            for (index, mock) in instances.enumerated() {
                for request in 0..<64 {
                    group.addTask {
                        let reply =
                            request.isMultiple(of: 2)
                            ? try await mock.urlSession.reply("https://api.example.com/id")
                            : try await mock.urlSession.replyViaCompletionHandler(HTTPMockTests.request("https://api.example.com/id"))
                        return reply.text != "instance-\(index)"
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(mismatches == 0)
        for mock in instances {
            #expect(mock.recordedRequests.count == 64)
            #expect(mock.recordedRequests.allSatisfy { $0.isMatched })
        }
    }

    @Test("makeSessionConfiguration builds a session of your own that is served by the instance")
    func customSessionFromConfiguration() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/custom", responses: [.plaintext("custom")])
        let base = URLSessionConfiguration.default
        base.httpAdditionalHeaders = ["X-Base": "kept"]
        let configuration = mock.makeSessionConfiguration(from: base)

        #expect(configuration.protocolClasses?.first.map(ObjectIdentifier.init) == ObjectIdentifier(mock.protocolClass))
        #expect(configuration.urlCache == nil)
        #expect(base.protocolClasses?.first.map(ObjectIdentifier.init) != ObjectIdentifier(mock.protocolClass))

        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let reply = try await session.reply("https://example.com/custom")
        #expect(reply.text == "custom")
    }

    @Test("a session that outlives its instance fails its requests instead of crashing")
    func requestAfterInstanceDeinit() async throws {
        var mock: HTTPMock? = HTTPMock()
        let configuration = try #require(mock?.makeSessionConfiguration())
        mock = nil
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }

        let error = await #expect(throws: HTTPMockError.self) {
            _ = try await session.reply("https://example.com/gone")
        }
        #expect(error?.code == .instanceDeallocated)
        #expect(error?.message.contains("no longer exists") == true)
    }

    @Test("urlSession kept after its instance is gone fails its requests instead of crashing")
    func urlSessionOutlivesInstance() async throws {
        var mock: HTTPMock? = HTTPMock()
        let session = try #require(mock?.urlSession)
        mock = nil
        let error = await #expect(throws: HTTPMockError.self) {
            _ = try await session.reply("https://example.com/gone")
        }
        #expect(error?.code == .instanceDeallocated)
    }

    @Test("defaultDomain is where registrations without a host go")
    func defaultDomain() async throws {
        let mock = HTTPMock()
        #expect(mock.defaultDomain == "example.com")
        mock.defaultDomain = "api.internal"
        mock.addResponses(forPath: "/ping", responses: [.plaintext("pong")])

        #expect(try await mock.urlSession.reply("https://api.internal/ping").text == "pong")
        #expect(mock.recordedRequests.last?.route == "ANY api.internal/ping")
    }

    @Test("hosts compare case-insensitively, scheme and port are ignored unless the host names a port")
    func hostAndPortRules() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/a", host: "API.Example.com", responses: [.plaintext("any port", lifetime: .eternal)])
        mock.addResponses(forPath: "/a", host: "api.example.com:8443", responses: [.plaintext("8443", lifetime: .eternal)])

        #expect(try await mock.urlSession.reply("http://api.example.com/a").text == "any port")
        #expect(try await mock.urlSession.reply("https://api.EXAMPLE.com:9000/a").text == "any port")
        #expect(try await mock.urlSession.reply("https://api.example.com:8443/a").text == "8443")
    }

    @Test("a host naming the scheme's default port matches requests that leave it implicit")
    func defaultPorts() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/p", host: "api.example.com:443", responses: [.plaintext("443", lifetime: .eternal)])
        mock.addResponses(forPath: "/p", host: "api.example.com:80", responses: [.plaintext("80", lifetime: .eternal)])
        #expect(try await mock.urlSession.reply("https://api.example.com/p").text == "443")
        #expect(try await mock.urlSession.reply("http://api.example.com/p").text == "80")
        #expect(try await mock.urlSession.reply("https://api.example.com:8443/p").status == 404)
    }

    @Test("paths: /a/, a and /a are one path; percent-encoding is decoded; case matters")
    func pathNormalisation() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "users/me/", responses: [.plaintext("me", lifetime: .eternal)])
        mock.addResponses(forPath: "/files/a b", responses: [.plaintext("space", lifetime: .eternal)])

        #expect(try await mock.urlSession.reply("https://example.com/users/me").text == "me")
        #expect(try await mock.urlSession.reply("https://example.com//users/me/").text == "me")
        #expect(try await mock.urlSession.reply("https://example.com/files/a%20b").text == "space")
        #expect(try await mock.urlSession.reply("https://example.com/Users/me").status == 404)
    }
}

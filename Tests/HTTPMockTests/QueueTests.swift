import Foundation
import HTTPMock
import Testing

@Suite("Queues and lifetimes")
struct QueueTests {
    @Test("responses for one route are served first in, first out")
    func fifo() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/seq") {
            MockResponse.plaintext("one")
            MockResponse.plaintext("two")
            MockResponse.empty(status: .notFound)
        }
        let session = mock.urlSession
        #expect(try await session.reply("https://example.com/seq").text == "one")
        #expect(try await session.reply("https://example.com/seq").text == "two")
        #expect(try await session.reply("https://example.com/seq").status == 404)
        let unmatched = try await session.reply("https://example.com/seq")
        #expect(unmatched.text.hasPrefix("No mock for GET https://example.com/seq\n"))
        #expect(unmatched.text.contains("responses: all 3 queued responses were already served"))
        #expect(mock.recordedRequests.map(\.isMatched) == [true, true, true, false])
    }

    @Test("registering the same route again appends to its queue")
    func sameKeyAppends() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/q", responses: [.plaintext("first")])
        mock.addResponses(forPath: "q/", responses: [.plaintext("second")])
        #expect(try await mock.urlSession.reply("https://example.com/q").text == "first")
        #expect(try await mock.urlSession.reply("https://example.com/q").text == "second")
    }

    @Test("lifetimes: .multiple(n) serves n times, .eternal forever (polling)")
    func lifetimes() async throws {
        let mock = HTTPMock()
        mock.addResponses(
            forPath: "/job",
            responses: [
                .json(#"{"state":"queued"}"#),
                .json(#"{"state":"running"}"#, lifetime: .multiple(2)),
                .json(#"{"state":"done"}"#, lifetime: .eternal),
            ])
        var states: [String] = []
        for _ in 0..<6 {
            states.append(try await mock.urlSession.reply("https://example.com/job").text)
        }
        #expect(
            states == [
                #"{"state":"queued"}"#, #"{"state":"running"}"#, #"{"state":"running"}"#,
                #"{"state":"done"}"#, #"{"state":"done"}"#, #"{"state":"done"}"#,
            ])
    }

    @Test("an exhausted queue never shadows another route that still has responses")
    func exhaustedQueueDoesNotShadow() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/item", method: .get, responses: [.plaintext("specific")])
        mock.addResponses(forPath: "/item", responses: [.plaintext("fallback", lifetime: .eternal)])

        #expect(try await mock.urlSession.reply("https://example.com/item").text == "specific")
        #expect(try await mock.urlSession.reply("https://example.com/item").text == "fallback")
        #expect(try await mock.urlSession.reply("https://example.com/item").text == "fallback")
    }

    @Test("the route with more constraints wins; ties go to the earliest registration")
    func constraintsThenOrder() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/r", responses: [.plaintext("any", lifetime: .eternal)])
        mock.addResponses(forPath: "/r", method: .post, responses: [.plaintext("post", lifetime: .eternal)])
        mock.addResponses(forPath: "/r", method: .post, query: ["v": "1"], responses: [.plaintext("post v1", lifetime: .eternal)])

        #expect(try await mock.urlSession.reply("https://example.com/r").text == "any")
        #expect(try await mock.urlSession.reply(request("https://example.com/r", method: "POST")).text == "post")
        #expect(try await mock.urlSession.reply(request("https://example.com/r?v=1", method: "post")).text == "post v1")
    }

    @Test("300 distinct .single responses to 300 concurrent requests: each served exactly once")
    func concurrentPopIsAtomic() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/ticket", responses: (0..<300).map { .plaintext("ticket-\($0)") })
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<300 {
                group.addTask {
                    index.isMultiple(of: 3)
                        ? try await mock.urlSession.replyViaCompletionHandler(request("https://example.com/ticket")).text
                        : try await mock.urlSession.reply("https://example.com/ticket").text
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(bodies.count == 300)
        #expect(Set(bodies) == Set((0..<300).map { "ticket-\($0)" }))
        #expect(try await mock.urlSession.reply("https://example.com/ticket").status == 404)
    }

    @Test("clearQueues removes routes and journal, keeps policies")
    func clearQueues() async throws {
        let mock = HTTPMock()
        mock.defaultDomain = "kept.example.com"
        mock.addResponses(forPath: "/a", responses: [.plaintext("a", lifetime: .eternal)])
        _ = try await mock.urlSession.reply("https://kept.example.com/a")

        mock.clearQueues()

        #expect(mock.recordedRequests.isEmpty)
        #expect(mock.defaultDomain == "kept.example.com")
        #expect(try await mock.urlSession.reply("https://kept.example.com/a").status == 404)
    }

    @Test("clearQueue(forHost:) removes only that host's routes and journal entries")
    func clearQueueForHost() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/a", host: "one.example.com", responses: [.plaintext("one", lifetime: .eternal)])
        mock.addResponses(forPath: "/a", host: "one.example.com:8080", responses: [.plaintext("one:8080", lifetime: .eternal)])
        mock.addResponses(forPath: "/a", host: "two.example.com", responses: [.plaintext("two", lifetime: .eternal)])
        _ = try await mock.urlSession.reply("https://one.example.com/a")
        _ = try await mock.urlSession.reply("https://two.example.com/a")

        mock.clearQueue(forHost: "ONE.example.com")

        #expect(mock.recordedRequests.map(\.request.url.host) == ["two.example.com"])
        #expect(try await mock.urlSession.reply("https://one.example.com/a").status == 404)
        #expect(try await mock.urlSession.reply("https://one.example.com:8080/a").status == 404)
        #expect(try await mock.urlSession.reply("https://two.example.com/a").text == "two")
    }

    @Test("clearQueue(forHost: \"host:port\") removes only that port's routes")
    func clearQueueForHostAndPort() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/a", host: "localhost:8080", responses: [.plaintext("8080", lifetime: .eternal)])
        mock.addResponses(forPath: "/a", host: "localhost:9090", responses: [.plaintext("9090", lifetime: .eternal)])
        mock.clearQueue(forHost: "localhost:8080")
        #expect(try await mock.urlSession.reply("http://localhost:8080/a").status == 404)
        #expect(try await mock.urlSession.reply("http://localhost:9090/a").text == "9090")
    }
}

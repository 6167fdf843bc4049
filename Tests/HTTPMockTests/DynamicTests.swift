import Foundation
import HTTPMock
import Testing

@Suite("Dynamic responses")
struct DynamicTests {
    let mock = HTTPMock()

    @Test("the handler sees the full MockRequest")
    func fullRequest() async throws {
        struct Order: Codable, Equatable {
            var item: String
            var count: Int
        }
        let seen = Captured<MockRequest>()
        mock.addResponses(
            forPath: "/shops/:shop/orders", method: .post,
            responses: [
                .dynamic { request in
                    seen.set(request)
                    let order = try request.decode(Order.self)
                    return .encodable(["shop": request.pathParameters["shop"] ?? "?", "item": order.item], status: .created)
                }
            ])
        let reply = try await mock.urlSession.reply(
            request(
                "https://example.com/shops/north/orders?tag=a&tag=b&debug",
                method: "POST", body: Data(#"{"item":"tea","count":2}"#.utf8), headers: ["Content-Type": "application/json"]))

        #expect(reply.status == 201)
        #expect(reply.text == #"{"item":"tea","shop":"north"}"# || reply.text == #"{"shop":"north","item":"tea"}"#)
        let request = try #require(seen.value)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "https://example.com/shops/north/orders?tag=a&tag=b&debug")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.queryItems.map(\.name) == ["tag", "tag", "debug"])
        #expect(request.queryItems.map(\.value) == ["a", "b", nil])
        #expect(request.pathParameters == ["shop": "north"])
        #expect(try request.decode(Order.self) == Order(item: "tea", count: 2))
        #expect(mock.recordedRequests.first?.statusCode == 201)
    }

    @Test("form parameters")
    func formParameters() async throws {
        mock.addResponses(
            forPath: "/form",
            responses: [
                .dynamic { request in .plaintext(request.formParameters["name"] ?? "none") }
            ])
        let reply = try await mock.urlSession.reply(
            request("https://example.com/form", method: "POST", body: Data("name=Ada+Lovelace&x=1".utf8)))
        #expect(reply.text == "Ada Lovelace")
    }

    @Test("a thrown error fails the request with that error")
    func thrownError() async throws {
        struct Refused: Error, Equatable {}
        mock.addResponses(forPath: "/boom", responses: [.dynamic { _ in throw Refused() }])
        await #expect(throws: Refused.self) {
            _ = try await mock.urlSession.reply("https://example.com/boom")
        }
        #expect(mock.recordedRequests.first?.error is Refused)
    }

    @Test("a handler may suspend; an eternal dynamic response answers every request")
    func suspendingHandler() async throws {
        let counter = Captured<Int>()
        mock.addResponses(
            forPath: "/count",
            responses: [
                .dynamic(lifetime: .eternal) { _ in
                    try await Task.sleep(nanoseconds: 10_000_000)
                    return .plaintext("\(counter.increment())")
                }
            ])
        var bodies: [String] = []
        for _ in 0..<3 { bodies.append(try await mock.urlSession.reply("https://example.com/count").text) }
        #expect(bodies == ["1", "2", "3"])
    }

    @Test("a handler that does not answer before the timeout is abandoned with URLError(.timedOut)")
    func handlerTimeout() async throws {
        mock.timeout = 0.3
        let finished = Captured<Bool>()
        mock.addResponses(
            forPath: "/hang",
            responses: [
                .dynamic { _ in
                    try? await Task.sleep(nanoseconds: 3_600_000_000_000)
                    finished.set(true)
                    return .plaintext("too late")
                }
            ])
        let started = Date()
        let error = await #expect(throws: URLError.self) {
            _ = try await mock.urlSession.reply("https://example.com/hang")
        }
        #expect(error?.code == .timedOut)
        #expect(Date().timeIntervalSince(started) >= 0.3)
        // The abandoned handler was cancelled rather than left running for its hour (an event,
        // not a time: the wait ends as soon as it happens).
        let deadline = Date().addingTimeInterval(TestEnvironment.arrivalTimeout)
        while finished.value != true, Date() < deadline {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(finished.value == true)
        #expect((mock.recordedRequests.first?.error as? URLError)?.code == .timedOut)
    }

    @Test("a handler's response can be delayed, redirect, or be a file")
    func handlerReturnsAnyResponse() async throws {
        mock.addResponses(forPath: "/start", responses: [.dynamic { _ in .redirect(to: "/end") }])
        mock.addResponses(forPath: "/end", responses: [.dynamic(delivery: .delayed(0.1)) { _ in .file(url: Fixtures.url("user.json")) }])
        let started = Date()
        let reply = try await mock.urlSession.reply("https://example.com/start")
        #expect(reply.text == #"{"id":1,"name":"Ada"}"#)
        #expect(reply.response.url?.path == "/end")
        #expect(Date().timeIntervalSince(started) >= 0.1)
    }
}

/// A value set from a `@Sendable` closure and read by the test.
final class Captured<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `stored` is guarded by `lock`.
    private let lock = NSLock()
    private var stored: Value?

    func set(_ value: Value) { lock.withLock { stored = value } }
    var value: Value? { lock.withLock { stored } }
}

extension Captured where Value == Int {
    func increment() -> Int {
        lock.withLock {
            let next = (stored ?? 0) + 1
            stored = next
            return next
        }
    }
}

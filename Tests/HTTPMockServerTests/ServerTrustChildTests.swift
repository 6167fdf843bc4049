#if Server
import Foundation
import HTTPMock
import HTTPMockServer
import Testing

// SPEC §11.8: the server cases that, when they regress, kill the process (a trap in a
// conversion, an overflow, a NIO assertion). Each runs in a child process under a time limit.

@Suite("Server trust: in a child process", .serialized)  // one child at a time: they share 2 cores with the suite
struct ServerTrustChildTests {
    private func expectChildPasses(_ scenario: String, timeout: TimeInterval = 60) async throws {
        let outcome = try await ServerChildProcess.run(scenario, timeout: timeout)
        #expect(outcome.passed, "scenario \(scenario): \(outcome)")
    }

    @Test(
        "huge but finite times (.delayed(1e11), defaultDelay 1e11, timeout 1e12, interval 1e11, HAR time 1e300, idleTimeout 1e10) wait, never trap",
        .enabled(if: ServerChildProcess.isAvailable))
    func hugeTimes() async throws {
        try await expectChildPasses("hugeTimes")
    }

    @Test(
        "a 1xx status or a CR/LF header value from a .dynamic handler never reaches the wire as a head; the next request is answered",
        .enabled(if: ServerChildProcess.isAvailable))
    func unsendableResponses() async throws {
        try await expectChildPasses("unsendableResponses")
    }

    @Test(
        ".fault(.connectionLost(afterBytes: Int.max)) sends the whole body and closes",
        .enabled(if: ServerChildProcess.isAvailable))
    func connectionLostIntMax() async throws {
        try await expectChildPasses("connectionLostIntMax")
    }

    @Test(
        "20,000 pipelined requests behind a slow one, answered from the event loop: all answered, in order, and the server lives",
        .enabled(if: ServerChildProcess.isAvailable))
    func deepPipeline() async throws {
        try await expectChildPasses("deepPipeline")
    }
}

/// The scenarios, run by ``ServerChildScenarioHost`` in the child.
enum ServerChildScenarios {
    static let all: [String: @Sendable () async throws -> Void] = [
        "hugeTimes": hugeTimes,
        "unsendableResponses": unsendableResponses,
        "connectionLostIntMax": connectionLostIntMax,
        "deepPipeline": deepPipeline,
        "wireMockRegexStarvation": wireMockRegexStarvation,
        "forwardBounded": forwardBounded,
    ]

    /// Sends `request` on a new connection; returns the client (still open) after `wait` seconds.
    private static func send(_ request: String, port: Int, readFor wait: TimeInterval) async throws -> RawClient {
        try await blocking {
            let client = try RawClient(port: port)
            try client.send(request)
            client.read(timeout: wait)
            return client
        }
    }

    static func hugeTimes() async throws {
        let host = "api.example.com"
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.timeout = 1e12
        mock.addResponses(forPath: "/dynamic", host: host, responses: [.dynamic(lifetime: .eternal) { _ in .plaintext("dynamic") }])
        mock.addResponses(forPath: "/delayed", host: host, responses: [.plaintext("late", delivery: .delayed(1e11))])
        mock.addResponses(
            forPath: "/events", host: host,
            responses: [.eventStream([ServerSentEvent(data: "first"), ServerSentEvent(data: "second")], interval: 1e11)])
        let har = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-huge-time-\(UUID().uuidString).har")
        try Data(hugeTimeHAR.utf8).write(to: har)
        defer { try? FileManager.default.removeItem(at: har) }
        try mock.loadHAR(from: har, timing: .recorded)
        let slow = HTTPMock()
        slow.logHandler = nil
        slow.defaultDelay = 1e11
        slow.addResponses(forPath: "/default", host: host, responses: [.plaintext("late")])

        let server = try await mock.startServer(impersonating: host, idleTimeout: 1e10)
        let slowServer = try await slow.startServer(impersonating: host)
        let waiting = [
            try await send("GET /delayed HTTP/1.1\r\nHost: localhost\r\n\r\n", port: server.port, readFor: 0.3),
            try await send("GET /har HTTP/1.1\r\nHost: localhost\r\n\r\n", port: server.port, readFor: 0.3),
            try await send("GET /default HTTP/1.1\r\nHost: localhost\r\n\r\n", port: slowServer.port, readFor: 0.3),
        ]
        for client in waiting {
            #expect(client.text.isEmpty)
            #expect(!client.isClosed)
        }
        let events = try await blocking {
            let client = try RawClient(port: server.port)
            try client.send("GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n")
            client.read(timeout: 30) { $0.contains("data: first") }
            client.read(timeout: 0.3)
            return client
        }
        #expect(events.text.contains("data: first"))
        #expect(!events.text.contains("second"))
        let dynamic = try await rawExchange(port: server.port, "GET /dynamic HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(dynamic.hasPrefix("HTTP/1.1 200"))
        #expect(dynamic.hasSuffix("dynamic"))
        await server.stop()
        await slowServer.stop()
    }

    /// One entry, GET https://api.example.com/har, recorded as taking 1e300 ms.
    private static let hugeTimeHAR = """
        {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [{
          "startedDateTime": "2026-11-22T10:00:00.000Z", "time": 1e300,
          "request": {"method": "GET", "url": "https://api.example.com/har", "httpVersion": "HTTP/1.1",
            "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
          "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
            "content": {"size": 3, "mimeType": "text/plain", "text": "har"}, "redirectURL": "", "headersSize": -1, "bodySize": 3},
          "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0}}]}}
        """

    static func unsendableResponses() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        // Made per request by a handler: registration cannot see them.
        let made: [String: @Sendable () -> MockResponse] = [
            "/switching": { .empty(status: 101) },
            "/continue": { .empty(status: 100) },
            "/split": { .plaintext("x", headers: ["X-Evil": "a\r\nSet-Cookie: injected=1"]) },
            "/name": { .plaintext("x", headers: ["Bad Name": "v"]) },
        ]
        for (path, make) in made {
            mock.addResponses(forPath: path, responses: [.dynamic(lifetime: .eternal) { _ in make() }])
        }
        mock.addResponses(forPath: "/ok", responses: [.plaintext("fine", lifetime: .eternal)])
        let server = try await mock.startServer()
        for path in made.keys.sorted() {
            // Pipelined with a second request: an interim head would make the client take the
            // second answer for the first.
            let text = try await blocking {
                let client = try RawClient(port: server.port)
                try client.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\nGET /ok HTTP/1.1\r\nHost: localhost\r\n\r\n")
                client.read(timeout: 30) { $0.hasSuffix("fine") }
                return client.text
            }
            #expect(!text.hasPrefix("HTTP/1.1 1"), "\(path): \(text)")
            #expect(!text.lowercased().contains("\r\nset-cookie: injected"), "\(path): \(text)")
            #expect(!text.contains("\r\nBad Name:"), "\(path): \(text)")
            // Refused at write time (500 naming the problem), or, once registration-level
            // checks turn such a response invalid, closed without a response.
            if !text.isEmpty {
                #expect(text.hasPrefix("HTTP/1.1 500"), "\(path): \(text)")
                #expect(text.contains("cannot be sent"), "\(path): \(text)")
                #expect(text.hasSuffix("fine"), "\(path): the next request is answered: \(text)")
            }
        }
        let after = try await rawExchange(port: server.port, "GET /ok HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(after.hasSuffix("fine"))
        await server.stop()
    }

    static func connectionLostIntMax() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        let body = Data(repeating: UInt8(ascii: "z"), count: 1000)
        mock.addResponses(forPath: "/cut", responses: [.fault(.connectionLost(afterBytes: Int.max), body: body, lifetime: .eternal)])
        let server = try await mock.startServer()
        for path in ["/cut", "/cut"] {
            let client = try await blocking {
                let client = try RawClient(port: server.port)
                try client.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n")
                client.read(timeout: 30)
                return client
            }
            #expect(client.text.hasPrefix("HTTP/1.1 200"), "\(path): \(client.text)")
            #expect(client.text.hasSuffix(String(repeating: "z", count: 1000)), "\(path)")
            #expect(client.isClosed)
        }
        await server.stop()
    }
}
extension ServerChildScenarios {
    /// An answer written from the event loop ends inside NIO's write of its end, where NIO
    /// delivers the next pipelined request it held back: answering that one there too would
    /// nest one level per request. A slow first answer makes NIO hold back all the others, so
    /// they are delivered one inside the other's write; nested, 20,000 of them overflow the stack.
    static func deepPipeline() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/slow", responses: [.plaintext("S", lifetime: .eternal, delivery: .delayed(0.5))])
        mock.addResponses(forPath: "/even", responses: [.plaintext("E", lifetime: .eternal)])
        mock.addResponses(forPath: "/odd", responses: [.plaintext("O", lifetime: .eternal)])
        let server = try await mock.startServer()
        let count = 20_000
        let paths = ["/slow"] + (1..<count).map { $0 % 2 == 0 ? "/even" : "/odd" }
        let request = paths.map { "GET \($0) HTTP/1.1\r\nHost: localhost\r\n\r\n" }.joined()
        let text = try await blocking {
            let client = try RawClient(port: server.port)
            try client.send(request)
            return client.read(timeout: 60) { $0.hasSuffix("O") && $0.components(separatedBy: "HTTP/1.1 200").count == count + 1 }
        }
        let bodies = text.components(separatedBy: "HTTP/1.1 200").dropFirst().map { $0.last.map(String.init) ?? "" }
        #expect(bodies.count == count)
        #expect(bodies == paths.map { String($0.dropFirst().prefix(1)).uppercased() }, "the answers come back in the order of the requests")
        let after = try await rawExchange(port: server.port, "GET /even HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(after.hasSuffix("E"))
        #expect(mock.recordedRequests.count == count + 1)
        await server.stop()
    }
}
#endif

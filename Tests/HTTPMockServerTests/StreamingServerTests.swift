#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

@Suite("HTTPMockServer: event streams, held gates and faults on the wire", .serialized, .timeLimit(.minutes(1)))
struct StreamingServerTests {
    let mock: HTTPMock = {
        let mock = HTTPMock()
        mock.logHandler = nil
        return mock
    }()

    @Test("an event stream goes out chunked, one chunk per event, each when its time comes")
    func eventStreamIsChunked() async throws {
        mock.addResponses(
            forPath: "/events",
            responses: [
                .eventStream(
                    [
                        ServerSentEvent(data: "Hel", event: "message", id: "1"),
                        ServerSentEvent(data: "lo\nworld", id: "2"),
                    ], interval: 0.3)
            ])
        try await serving(mock) { server in
            let started = Date()
            let port = server.port
            let raw = try await blocking {
                let client = try RawClient(port: port)
                try client.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                return client.read(timeout: 30) { $0.hasSuffix("0\r\n\r\n") }
            }
            #expect(Date().timeIntervalSince(started) >= 0.3)  // the second event waited its interval
            let lowercased = raw.lowercased()
            #expect(lowercased.contains("content-type: text/event-stream"))
            #expect(lowercased.contains("transfer-encoding: chunked"))
            #expect(!lowercased.contains("content-length"))
            #expect(raw.contains("event: message\nid: 1\ndata: Hel\n\n"))
            #expect(raw.contains("data: lo\ndata: world\n\n"))
            #expect(raw.hasSuffix("0\r\n\r\n"))
        }
    }

    @Test("a dynamic event stream sends what its sequence yields; URLSession gets the whole stream")
    func dynamicEventStream() async throws {
        mock.addResponses(
            forPath: "/live",
            responses: [
                .eventStreamFromSequence { request in
                    AsyncStream<ServerSentEvent> { continuation in
                        for index in 1...3 { continuation.yield(ServerSentEvent(data: "\(request.url.path) \(index)")) }
                        continuation.finish()
                    }
                }
            ])
        try await serving(mock) { server in
            let (data, response) = try await makePlainSession().data(from: server.baseURL.appendingPathComponent("live"))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "data: /live 1\n\ndata: /live 2\n\ndata: /live 3\n\n")
        }
    }

    @Test("a held response waits for its gate: journaled at once, answered only after release()")
    func heldGate() async throws {
        let gate = ResponseGate()
        mock.addResponses(forPath: "/slow", responses: [.plaintext("done", delivery: .held(gate))])
        try await serving(mock) { server in
            let reply = Task { try await makePlainSession().data(from: server.baseURL.appendingPathComponent("slow")) }
            let arrived = try await mock.waitForRequest(to: "/slow", timeout: 30)  // ends at arrival; generous for loaded machines
            #expect(arrived.request.url.path == "/slow")
            try await Task.sleep(nanoseconds: 200_000_000)
            let releasedAt = Date()
            gate.release()
            let (data, _) = try await reply.value
            #expect(String(decoding: data, as: UTF8.self) == "done")
            #expect(Date().timeIntervalSince(releasedAt) >= 0)
        }
    }

    @Test("connectionLost(afterBytes:) sends the head and that many bytes, then closes mid-body")
    func connectionLost() async throws {
        mock.addResponses(
            forPath: "/cut",
            responses: [
                .fault(.connectionLost(afterBytes: 5), body: Data("0123456789".utf8), lifetime: .multiple(2))
            ])
        try await serving(mock) { server in
            let raw = try await rawExchange(port: server.port, "GET /cut HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(raw.hasPrefix("HTTP/1.1 200"))
            #expect(raw.lowercased().contains("content-length: 10"))
            #expect(raw.hasSuffix("\r\n\r\n01234"))
            await #expect(throws: (any Error).self) {
                _ = try await makePlainSession().data(from: server.baseURL.appendingPathComponent("cut"))
            }
        }
    }

    @Test("malformedResponse sends bytes that are not HTTP, then closes; URLSession fails")
    func malformedResponse() async throws {
        mock.addResponses(forPath: "/bad", responses: [.fault(.malformedResponse, lifetime: .multiple(2))])
        try await serving(mock) { server in
            let raw = try await rawExchange(port: server.port, "GET /bad HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(raw.hasPrefix("HTTPMock "))
            #expect(!raw.hasPrefix("HTTP/1."))
            await #expect(throws: (any Error).self) {
                _ = try await makePlainSession().data(from: server.baseURL.appendingPathComponent("bad"))
            }
        }
    }

    @Test("emptyResponse closes the connection before any status line")
    func emptyResponse() async throws {
        mock.addResponses(forPath: "/empty", responses: [.fault(.emptyResponse)])
        try await serving(mock) { server in
            let raw = try await rawExchange(port: server.port, "GET /empty HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(raw.isEmpty)
        }
    }
}
#endif

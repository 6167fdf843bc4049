import AsyncHTTPClient
import Foundation
import HTTPMock
import HTTPMockServer
import NIOCore
import Testing

/// AsyncHTTPClient, server-side Swift's usual client (and Vapor's), against HTTPMockServer
/// over loopback: the clients that cannot take a URLSession.
@Suite("AsyncHTTPClient through HTTPMockServer", .serialized, .timeLimit(.minutes(2)))
struct AsyncHTTPClientTests {
    let mock: HTTPMock = {
        let mock = HTTPMock()
        mock.logHandler = nil
        return mock
    }()

    /// Runs `body` with a running server and a client, then shuts both down.
    func withServer(
        impersonating: String? = nil, proxy: Bool = false,
        _ body: (HTTPMockServer, HTTPClient) async throws -> Void
    ) async throws {
        let server = try await mock.startServer(impersonating: impersonating)
        var configuration = HTTPClient.Configuration()
        if proxy { configuration.proxy = .server(host: "127.0.0.1", port: server.port) }
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(30))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await body(server, client)
        } catch {
            try? await client.shutdown()
            await server.stop()
            throw error
        }
        try await client.shutdown()
        await server.stop()
    }

    @Test("baseURL is matched as the impersonated host; the journal carries it")
    func impersonation() async throws {
        mock.addResponses(
            forPath: "/users/:id", host: "api.example.com",
            responses: [
                .dynamic { request in
                    .json(#"{"id":"\#(request.pathParameters["id"] ?? "?")"}"#)
                }
            ])
        try await withServer(impersonating: "api.example.com") { server, client in
            let response = try await client.execute(
                HTTPClientRequest(url: server.baseURL.absoluteString + "/users/7"), timeout: .seconds(10))
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "content-type") == "application/json")
            let body = try await response.body.collect(upTo: 1 << 20)
            #expect(String(buffer: body) == #"{"id":"7"}"#)
        }
        #expect(mock.recordedRequests.map { $0.request.url.absoluteString } == ["https://api.example.com/users/7"])
    }

    @Test("A server-sent event stream reaches AsyncHTTPClient's streaming body event by event")
    func serverSentEvents() async throws {
        let events = (1...4).map { ServerSentEvent(data: #"{"delta":"part \#($0)"}"#, event: "message", id: "\($0)") }
        mock.addResponses(forPath: "/stream", responses: [.eventStream(events, interval: 0.25)])
        try await withServer { server, client in
            let started = ContinuousClock.now
            let response = try await client.execute(
                HTTPClientRequest(url: server.baseURL.absoluteString + "/stream"), timeout: .seconds(20))
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "content-type") == "text/event-stream")
            // Parse the stream as an SSE consumer does: lines, an event ends at a blank line.
            var pending = ""
            var received: [(id: String, data: String, at: Duration)] = []
            var id = ""
            var data = ""
            for try await chunk in response.body {
                pending += String(buffer: chunk)
                while let newline = pending.firstIndex(of: "\n") {
                    let line = String(pending[..<newline])
                    pending.removeSubrange(...newline)
                    if line.isEmpty {
                        received.append((id, data, ContinuousClock.now - started))
                        id = ""
                        data = ""
                    } else if line.hasPrefix("id: ") {
                        id = String(line.dropFirst(4))
                    } else if line.hasPrefix("data: ") {
                        data = String(line.dropFirst(6))
                    }
                }
            }
            #expect(received.map(\.id) == ["1", "2", "3", "4"])
            #expect(received.last?.data == #"{"delta":"part 4"}"#)
            // The first event arrived before the last one was sent (3 intervals later): lower
            // bounds only, the machine may be slow.
            if received.count == 4 {
                #expect(received[3].at - received[0].at >= .milliseconds(700))
            }
        }
    }

    @Test("As the client's proxy (CONNECT tunnel), the server answers every registered host")
    func proxyMode() async throws {
        mock.addResponses(forPath: "/a", host: "one.example", responses: [.plaintext("one")])
        mock.addResponses(forPath: "/b", host: "two.example", responses: [.plaintext("two", status: .created)])
        try await withServer(proxy: true) { _, client in
            let one = try await client.execute(HTTPClientRequest(url: "http://one.example/a"), timeout: .seconds(10))
            #expect(one.status == .ok)
            #expect(String(buffer: try await one.body.collect(upTo: 1 << 20)) == "one")
            let two = try await client.execute(HTTPClientRequest(url: "http://two.example/b"), timeout: .seconds(10))
            #expect(two.status == .created)
            #expect(String(buffer: try await two.body.collect(upTo: 1 << 20)) == "two")
        }
        #expect(mock.recordedRequests.compactMap { $0.request.url.host } == ["one.example", "two.example"])
        #expect(mock.recordedRequests.allSatisfy { $0.isMatched })
    }

    @Test("A .single response is served exactly once to 200 concurrent requests")
    func singleUnderConcurrency() async throws {
        mock.addResponses(forPath: "/once", responses: [.plaintext("winner")])
        try await withServer { server, client in
            let url = server.baseURL.absoluteString + "/once"
            let statuses = try await withThrowingTaskGroup(of: UInt.self) { group in
                for _ in 0..<200 {
                    group.addTask {
                        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
                        _ = try await response.body.collect(upTo: 1 << 20)
                        return response.status.code
                    }
                }
                return try await group.reduce(into: [UInt]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 404 }.count == 199)
        }
        #expect(mock.recordedRequests.count == 200)
    }

    @Test("A large file body streams to the client")
    func largeBody() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-ahc-\(UUID().uuidString).bin")
        let size = 64 * 1024 * 1024
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        let block = Data(repeating: 0x5A, count: 1024 * 1024)
        for _ in 0..<64 { handle.write(block) }
        try handle.close()
        defer { try? FileManager.default.removeItem(at: url) }
        mock.addResponses(forPath: "/big", responses: [.file(url: url)])
        try await withServer { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.baseURL.absoluteString + "/big"), timeout: .seconds(60))
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "content-length") == String(size))
            var received = 0
            var allMatch = true
            for try await buffer in response.body {
                received += buffer.readableBytes
                // Spot checks: a byte-by-byte scan of 64 MB is slow in a debug build.
                if let first = buffer.readableBytesView.first, let last = buffer.readableBytesView.last {
                    allMatch = allMatch && first == 0x5A && last == 0x5A
                }
            }
            #expect(received == size)
            #expect(allMatch)
        }
    }
}

#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

// SPEC §11.8 and §13's "HTTP semantics a client relies on", through raw sockets and URLSession.
// Docs/HTTPMock.docc/Guarantees.md names these tests.

@Suite("Server trust: per-request state, limits and HTTP semantics", .serialized, .timeLimit(.minutes(1)))
struct ServerTrustTests {
    let mock: HTTPMock = {
        let mock = HTTPMock()
        mock.logHandler = nil
        return mock
    }()

    /// `count` pipelined GETs of `path` in one write.
    private func pipelined(_ path: String, count: Int) -> String {
        String(repeating: "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n", count: count)
    }

    // MARK: - Per-request state (§11.8)

    @Test("30 requests on one connection, each slower than the idle timeout: none dropped")
    func idleTimeoutNeverCutsARequestInFlight() async throws {
        mock.addResponses(forPath: "/slow", responses: [.plaintext("ok", lifetime: .eternal, delivery: .delayed(0.25))])
        try await serving(mock, idleTimeout: 0.15) { server in
            let text = try await blocking {
                let client = try RawClient(port: server.port)
                try client.send(pipelined("/slow", count: 30))
                return client.read(timeout: 30) { $0.components(separatedBy: "HTTP/1.1 200").count == 31 }
            }
            #expect(text.components(separatedBy: "HTTP/1.1 200").count == 31)
        }
        #expect(mock.recordedRequests.count == 30)
    }

    @Test("pipelined requests answered at once and from tasks (a delay, a handler) alternate: the answers keep the requests' order")
    func answersAtOnceAndFromTasksKeepTheirOrder() async throws {
        mock.addResponses(forPath: "/now", responses: [.plaintext("N", lifetime: .eternal)])
        mock.addResponses(forPath: "/later", responses: [.plaintext("L", lifetime: .eternal, delivery: .delayed(0.01))])
        mock.addResponses(forPath: "/handler", responses: [.dynamic(lifetime: .eternal) { _ in .plaintext("H") }])
        let paths = (0..<60).map { ["/now", "/later", "/now", "/handler"][$0 % 4] }
        let text = try await serving(mock) { server in
            try await blocking {
                let client = try RawClient(port: server.port)
                try client.send(paths.map { "GET \($0) HTTP/1.1\r\nHost: localhost\r\n\r\n" }.joined())
                return client.read(timeout: 20) { $0.components(separatedBy: "HTTP/1.1 200").count == paths.count + 1 }
            }
        }
        let bodies = text.components(separatedBy: "HTTP/1.1 200").dropFirst().map { $0.last.map(String.init) ?? "" }
        #expect(bodies == paths.map { String($0.dropFirst().prefix(1)).uppercased() })
        #expect(mock.recordedRequests.map(\.request.url.path) == paths)
    }

    @Test("one connection asks for the same prepared answer again: what it keeps fits HEAD, a new registration and Connection: close")
    func keptPartsFitEachRequest() async throws {
        mock.addResponses(forPath: "/same", responses: [.plaintext("first", lifetime: .eternal)])
        let answers = try await serving(mock) { server in
            let client = try await blocking { try RawClient(port: server.port) }
            func exchange(_ request: String, headOnly: Bool = false) async throws -> String {
                try await blocking {
                    client.reset()
                    try client.send(request)
                    return headOnly ? client.read(timeout: 30) { $0.contains("\r\n\r\n") } : client.readResponse()
                }
            }
            var answers = [
                try await exchange("GET /same HTTP/1.1\r\nHost: localhost\r\n\r\n"),
                try await exchange("GET /same HTTP/1.1\r\nHost: localhost\r\n\r\n"),
                try await exchange("HEAD /same HTTP/1.1\r\nHost: localhost\r\n\r\n", headOnly: true),
                try await exchange("GET /same HTTP/1.1\r\nHost: localhost\r\n\r\n"),
            ]
            mock.clearQueues()
            mock.addResponses(forPath: "/same", responses: [.plaintext("second", lifetime: .eternal)])
            answers.append(try await exchange("GET /same HTTP/1.1\r\nHost: localhost\r\n\r\n"))
            answers.append(try await exchange("GET /same HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"))
            let closed = try await blocking { () -> Bool in
                _ = client.read(timeout: 30)
                return client.isClosed
            }
            #expect(closed, "Connection: close: the server closes after the answer")
            return answers
        }
        try #require(answers.count == 6)
        for index in [0, 1, 3] {
            #expect(
                answers[index].hasPrefix("HTTP/1.1 200 OK\r\n") && answers[index].hasSuffix("\r\n\r\nfirst"), "\(index): \(answers[index])")
            #expect(!answers[index].lowercased().contains("connection: close"))
        }
        #expect(answers[2].hasPrefix("HTTP/1.1 200 OK\r\n") && answers[2].lowercased().contains("content-length: 5\r\n"))
        #expect(answers[2].hasSuffix("\r\n\r\n"), "HEAD: no body, so the next answer starts clean: \(answers[2])")
        #expect(answers[4].hasSuffix("\r\n\r\nsecond") && answers[4].lowercased().contains("content-length: 6\r\n"))
        #expect(answers[5].hasSuffix("\r\n\r\nsecond") && answers[5].lowercased().contains("connection: close\r\n"))
    }

    @Test("a header field sent twice reaches the registry once, its values joined with a comma in order")
    func repeatedHeaderFieldsAreJoined() async throws {
        mock.addResponses(forPath: "/tags", responses: [.plaintext("ok", lifetime: .eternal)])
        let text = try await serving(mock) { server in
            try await rawExchange(port: server.port, "GET /tags HTTP/1.1\r\nHost: localhost\r\nX-Tag: a\r\nx-tag: b\r\nX-TAG: c\r\n\r\n")
        }
        #expect(text.hasSuffix("ok"))
        let headers = try #require(mock.recordedRequests.first?.request.headers)
        #expect(headers["X-Tag"] == "a, b, c")
        #expect(headers.filter { $0.name.lowercased() == "x-tag" }.count == 1)
    }

    @Test("30 keep-alive requests one after another, with delays; an idle timeout shorter than the total: none dropped")
    func keepAliveUnderIdleTimeout() async throws {
        mock.addResponses(forPath: "/k", responses: [.plaintext("ok", lifetime: .eternal, delivery: .delayed(0.05))])
        try await serving(mock, idleTimeout: 0.4) { server in
            let answered = try await blocking { () -> Int in
                let client = try RawClient(port: server.port)
                var answered = 0
                for _ in 0..<30 {
                    client.reset()
                    try client.send("GET /k HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    if client.readResponse().hasSuffix("ok") { answered += 1 }
                }
                return answered
            }
            #expect(answered == 30)
        }
        #expect(mock.recordedRequests.count == 30)
    }

    @Test("a client that disconnects during the second request on a connection cancels its handler")
    func disconnectCancelsTheSecondRequest() async throws {
        let cancelled = CancellationFlag()
        mock.addResponses(forPath: "/first", responses: [.plaintext("first")])
        mock.addResponses(
            forPath: "/second",
            responses: [
                .dynamic { _ in
                    await withTaskCancellationHandler {
                        try? await Task.sleep(nanoseconds: 20_000_000_000)
                    } onCancel: {
                        cancelled.set()
                    }
                    return .plaintext("late")
                }
            ])
        try await serving(mock) { server in
            try await blocking {
                let client = try RawClient(port: server.port)
                try client.send(pipelined("/first", count: 1) + pipelined("/second", count: 1))
                client.read(timeout: 30) { $0.hasSuffix("first") }
                Thread.sleep(forTimeInterval: 0.2)
                client.closeNow()
            }
            let deadline = Date().addingTimeInterval(30)
            while !cancelled.isSet, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
            #expect(cancelled.isSet)
        }
    }

    @Test("a client that disconnects during the second request on a connection stops waiting for its gate")
    func disconnectForgetsTheGate() async throws {
        let gate = ResponseGate()
        mock.addResponses(forPath: "/first", responses: [.plaintext("first")])
        mock.addResponses(forPath: "/held", responses: [.plaintext("held", delivery: .held(gate))])
        try await serving(mock) { server in
            let client = try await blocking {
                let client = try RawClient(port: server.port)
                try client.send(pipelined("/first", count: 1) + pipelined("/held", count: 1))
                client.read(timeout: 30) { $0.hasSuffix("first") }
                return client
            }
            var deadline = Date().addingTimeInterval(30)
            while gate.heldCount == 0, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
            #expect(gate.heldCount == 1)
            client.closeNow()
            deadline = Date().addingTimeInterval(30)
            while gate.heldCount > 0, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
            #expect(gate.heldCount == 0)
        }
        #expect(!gate.isReleased)
    }

    @Test(
        "400, 414, 431 and 501 answers to the second request on a connection arrive",
        arguments: [
            ("GARBAGE\0 / NOT-HTTP\r\n\r\n", "400"),
            ("GET /\(String(repeating: "u", count: 9000)) HTTP/1.1\r\nHost: localhost\r\n\r\n", "414"),
            ("GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: \(String(repeating: "b", count: 70 * 1024))\r\n\r\n", "431"),
            ("CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n", "501"),
        ])
    func refusalsOfTheSecondRequestArrive(second: String, status: String) async throws {
        mock.addResponses(forPath: "/first", responses: [.plaintext("first", lifetime: .eternal)])
        try await serving(mock) { server in
            let text = try await blocking {
                let client = try RawClient(port: server.port)
                try client.send(pipelined("/first", count: 1) + second)
                return client.read(timeout: 30) { $0.contains("HTTP/1.1 \(status)") && $0.hasSuffix("\n") }
            }
            #expect(text.hasPrefix("HTTP/1.1 200"))
            #expect(text.contains("HTTP/1.1 \(status)"))
        }
    }

    // MARK: - Limits (§11.8)

    @Test("a Content-Length over maximumRequestBody gets 413 at once; the default is 64 MB")
    func declaredBodyTooLarge() async throws {
        #expect(HTTPMockServer.defaultMaximumRequestBody == 64 * 1024 * 1024)
        mock.addResponses(forPath: "/upload", method: .post, responses: [.plaintext("stored", lifetime: .eternal)])
        try await servingWithLimit(1000) { server in
            let refused = try await rawExchange(
                port: server.port, "POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1001\r\n\r\n")
            #expect(refused.hasPrefix("HTTP/1.1 413"))
            #expect(refused.contains("maximumRequestBody (1000 bytes)"))
            let fits = try await rawExchange(
                port: server.port,
                "POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n\(String(repeating: "a", count: 1000))")
            #expect(fits.hasSuffix("stored"))
        }
        try await serving(mock) { server in
            let big = try await rawExchange(
                port: server.port, "POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(64 * 1024 * 1024 + 1)\r\n\r\n")
            #expect(big.hasPrefix("HTTP/1.1 413"))
        }
        #expect(mock.recordedRequests.count == 1)
    }

    @Test("a chunked upload that grows past maximumRequestBody gets 413 and is never journaled")
    func chunkedBodyTooLarge() async throws {
        mock.addResponses(forPath: "/upload", method: .post, responses: [.plaintext("stored", lifetime: .eternal)])
        try await servingWithLimit(4096) { server in
            let text = try await blocking {
                let client = try RawClient(port: server.port)
                try client.send("POST /upload HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
                let chunk = "400\r\n" + String(repeating: "c", count: 1024) + "\r\n"
                for _ in 0..<8 { try? client.send(chunk) }
                return client.read(timeout: 30) { $0.contains("maximumRequestBody") }
            }
            #expect(text.hasPrefix("HTTP/1.1 413"))
        }
        #expect(mock.recordedRequests.isEmpty)
    }

    // MARK: - HTTP semantics a client relies on (§13)

    @Test("Expect: 100-continue gets 100 Continue before the body; over the limit, the final 413 at once")
    func expectContinue() async throws {
        mock.addResponses(
            forPath: "/echo", method: .post,
            responses: [
                .dynamic(lifetime: .eternal) { request in .plaintext("got " + String(decoding: request.body ?? Data(), as: UTF8.self)) }
            ])
        try await servingWithLimit(100) { server in
            let (interim, final) = try await blocking { () -> (String, String) in
                let client = try RawClient(port: server.port)
                try client.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
                let interim = client.read(timeout: 30) { $0.hasSuffix("\r\n\r\n") }
                client.reset()
                try client.send("hello")
                return (interim, client.readResponse())
            }
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue\r\n"))
            #expect(final.hasPrefix("HTTP/1.1 200"))
            #expect(final.hasSuffix("got hello"))
            let refused = try await rawExchange(
                port: server.port, "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 500\r\nExpect: 100-continue\r\n\r\n")
            #expect(refused.hasPrefix("HTTP/1.1 413"))
        }
    }

    @Test(
        "a request followed by a half-close (shutdown(SHUT_WR)) is answered before the connection closes, fast or slow",
        arguments: [0.05, 1.0])
    func halfClose(delay: TimeInterval) async throws {
        mock.addResponses(forPath: "/h", responses: [.plaintext("answered", lifetime: .eternal, delivery: .delayed(delay))])
        try await serving(mock) { server in
            let client = try await blocking {
                let client = try RawClient(port: server.port)
                try client.send("GET /h HTTP/1.1\r\nHost: localhost\r\n\r\n")
                client.shutdownWrite()
                client.read(timeout: 30)
                return client
            }
            // A slow answer is preceded by an interim 100 Continue (the probe for a client that is gone).
            let final = client.text.components(separatedBy: "HTTP/1.1 100 Continue\r\n\r\n").last ?? ""
            #expect(final.hasPrefix("HTTP/1.1 200"), "\(client.text)")
            #expect(client.text.hasSuffix("answered"))
            #expect(client.isClosed)
        }
    }

    @Test("HEAD is answered by the GET route (status and headers, no body); a HEAD route wins; in-process too")
    func headFallsBackToGet() async throws {
        mock.addResponses(forPath: "/doc", method: .get, responses: [.plaintext("the document", lifetime: .eternal)])
        mock.addResponses(forPath: "/both", method: .get, responses: [.plaintext("get", lifetime: .eternal)])
        mock.addResponses(forPath: "/both", method: .head, responses: [.empty(status: 204, lifetime: .eternal)])
        try await serving(mock) { server in
            let replies = try await blocking { () -> [String] in
                let client = try RawClient(port: server.port)
                try client.send("HEAD /doc HTTP/1.1\r\nHost: localhost\r\n\r\n")
                let head = client.read(timeout: 30) { $0.hasSuffix("\r\n\r\n") }
                client.reset()
                try client.send("HEAD /both HTTP/1.1\r\nHost: localhost\r\n\r\nGET /doc HTTP/1.1\r\nHost: localhost\r\n\r\n")
                let next = client.read(timeout: 30) { $0.hasSuffix("the document") }
                return [head, next]
            }
            #expect(replies[0].hasPrefix("HTTP/1.1 200"))
            #expect(replies[0].lowercased().contains("content-length: 12\r\n"))
            #expect(replies[1].hasPrefix("HTTP/1.1 204"))
            #expect(replies[1].components(separatedBy: "HTTP/1.1 200").count == 2)
        }
        var request = URLRequest(url: URL(string: "https://example.com/doc")!)
        request.httpMethod = "HEAD"
        let (data, response) = try await mock.urlSession.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data.isEmpty)
        #expect(mock.recordedRequests.map(\.request.method) == [.head, .head, .get, .head])
    }

    @Test("HEAD on an event stream gets the head only; the next response on the connection reads correctly")
    func headOnEventStream() async throws {
        mock.addResponses(
            forPath: "/feed", responses: [.eventStream([ServerSentEvent(data: "one"), ServerSentEvent(data: "two")], lifetime: .eternal)])
        mock.addResponses(forPath: "/after", responses: [.plaintext("after", lifetime: .eternal)])
        try await serving(mock) { server in
            let text = try await blocking {
                let client = try RawClient(port: server.port)
                try client.send("HEAD /feed HTTP/1.1\r\nHost: localhost\r\n\r\nGET /after HTTP/1.1\r\nHost: localhost\r\n\r\n")
                return client.read(timeout: 30) { $0.hasSuffix("after") }
            }
            #expect(text.hasPrefix("HTTP/1.1 200"))
            #expect(!text.contains("data: one"))
            let second = try #require(text.range(of: "\r\n\r\n")).upperBound
            #expect(text[second...].hasPrefix("HTTP/1.1 200"), "the bytes after the HEAD answer: \(text[second...].debugDescription)")
            #expect(text.hasSuffix("after"))
        }
    }

    @Test(
        "Host that is not a host, duplicate Host, a non-http absolute target get 400; a target over 8 KB gets 414",
        arguments: [
            ("GET /x HTTP/1.1\r\nHost: api.example.com/evil\r\n\r\n", "400"),
            ("GET /x HTTP/1.1\r\nHost: evil@host\r\n\r\n", "400"),
            ("GET /x HTTP/1.1\r\nHost: localhost\r\nHost: other.example\r\n\r\n", "400"),
            ("GET ftp://files.example/x HTTP/1.1\r\nHost: files.example\r\n\r\n", "400"),
            ("GET /\(String(repeating: "p", count: 70 * 1024)) HTTP/1.1\r\nHost: localhost\r\n\r\n", "414"),
        ])
    func hostAndTargetRefusals(request: String, status: String) async throws {
        try await serving(mock) { server in
            let reply = try await rawExchange(port: server.port, request)
            #expect(reply.hasPrefix("HTTP/1.1 \(status)"), "\(reply.prefix(200))")
        }
        #expect(mock.recordedRequests.isEmpty)
    }

    @Test("GET http://[::1]:PORT/x names the server: matched as the impersonated host")
    func bracketedIPv6NamesTheServer() async throws {
        mock.addResponses(forPath: "/x", host: "api.example.com", responses: [.plaintext("mine", lifetime: .eternal)])
        try await serving(mock, impersonating: "api.example.com") { server in
            let reply = try await rawExchange(
                port: server.port, "GET http://[::1]:\(server.port)/x HTTP/1.1\r\nHost: [::1]:\(server.port)\r\n\r\n")
            #expect(reply.hasSuffix("mine"))
        }
        #expect(mock.recordedRequests.first?.request.url.host == "api.example.com")
    }

    // MARK: - Lifetime and start-up

    @Test("a dropped HTTPMockServer (no stop()) closes its connections and releases the instance")
    func droppedServer() async throws {
        weak var released: HTTPMock?
        let client: RawClient
        do {
            let mock = HTTPMock()
            mock.logHandler = nil
            mock.addResponses(forPath: "/k", responses: [.plaintext("k", lifetime: .eternal)])
            released = mock
            let server = try await mock.startServer()
            let port = server.port
            client = try await blocking {
                let client = try RawClient(port: port)
                try client.send("GET /k HTTP/1.1\r\nHost: localhost\r\n\r\n")
                client.readResponse()
                return client
            }
            #expect(client.text.hasSuffix("k"))
            #expect(server.port == port)  // the last use: the server is dropped here
        }
        _ = try await blocking { client.read(timeout: 30) }
        #expect(client.isClosed)
        let deadline = Date().addingTimeInterval(30)
        while released != nil, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(released == nil)
    }

    @Test("a port in use is an HTTPMockError naming host, port and cause")
    func bindFailure() async throws {
        try await serving(mock) { server in
            do {
                _ = try await mock.startServer(port: server.port)
                Issue.record("a second server bound \(server.port)")
            } catch let error as HTTPMockError {
                #expect(error.message.contains("127.0.0.1:\(server.port) is already in use"))
                #expect(!error.message.contains("errno"))
            }
        }
    }

    private func servingWithLimit(_ limit: Int, _ body: (HTTPMockServer) async throws -> Void) async throws {
        let server = try await mock.startServer(maximumRequestBody: limit)
        do {
            try await body(server)
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }
}

/// Set once, from any thread.
final class CancellationFlag: @unchecked Sendable {
    // @unchecked: `flag` is only touched under `lock`.
    private let lock = NSLock()
    private var flag = false
    var isSet: Bool { lock.withLock { flag } }
    func set() { lock.withLock { flag = true } }
}
#endif

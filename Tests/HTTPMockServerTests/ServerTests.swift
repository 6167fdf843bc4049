#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

/// A plain URLSession, not intercepted by HTTPMock: requests really go over loopback. One per
/// test, so no test sees connections another test's (stopped) server left in libcurl's pool.
func makePlainSession() -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 10
    configuration.urlCache = nil
    return URLSession(configuration: configuration)
}

/// Serves `mock` for the duration of `body`, then stops the server.
@discardableResult
func serving<T>(
    _ mock: HTTPMock, impersonating: String? = nil, idleTimeout: TimeInterval = 60, admin: Bool = false,
    _ body: (HTTPMockServer) async throws -> T
) async throws -> T {
    let server = try await mock.startServer(impersonating: impersonating, idleTimeout: idleTimeout, admin: admin)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

@Suite("HTTPMockServer: HTTP/1.1 over loopback", .serialized, .timeLimit(.minutes(1)))
struct ServerTests {
    let mock: HTTPMock = {
        let mock = HTTPMock()
        mock.logHandler = nil
        return mock
    }()
    let plainSession = makePlainSession()

    func get(_ url: URL) async throws -> (status: Int, text: String, response: HTTPURLResponse) {
        let (data, response) = try await plainSession.data(from: url)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, String(decoding: data, as: UTF8.self), http)
    }

    @Test("baseURL serves the impersonated host to a plain URLSession; the journal has the matched host")
    func impersonation() async throws {
        mock.addResponses(forPath: "/users/1", host: "api.example.com", responses: [.json(#"{"id":1}"#)])
        try await serving(mock, impersonating: "api.example.com") { server in
            #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
            let reply = try await get(server.baseURL.appendingPathComponent("users/1"))
            #expect(reply.status == 200)
            #expect(reply.text == #"{"id":1}"#)
            #expect(reply.response.value(forHTTPHeaderField: "Content-Type") == "application/json")
        }
        #expect(mock.recordedRequests.map { $0.request.url.host } == ["api.example.com"])
        #expect(mock.recordedRequests.first?.isMatched == true)
    }

    @Test("Without impersonating, requests naming the server are matched as defaultDomain")
    func defaultDomain() async throws {
        mock.defaultDomain = "default.example"
        mock.addResponses(forPath: "/ping", responses: [.plaintext("pong")])
        try await serving(mock) { server in
            let reply = try await rawExchange(port: server.port, "GET /ping HTTP/1.1\r\nHost: localhost:\(server.port)\r\n\r\n")
            #expect(reply.hasPrefix("HTTP/1.1 200 OK"))
            #expect(reply.hasSuffix("pong"))
        }
        #expect(mock.recordedRequests.first?.request.url.host == "default.example")
    }

    @Test("Absolute-form requests and foreign Host headers are matched against the named host")
    func proxyForms() async throws {
        mock.addResponses(forPath: "/a", host: "one.example", responses: [.plaintext("one", lifetime: .eternal)])
        mock.addResponses(forPath: "/a", host: "two.example", responses: [.plaintext("two", lifetime: .eternal)])
        try await serving(mock) { server in
            let absolute = try await rawExchange(port: server.port, "GET http://one.example/a HTTP/1.1\r\nHost: one.example\r\n\r\n")
            #expect(absolute.hasSuffix("one"))
            let foreign = try await rawExchange(port: server.port, "GET /a HTTP/1.1\r\nHost: two.example\r\n\r\n")
            #expect(foreign.hasSuffix("two"))
        }
        #expect(mock.recordedRequests.map { $0.request.url.absoluteString } == ["http://one.example/a", "http://two.example/a"])
    }

    @Test("CONNECT to port 80 is answered 200 and the tunnel is served as plain HTTP")
    func connectTunnel() async throws {
        mock.addResponses(forPath: "/t", host: "tunnel.example", responses: [.plaintext("inside", lifetime: .eternal)])
        try await serving(mock) { server in
            let text = try await blocking {
                let client = try RawClient(port: server.port)
                try client.send("CONNECT tunnel.example:80 HTTP/1.1\r\nHost: tunnel.example:80\r\n\r\n")
                let established = client.read { $0.contains("\r\n\r\n") }
                client.reset()
                try client.send("GET /t HTTP/1.1\r\nHost: tunnel.example\r\n\r\n")
                return (established, client.readResponse())
            }
            #expect(text.0.hasPrefix("HTTP/1.1 200"))
            #expect(!text.0.lowercased().contains("transfer-encoding"))
            #expect(text.1.hasPrefix("HTTP/1.1 200"))
            #expect(text.1.hasSuffix("inside"))
        }
    }

    @Test("CONNECT to port 443 is answered 501 with an explanation")
    func connectTLS() async throws {
        try await serving(mock) { server in
            let reply = try await rawExchange(
                port: server.port, "CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n")
            #expect(reply.hasPrefix("HTTP/1.1 501"))
            #expect(reply.contains("TLS"))
        }
    }

    @Test("Malformed requests get 400")
    func malformed() async throws {
        try await serving(mock) { server in
            let reply = try await rawExchange(port: server.port, "GARBAGE\0 / NOT-HTTP\r\n\r\n")
            #expect(reply.hasPrefix("HTTP/1.1 400"))
        }
    }

    @Test("A 40 KB header block passes; over 64 KB gets 431; the server keeps serving")
    func headerLimits() async throws {
        mock.addResponses(forPath: "/h", responses: [.plaintext("ok", lifetime: .eternal)])
        try await serving(mock) { server in
            let small = String(repeating: "a", count: 40 * 1024)
            let passed = try await rawExchange(port: server.port, "GET /h HTTP/1.1\r\nHost: localhost\r\nX-Big: \(small)\r\n\r\n")
            #expect(passed.hasPrefix("HTTP/1.1 200"))
            let big = String(repeating: "b", count: 70 * 1024)
            let refused = try await rawExchange(port: server.port, "GET /h HTTP/1.1\r\nHost: localhost\r\nX-Big: \(big)\r\n\r\n")
            #expect(refused.hasPrefix("HTTP/1.1 431"))
            let split = (0..<3).map { "X-Part-\($0): \(String(repeating: "c", count: 30 * 1024))\r\n" }.joined()
            let refusedTotal = try await rawExchange(port: server.port, "GET /h HTTP/1.1\r\nHost: localhost\r\n\(split)\r\n")
            #expect(refusedTotal.hasPrefix("HTTP/1.1 431"))
            let after = try await get(server.baseURL.appendingPathComponent("h"))
            #expect(after.status == 200)
        }
    }

    @Test("Chunked and Content-Length request bodies reach matchers and dynamic handlers")
    func requestBodies() async throws {
        mock.addResponses(
            forPath: "/echo", method: .post,
            responses: [
                .dynamic(lifetime: .eternal) { request in
                    .plaintext("got " + String(decoding: request.body ?? Data(), as: UTF8.self))
                }
            ])
        try await serving(mock) { server in
            let chunked = try await rawExchange(
                port: server.port,
                """
                POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n
                """)
            #expect(chunked.hasSuffix("got hello world"))
            var request = URLRequest(url: server.baseURL.appendingPathComponent("echo"))
            request.httpMethod = "POST"
            request.httpBody = Data("abc".utf8)
            let (data, _) = try await plainSession.data(for: request)
            #expect(String(decoding: data, as: UTF8.self) == "got abc")
        }
        #expect(mock.recordedRequests.map { $0.statusCode } == [200, 200])
    }

    @Test("Redirects and Set-Cookie go to the client as they are")
    func redirectsUntouched() async throws {
        mock.addResponses(forPath: "/old", responses: [.redirect(to: "/new", headers: ["Set-Cookie": "a=1; Path=/"])])
        try await serving(mock) { server in
            let reply = try await rawExchange(port: server.port, "GET /old HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(reply.hasPrefix("HTTP/1.1 302"))
            #expect(reply.lowercased().contains("location: /new\r\n"))
            #expect(reply.lowercased().contains("set-cookie: a=1; path=/\r\n"))
        }
        #expect(mock.recordedRequests.count == 1)
    }

    @Test(".failure and the .fail policy close the connection without a response; the miss is journaled")
    func closes() async throws {
        mock.addResponses(forPath: "/boom", responses: [.failure(URLError(.networkConnectionLost))])
        mock.unmockedPolicy = .fail(.cannotFindHost)
        try await serving(mock) { server in
            let failed = try await rawExchange(port: server.port, "GET /boom HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(failed.isEmpty)
            let unmatched = try await rawExchange(port: server.port, "GET /nothing HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(unmatched.isEmpty)
        }
        let journal = mock.recordedRequests
        #expect(journal.map(\.isMatched) == [true, false])
        #expect(journal.last?.nearMissReport != nil)
    }

    @Test("Unmatched requests get the same 404 and near-miss report as in-process")
    func nearMisses() async throws {
        mock.addResponses(forPath: "/users/1", host: "api.example.com", method: .get, responses: [.plaintext("u")])
        let inProcess = try await mock.urlSession.data(from: URL(string: "https://api.example.com/users/2")!)
        let inProcessReport = mock.recordedRequests.last?.nearMissReport
        // The same report, except that its first line names the URL the client called too.
        func dropFirstLine(_ text: String?) -> String? { text.map { String($0.drop { $0 != "\n" }) } }
        try await serving(mock, impersonating: "api.example.com") { server in
            let reply = try await get(server.baseURL.appendingPathComponent("users/2"))
            #expect(reply.status == 404)
            #expect(dropFirstLine(reply.text) == dropFirstLine(String(decoding: inProcess.0, as: UTF8.self)))
            #expect(
                reply.text.hasPrefix(
                    "No mock for GET \(server.baseURL.absoluteString)/users/2 (matched as https://api.example.com/users/2)\n"))
            #expect(String(decoding: inProcess.0, as: UTF8.self).hasPrefix("No mock for GET https://api.example.com/users/2\n"))
        }
        #expect(dropFirstLine(mock.recordedRequests.last?.nearMissReport) == dropFirstLine(inProcessReport))
        #expect(inProcessReport?.isEmpty == false)
        #expect(mock.pendingResponses.count == 1)
    }

    @Test("Delays hold the response; throttling paces the body on the socket")
    func timing() async throws {
        mock.addResponses(forPath: "/slow", responses: [.plaintext("late", delivery: .delayed(0.4))])
        let body = Data(repeating: 0x61, count: 6000)
        mock.addResponses(forPath: "/trickle", responses: [.data(body, delivery: .throttled(bytesPerSecond: 10000))])
        try await serving(mock) { server in
            var start = Date()
            let slow = try await get(server.baseURL.appendingPathComponent("slow"))
            #expect(slow.text == "late")
            #expect(Date().timeIntervalSince(start) >= 0.4)
            start = Date()
            let trickle = try await get(server.baseURL.appendingPathComponent("trickle"))
            #expect(trickle.text.utf8.count == 6000)
            #expect(Date().timeIntervalSince(start) >= 0.5)
        }
    }

    @Test(".single is served exactly once under 200 concurrent requests")
    func singleUnderConcurrency() async throws {
        mock.addResponses(forPath: "/once", responses: [.plaintext("winner")])
        let statuses = try await serving(mock) { server in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<200 {
                    group.addTask { try await get(server.baseURL.appendingPathComponent("once")).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        #expect(statuses.count == 200)
        #expect(statuses.filter { $0 == 200 }.count == 1)
        #expect(statuses.filter { $0 == 404 }.count == 199)
        #expect(mock.recordedRequests.count == 200)
    }

    @Test("stop() returns promptly with requests in flight (.never and a slow dynamic handler)")
    func stopInFlight() async throws {
        mock.addResponses(forPath: "/never", responses: [.plaintext("x", delivery: .never)])
        mock.addResponses(
            forPath: "/stuck",
            responses: [
                .dynamic { _ in
                    try await Task.sleep(nanoseconds: 3_600_000_000_000)
                    return .plaintext("late")
                }
            ])
        let server = try await mock.startServer()
        let port = server.port
        let clients = try await blocking { () -> [RawClient] in
            let a = try RawClient(port: port)
            try a.send("GET /never HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let b = try RawClient(port: port)
            try b.send("GET /stuck HTTP/1.1\r\nHost: localhost\r\n\r\n")
            return [a, b]
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        // A stop() that waited for the hour-long handler would outlast the suite's time limit.
        await server.stop()
        let closed = try await blocking {
            clients.map {
                $0.read(timeout: 30)
                return $0.isClosed
            }
        }
        #expect(closed == [true, true])
        #expect(clients.allSatisfy { $0.text.isEmpty })
        // The port is free again: nothing listens.
        #expect(throws: (any Error).self) { try RawClient(port: port) }
    }

    @Test("A port in use and bad arguments are errors, not crashes")
    func startErrors() async throws {
        try await serving(mock) { server in
            await #expect(throws: (any Error).self) { try await mock.startServer(port: server.port) }
        }
        await #expect(throws: HTTPMockError.self) { try await mock.startServer(port: 70000) }
        await #expect(throws: HTTPMockError.self) { try await mock.startServer(idleTimeout: 0) }
    }

    @Test("Idle connections are closed after idleTimeout")
    func idleTimeout() async throws {
        mock.addResponses(forPath: "/k", responses: [.plaintext("k")])
        try await serving(mock, idleTimeout: 0.3) { server in
            let (first, closedAfter) = try await blocking { () -> (String, TimeInterval?) in
                let client = try RawClient(port: server.port)
                try client.send("GET /k HTTP/1.1\r\nHost: localhost\r\n\r\n")
                let first = client.readResponse()
                let start = Date()
                // The read ends when the server closes; only a server that never does waits it out.
                client.read(timeout: 30)
                return (first, client.isClosed ? Date().timeIntervalSince(start) : nil)
            }
            #expect(first.hasSuffix("k"))
            _ = try #require(closedAfter, "the idle connection was not closed")
        }
    }

    @Test("HEAD gets the headers with Content-Length and no body; keep-alive serves several requests")
    func headAndKeepAlive() async throws {
        mock.addResponses(forPath: "/r", responses: [.plaintext("hello", lifetime: .eternal)])
        try await serving(mock) { server in
            let replies = try await blocking { () -> [String] in
                let client = try RawClient(port: server.port)
                try client.send("HEAD /r HTTP/1.1\r\nHost: localhost\r\n\r\n")
                let head = client.read { $0.hasSuffix("\r\n\r\n") }
                client.reset()
                try client.send("GET /r HTTP/1.1\r\nHost: localhost\r\n\r\nGET /r HTTP/1.1\r\nHost: localhost\r\n\r\n")
                let two = client.read { $0.components(separatedBy: "hello").count == 3 }
                return [head, two]
            }
            #expect(replies[0].hasPrefix("HTTP/1.1 200"))
            #expect(replies[0].lowercased().contains("content-length: 5"))
            #expect(replies[1].components(separatedBy: "HTTP/1.1 200").count == 3)
        }
    }

    @Test("File bodies stream from disk")
    func fileBody() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-server-\(UUID().uuidString).bin")
        let size = 3 * 1024 * 1024 + 17
        let block = Data((0..<256).map { UInt8($0) })
        var contents = Data(capacity: size)
        while contents.count + block.count <= size { contents.append(block) }
        contents.append(block.prefix(size - contents.count))
        try contents.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        mock.addResponses(forPath: "/file", responses: [.file(url: url)])
        try await serving(mock) { server in
            let (data, response) = try await plainSession.data(from: server.baseURL.appendingPathComponent("file"))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(data == (try Data(contentsOf: url)))
        }
    }

    @Test("Passthrough goes through the instance's passthrough session")
    func passthrough() async throws {
        let upstream = HTTPMock()
        upstream.logHandler = nil
        upstream.addResponses(forPath: "/real", host: "upstream.example", responses: [.plaintext("from upstream")])
        try await serving(upstream, impersonating: "upstream.example") { upstreamServer in
            let mock = HTTPMock()
            mock.logHandler = nil
            mock.addResponses(forPath: "/real", host: "127.0.0.1", responses: [.passthrough()])
            try await serving(mock, impersonating: "http://127.0.0.1:\(upstreamServer.port)") { server in
                let reply = try await get(URL(string: "http://127.0.0.1:\(server.port)/real")!)
                #expect(reply.status == 200)
                #expect(reply.text == "from upstream")
            }
            #expect(mock.recordedRequests.first?.statusCode == 200)
        }
    }
}
#endif

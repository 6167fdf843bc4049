#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

/// `MockRequest.calledURL`: the URL the client called, beside the impersonated URL a server
/// request is matched as (SPEC §22's `absoluteUrl`, §24's reports).
@Suite("MockRequest.calledURL: the URL the client called", .serialized, .timeLimit(.minutes(1)))
struct CalledURLTests {
    @Test("in process, the called URL is the request's URL")
    func inProcess() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/users", host: "api.example.com", responses: [.empty(status: .noContent, lifetime: .eternal)])
        _ = try await mock.urlSession.data(from: URL(string: "https://api.example.com/users?page=2")!)
        let request = try #require(mock.recordedRequests.first).request
        #expect(request.calledURL == request.url)
        #expect(request.calledURL.absoluteString == "https://api.example.com/users?page=2")
    }

    @Test("over the server, url is the impersonated origin and calledURL the server's address, path and query")
    func overTheServer() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/users", host: "api.example.com", responses: [.empty(status: .noContent, lifetime: .eternal)])
        try await serving(mock, impersonating: "api.example.com") { server in
            var request = URLRequest(url: URL(string: "\(server.baseURL.absoluteString)/users?page=2&q=a%20b")!)
            request.httpMethod = "GET"
            let (_, response) = try await makePlainSession().data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 204)
            let entry = try #require(mock.recordedRequests.first)
            #expect(entry.isMatched)
            #expect(entry.request.url.absoluteString == "https://api.example.com/users?page=2&q=a%20b")
            #expect(entry.request.calledURL.absoluteString == "http://127.0.0.1:\(server.port)/users?page=2&q=a%20b")
        }
    }

    @Test("the Host header as sent, a request without Host, and an absolute-form target each give their own called URL")
    func hostForms() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/x", host: "api.example.com", responses: [.empty(status: .noContent, lifetime: .eternal)])
        try await serving(mock, impersonating: "api.example.com") { server in
            let port = server.port
            // One keep-alive connection, the same path under two Host values: the per-connection
            // target must not hand the second request the first one's called URL.
            let texts = try await blocking { () -> [String] in
                let client = try RawClient(port: port)
                var texts: [String] = []
                for host in ["127.0.0.1:\(port)", "localhost:\(port)", "localhost:\(port)"] {
                    client.reset()
                    try client.send("GET /x?n=1 HTTP/1.1\r\nHost: \(host)\r\n\r\n")
                    texts.append(client.readResponse())
                }
                return texts
            }
            #expect(texts.allSatisfy { $0.hasPrefix("HTTP/1.1 204") })
            let noHost = try await rawExchange(port: port, "GET /x HTTP/1.0\r\n\r\n")
            #expect(noHost.hasPrefix("HTTP/1.0 204") || noHost.hasPrefix("HTTP/1.1 204"))
            let absolute = try await rawExchange(port: port, "GET http://api.example.com/x?y=2 HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
            #expect(absolute.hasPrefix("HTTP/1.1 204"))
            let called = mock.recordedRequests.map(\.request.calledURL.absoluteString)
            #expect(
                called == [
                    "http://127.0.0.1:\(port)/x?n=1", "http://localhost:\(port)/x?n=1", "http://localhost:\(port)/x?n=1",
                    "http://127.0.0.1:\(port)/x", "http://api.example.com/x?y=2",
                ])
            #expect(mock.recordedRequests.allSatisfy { $0.request.url.host == "api.example.com" })
        }
    }

    @Test("a serve event's absoluteUrl is the URL the client called")
    func absoluteURLInServeEvents() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        let server = try await mock.startServer(admin: true)
        defer { Task { await server.stop() } }
        let session = makePlainSession()
        _ = try await session.data(from: URL(string: "\(server.baseURL.absoluteString)/missing?a=1")!)
        let (data, _) = try await session.data(from: URL(string: "\(server.baseURL.absoluteString)/__admin/requests")!)
        let listed = try JSONDecoder().decode(JSONValue.self, from: data)
        guard case .array(let events)? = listed["requests"], let first = events.first else {
            Issue.record("no serve events in \(String(decoding: data, as: UTF8.self))")
            return
        }
        #expect(first["request"]?["absoluteUrl"] == .string("http://127.0.0.1:\(server.port)/missing?a=1"))
        #expect(first["request"]?["url"] == .string("/missing?a=1"))
        await server.stop()
    }
}
#endif

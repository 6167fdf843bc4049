import Foundation
import Testing

@testable import HTTPMock

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a request's URL is read into what matchers and the journal see: the one-pass reading of
/// plain URLs (`MockRequest.plainParts(of:)`) against Foundation's accessors, and the same
/// URLs through a real session.
@Suite("Request model")
struct RequestModelTests {
    /// URLs the one-pass reader takes, with the parts Foundation's accessors give.
    static let plain = [
        "https://api.example.com/item",
        "http://api.example.com/item",
        "https://API.Example.COM/Item",
        "https://api.example.com",
        "https://api.example.com/",
        "https://api.example.com?q=1",
        "https://api.example.com/a/b/?x=1&y=%20z&flag",
        "https://api.example.com/a?",
        "https://api.example.com/files/a%2Fb/%25",
        "https://api.example.com//double//slash",
        "https://api.example.com/./a/../b",
        "https://a-b.c-d.example.com/path;params",
        "https://localhost/x",
        "http://127.0.0.1/x",
        "https://example.com/caf%C3%A9?name=J%C3%BCrgen",
        "https://example.com/a?redirect=https://other.example.com/b?c=d",
    ]

    /// URLs it leaves to Foundation's accessors.
    static let others = [
        "https://api.example.com:8443/item",
        "http://api.example.com:80/item",
        "https://user:secret@api.example.com/item",
        "https://[::1]/item",
        "https://api.example.com/item#section",
        "https://api.example.com/item?q=1#section",
        "HTTPS://api.example.com/item",
        "ftp://files.example.com/a",
        "ws://socket.example.com/a",
        "https://caf%C3%A9.example.com/a",
        "https://",
        "mailto:ada@example.com",
    ]

    @Test("plain http(s) URLs are read in one pass exactly as Foundation's accessors read them", arguments: plain)
    func plainURLsReadAsFoundationDoes(_ string: String) throws {
        let url = try #require(URL(string: string))
        let plain = try #require(MockRequest.plainParts(of: url), "\(string) should be read in one pass")
        let (path, query, host) = MockRequest.parts(of: url)
        #expect(plain.scheme == url.scheme)
        #expect(plain.host == host)
        #expect(plain.path == path)
        #expect(plain.query == query)
        #expect(url.port == nil)
    }

    @Test("URLs with a port, user info, a fragment or another scheme are left to Foundation", arguments: others)
    func otherURLsAreLeftToFoundation(_ string: String) throws {
        guard let url = URL(string: string) else { return }
        #expect(MockRequest.plainParts(of: url) == nil)
    }

    @Test("a URL relative to a base is read as the absolute URL it resolves to")
    func relativeURL() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/v1/users/:id", host: "api.example.com", responses: [.plaintext("user", lifetime: .eternal)])
        let base = try #require(URL(string: "https://api.example.com/v1/"))
        let url = try #require(URL(string: "users/7?expand=true", relativeTo: base))
        let reply = try await mock.urlSession.reply(URLRequest(url: url))
        #expect(reply.response.statusCode == 200)
        let entry = try #require(mock.recordedRequests.first)
        #expect(entry.request.pathParameters == ["id": "7"])
        #expect(entry.request.queryItems == [URLQueryItem(name: "expand", value: "true")])
    }

    @Test("through a session, every kind of URL reaches the route its host, port, path and query name")
    func throughASession() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/item", host: "api.example.com", responses: [.plaintext("443", lifetime: .eternal)])
        mock.addResponses(forPath: "/item", host: "api.example.com:8443", responses: [.plaintext("8443", lifetime: .eternal)])
        mock.addResponses(forPath: "/files/:name", host: "api.example.com", responses: [.plaintext("file", lifetime: .eternal)])
        let session = mock.urlSession
        let cases: [(url: String, body: String, query: [URLQueryItem], parameters: [String: String])] = [
            ("https://api.example.com/item", "443", [], [:]),
            (
                "https://API.EXAMPLE.com/item/?a=1&b", "443", [URLQueryItem(name: "a", value: "1"), URLQueryItem(name: "b", value: nil)],
                [:]
            ),
            ("https://api.example.com:443/item", "443", [], [:]),
            ("https://api.example.com:8443/item", "8443", [], [:]),
            ("https://user:pw@api.example.com/item#top", "443", [], [:]),
            ("https://api.example.com/files/a%2Fb?v=%C3%BC", "file", [URLQueryItem(name: "v", value: "ü")], ["name": "a/b"]),
        ]
        for (index, testCase) in cases.enumerated() {
            let reply = try await session.reply(testCase.url)
            #expect(String(decoding: reply.data, as: UTF8.self) == testCase.body, "\(testCase.url)")
            let entry = mock.recordedRequests[index]
            #expect(entry.isMatched, "\(testCase.url)")
            #expect(entry.request.queryItems == testCase.query, "\(testCase.url)")
            #expect(entry.request.pathParameters == testCase.parameters, "\(testCase.url)")
            #expect(entry.request.url.absoluteString == testCase.url)
        }
    }
}

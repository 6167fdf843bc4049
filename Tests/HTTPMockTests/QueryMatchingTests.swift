import Foundation
import HTTPMock
import Testing

@Suite("Query matching")
struct QueryMatchingTests {
    let mock = HTTPMock()

    func status(_ url: String) async throws -> Int {
        try await mock.urlSession.reply(url).status
    }

    @Test(".exact: exactly these keys and values, key order free")
    func exact() async throws {
        mock.addResponses(forPath: "/s", query: ["q": "swift", "page": "1"], responses: [.empty(status: 200, lifetime: .eternal)])
        #expect(try await status("https://example.com/s?page=1&q=swift") == 200)
        #expect(try await status("https://example.com/s?q=swift") == 404)
        #expect(try await status("https://example.com/s?q=swift&page=1&extra=1") == 404)
        #expect(try await status("https://example.com/s?q=swift&page=2") == 404)
    }

    @Test(".contains: these keys present, others ignored")
    func contains() async throws {
        mock.addResponses(forPath: "/s", query: ["q": "swift"], matching: .contains, responses: [.empty(status: 200, lifetime: .eternal)])
        #expect(try await status("https://example.com/s?q=swift&page=9") == 200)
        #expect(try await status("https://example.com/s?page=9") == 404)
    }

    @Test("arrays match repeated keys in order; .any matches presence")
    func arraysAndAny() async throws {
        mock.addResponses(forPath: "/t", query: ["tag": ["a", "b"], "token": .any], responses: [.empty(status: 200, lifetime: .eternal)])
        #expect(try await status("https://example.com/t?tag=a&token=xyz&tag=b") == 200)
        #expect(try await status("https://example.com/t?tag=b&tag=a&token=1") == 404)
        #expect(try await status("https://example.com/t?tag=a&tag=b") == 404)
        #expect(try await status("https://example.com/t?tag=a&tag=b&token") == 200)
    }

    @Test("percent-encoding is decoded before comparison; + is not a space")
    func percentEncoding() async throws {
        mock.addResponses(forPath: "/p", query: ["name": "a b&c"], responses: [.empty(status: 200, lifetime: .eternal)])
        mock.addResponses(forPath: "/plus", query: ["v": "1+1"], responses: [.empty(status: 200, lifetime: .eternal)])
        #expect(try await status("https://example.com/p?name=a%20b%26c") == 200)
        #expect(try await status("https://example.com/plus?v=1+1") == 200)
        #expect(try await status("https://example.com/plus?v=1%201") == 404)
    }

    @Test("no query: matches any query")
    func noQueryMatchesAny() async throws {
        mock.addResponses(forPath: "/any", responses: [.empty(status: 200, lifetime: .eternal)])
        #expect(try await status("https://example.com/any?x=1&y=2") == 200)
        #expect(try await status("https://example.com/any") == 200)
    }

    @Test("method matching is case-insensitive; nil matches any method")
    func methods() async throws {
        mock.addResponses(forPath: "/m", method: "purge", responses: [.plaintext("purged", lifetime: .eternal)])
        #expect(try await mock.urlSession.reply(request("https://example.com/m", method: "PURGE")).text == "purged")
        #expect(try await mock.urlSession.reply(request("https://example.com/m", method: "GET")).status == 404)
        #expect(HTTPMethod("patch") == .patch)
    }
}

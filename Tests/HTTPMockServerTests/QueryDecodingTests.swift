#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

// Issue 45.1: one query decoding rule (Matching.md, "A query is read one way everywhere"); `+`
// is the one choice, made per reader.

@Suite("One query decoding rule: the DSL keeps `+`, WireMock's queryParameters read a space")
struct QueryDecodingTests {
    @Test("the same requests through a DSL route and a WireMock mapping on one instance")
    func plusPerReader() async throws {
        let root = try temporaryWireMockRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(
            #"""
            {"request": {"method": "GET", "urlPath": "/wiremock", "queryParameters": {"q": {"equalTo": "a b"}}},
             "response": {"status": 200, "body": "wiremock"}}
            """#.utf8
        ).write(to: root.appendingPathComponent("mappings/q.json"))
        let mock = try quietMock(loading: root)
        mock.addResponses(forPath: "/dsl", query: ["q": "a+b"], responses: [.plaintext("dsl", lifetime: .eternal)])
        let base = "https://example.com"
        func reply(_ url: String) async throws -> (status: Int, text: String) {
            let (data, response) = try await mock.urlSession.data(from: try #require(URL(string: url)))
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        }
        // Percent-decoding is the same for both; `+` differs.
        #expect(try await reply("\(base)/wiremock?q=a+b").status == 200)
        #expect(try await reply("\(base)/wiremock?q=a%2Bb").status == 404)
        #expect(try await reply("\(base)/dsl?q=a+b").text == "dsl")
        #expect(try await reply("\(base)/dsl?q=a%2Bb").text == "dsl")
        #expect(try await reply("\(base)/dsl?q=a%20b").status == 404)
        #expect(mock.recordedRequests.last?.request.queryItems == [URLQueryItem(name: "q", value: "a b")])
    }
}
#endif

#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

// SPEC §11.8: a long-running server's journal is bounded (the knobs `httpmock serve
// --journal-limit` sets).

@Suite("Server trust: a bounded journal", .serialized, .timeLimit(.minutes(1)))
struct ServerJournalLimitTests {
    @Test("journalLimit keeps the last N requests; journalBodyLimit keeps larger bodies as their size only")
    func limitsThroughTheServer() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        #expect(mock.journalLimit == nil)
        #expect(mock.journalBodyLimit == nil)
        mock.journalLimit = 5
        mock.journalBodyLimit = 10
        mock.addResponses(forPath: "/up", method: .post, responses: [.plaintext("ok", lifetime: .eternal)])
        try await serving(mock) { server in
            for index in 0..<8 {
                let body = index.isMultiple(of: 2) ? "small" : String(repeating: "b", count: 20)
                let reply = try await rawExchange(
                    port: server.port,
                    "POST /up?n=\(index) HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                #expect(reply.hasSuffix("ok"))
            }
        }
        let journal = mock.recordedRequests
        #expect(journal.map { $0.request.url.query ?? "" } == ["n=3", "n=4", "n=5", "n=6", "n=7"])
        #expect(journal.map(\.bodySize) == [20, 5, 20, 5, 20])
        #expect(journal.map { $0.request.body?.count } == [nil, 5, nil, 5, nil])
        mock.journalLimit = 2
        #expect(mock.recordedRequests.map { $0.request.url.query ?? "" } == ["n=6", "n=7"])
    }

    @Test("journalBytesLimit bounds the bytes the journal's bodies hold: the oldest entries go first, the newest stays")
    func bytesLimit() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        #expect(mock.journalBytesLimit == nil)
        mock.journalBytesLimit = 1000
        mock.addResponses(forPath: "/up", method: .post, responses: [.plaintext("ok", lifetime: .eternal)])
        let body = String(repeating: "b", count: 300)
        try await serving(mock) { server in
            for index in 0..<6 {
                let reply = try await rawExchange(
                    port: server.port,
                    "POST /up?n=\(index) HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                #expect(reply.hasSuffix("ok"))
            }
        }
        #expect(mock.recordedRequests.map { $0.request.url.query ?? "" } == ["n=3", "n=4", "n=5"])
        mock.journalBytesLimit = 500
        #expect(mock.recordedRequests.map { $0.request.url.query ?? "" } == ["n=5"])
        mock.journalBytesLimit = 0
        #expect(mock.recordedRequests.map { $0.request.url.query ?? "" } == ["n=5"])
    }

    @Test("the limit holds across many requests (the journal's chunks are freed)")
    func manyRequests() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.journalLimit = 300
        mock.addResponses(forPath: "/n", responses: [.plaintext("n", lifetime: .eternal)])
        for index in 0..<700 {
            _ = try await mock.urlSession.data(from: URL(string: "https://example.com/n?i=\(index)")!)
        }
        let journal = mock.recordedRequests
        #expect(journal.count == 300)
        #expect(journal.first?.request.url.query == "i=400")
        #expect(journal.last?.request.url.query == "i=699")
        mock.journalLimit = nil
        _ = try await mock.urlSession.data(from: URL(string: "https://example.com/n?i=700")!)
        #expect(mock.recordedRequests.count == 301)
    }
}
#endif

import Foundation
import HTTPMock
import Testing

@Suite("Journal")
struct JournalTests {
    @Test("recordedRequests: every request in arrival order with route, status or error, and date")
    func recordedRequests() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/users", host: "api.example.com", method: .post, responses: [.empty(status: .created)])
        mock.addResponses(forPath: "/down", host: "api.example.com", responses: [.failure(URLError(.timedOut))])
        let before = Date()

        _ = try await mock.urlSession.reply(
            request(
                "https://api.example.com/users?src=t", method: "POST",
                body: Data(#"{"name":"Ada"}"#.utf8), headers: ["X-Trace": "42"]))
        _ = try? await mock.urlSession.reply("https://api.example.com/down")
        _ = try await mock.urlSession.reply("https://api.example.com/missing")

        let journal = mock.recordedRequests
        #expect(journal.count == 3)
        #expect(journal[0].isMatched)
        #expect(journal[0].route == "POST api.example.com/users")
        #expect(journal[0].statusCode == 201)
        #expect(journal[0].request.method == .post)
        #expect(journal[0].request.headers["x-trace"] == "42")
        #expect(journal[0].request.queryItems == [URLQueryItem(name: "src", value: "t")])
        struct Person: Decodable, Equatable { var name: String }
        #expect(try journal[0].request.decode(Person.self) == Person(name: "Ada"))
        #expect(journal[0].date >= before)
        #expect((journal[1].error as? URLError)?.code == .timedOut)
        // Read as a person reads it, not `Error Domain=NSURLErrorDomain Code=-1001 "(null)"`.
        #expect(
            journal[1].description == "GET https://api.example.com/down -> error: URLError.timedOut (-1001) via ANY api.example.com/down")
        #expect(journal[1].statusCode == nil)
        #expect(journal[2].isMatched == false)
        #expect(journal[2].statusCode == 404)
    }

    @Test("an entry stays small: every request of a run is kept, so its size is per-request memory")
    func entrySize() async throws {
        // Benchmarks/README.md, "fourth round": halving the entry (160 → 80 bytes) was part of
        // what brought the per-request overhead down. A field most entries never set belongs in
        // the entry's rare part, not inline.
        #expect(MemoryLayout<RecordedRequest>.stride <= 80)
        let mock = HTTPMock()
        mock.addResponses(forPath: "/a", responses: [.empty()])
        _ = try await mock.urlSession.reply("https://example.com/a")
        _ = try await mock.urlSession.reply("https://example.com/b")
        // The fields kept out of line still read and write as before.
        #expect(mock.recordedRequests[0].error == nil && mock.recordedRequests[0].nearMissReport == nil)
        #expect(mock.recordedRequests[1].nearMissReport?.contains("/b") == true)
        #expect(mock.recordedRequests[1].statusCode == 404)
    }

    @Test("requests(to:method:) filters by normalised path and method")
    func requestsTo() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/items", responses: [.empty(lifetime: .eternal)])
        _ = try await mock.urlSession.reply(request("https://example.com/items", method: "GET"))
        _ = try await mock.urlSession.reply(request("https://example.com/items/", method: "POST"))
        _ = try await mock.urlSession.reply(request("https://example.com/other", method: "POST"))

        #expect(mock.requests(to: "items").count == 2)
        #expect(mock.requests(to: "/items", method: .post).count == 1)
        #expect(mock.requests(to: "/items", method: .delete).isEmpty)
    }

    @Test("formParameters decode an urlencoded body")
    func formParameters() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/login", responses: [.empty()])
        _ = try await mock.urlSession.reply(
            request(
                "https://example.com/login", method: "POST",
                body: Data("user=alice&note=hi+there%21&empty=".utf8)))
        #expect(mock.recordedRequests.first?.request.formParameters == ["user": "alice", "note": "hi there!", "empty": ""])
    }

    @Test(
        "a long run: every entry in arrival order across the journal's chunks; a snapshot keeps its size; clearing a host keeps the rest in order"
    )
    func longRun() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/n/:id", host: "a.example.com", responses: [.plaintext("a", lifetime: .eternal)])
        mock.addResponses(forPath: "/n/:id", host: "b.example.com", responses: [.plaintext("b", lifetime: .eternal)])
        // 1,200 entries: several of the journal's 256-entry chunks, and a chunk half full.
        var snapshot: [RecordedRequest] = []
        for number in 0..<1_200 {
            let host = number.isMultiple(of: 2) ? "a" : "b"
            #expect(try await mock.urlSession.reply("https://\(host).example.com/n/\(number)").text == host)
            if number == 599 { snapshot = mock.recordedRequests }
        }
        let journal = mock.recordedRequests
        #expect(journal.count == 1_200)
        #expect(journal.map(\.request.pathParameters["id"]) == (0..<1_200).map { "\($0)" })
        #expect(journal.allSatisfy { $0.statusCode == 200 && $0.isMatched })
        #expect(snapshot.count == 600)
        #expect(snapshot.last?.request.url.absoluteString == "https://b.example.com/n/599")

        mock.clearQueue(forHost: "a.example.com")
        let rest = mock.recordedRequests
        #expect(rest.map(\.request.url.absoluteString) == stride(from: 1, to: 1_200, by: 2).map { "https://b.example.com/n/\($0)" })
        _ = try await mock.urlSession.reply("https://b.example.com/n/1200")
        #expect(mock.recordedRequests.count == 601)
        #expect(mock.recordedRequests.last?.request.pathParameters["id"] == "1200")
    }

    @Test("a response answered at once is journaled as served: exportHAR has its body, none for HEAD and 204")
    func servedAtOnce() async throws {
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mock = HTTPMock()
        mock.addResponses(forPath: "/text", responses: [.plaintext("hello", lifetime: .eternal)])
        mock.addResponses(forPath: "/gone", responses: [.empty(status: .noContent)])
        let before = Date()
        #expect(try await mock.urlSession.reply("https://example.com/text").text == "hello")
        let head = try await mock.urlSession.reply(request("https://example.com/text", method: "HEAD"))
        #expect(head.data.isEmpty && head.header("Content-Length") == "5")
        #expect(try await mock.urlSession.reply("https://example.com/gone").status == 204)

        let file = directory.appendingPathComponent("served.har")
        try mock.exportHAR(to: file)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let entries = try #require((root["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let responses = entries.compactMap { $0["response"] as? [String: Any] }
        #expect(responses.compactMap { $0["status"] as? Int } == [200, 200, 204])
        let contents = responses.compactMap { $0["content"] as? [String: Any] }
        #expect(contents.map { $0["text"] as? String } == ["hello", "", ""])
        #expect(contents.map { $0["size"] as? Int } == [5, 0, 0])
        #expect(mock.recordedRequests.allSatisfy { $0.date >= before && $0.statusCode != nil })
    }
}

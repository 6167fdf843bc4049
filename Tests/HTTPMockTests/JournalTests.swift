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
}

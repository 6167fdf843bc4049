import Foundation
import HTTPMock
import Testing

@Suite("Unmatched requests")
struct UnmockedTests {
    @Test("default: 404 text/plain 'No mock for GET https://host/path', journaled")
    func notFound() async throws {
        let mock = HTTPMock()
        let reply = try await mock.urlSession.reply(request("https://api.example.com/nothing?x=1", method: "DELETE"))
        #expect(reply.status == 404)
        #expect(reply.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(
            reply.text == """
                No mock for DELETE https://api.example.com/nothing?x=1
                No routes are registered on this HTTPMock instance.
                """)
        let entry = try #require(mock.recordedRequests.first)
        #expect(entry.isMatched == false)
        #expect(entry.route == nil)
        #expect(entry.statusCode == 404)
    }

    @Test(".fail(code) fails unmatched requests with that URLError")
    func fail() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .fail(.cannotConnectToHost)
        let error = await #expect(throws: URLError.self) {
            _ = try await mock.urlSession.reply("https://example.com/x")
        }
        #expect(error?.code == .cannotConnectToHost)
        #expect(mock.recordedRequests.first?.error is URLError)
    }

    @Test(".mock(response) answers every unmatched request")
    func mockPolicy() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .mock(.plaintext("fallback", status: .serviceUnavailable))
        for _ in 0..<3 {
            let reply = try await mock.urlSession.reply("https://example.com/anything")
            #expect(reply.status == 503)
            #expect(reply.text == "fallback")
        }
        #expect(mock.recordedRequests.count == 3)
        #expect(mock.recordedRequests.allSatisfy { !$0.isMatched && $0.statusCode == 503 })
    }
}

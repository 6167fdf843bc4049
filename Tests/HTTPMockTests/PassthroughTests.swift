import Foundation
import HTTPMock
import Testing

/// Passthrough against a real HTTP server on 127.0.0.1 that the test process starts itself.
@Suite("Passthrough to a real loopback server")
struct PassthroughTests {
    let server: TestServer

    init() async throws {
        server = try await TestServer.started()
    }

    @Test(".passthrough policy: unmatched requests reach the real server; status, headers and body are relayed")
    func passthroughPolicy() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .passthrough
        mock.addResponses(forPath: "/hello", host: "127.0.0.1", method: .post, responses: [.plaintext("mocked")])

        let real = try await mock.urlSession.reply("\(server.baseURL)/hello")
        #expect(real.status == 200)
        #expect(real.text == "hello from python")
        #expect(real.header("X-Server") == "python")

        let mocked = try await mock.urlSession.reply(request("\(server.baseURL)/hello", method: "POST"))
        #expect(mocked.text == "mocked")

        let teapot = try await mock.urlSession.reply("\(server.baseURL)/status/418")
        #expect(teapot.status == 418)
        #expect(teapot.text == "status 418")

        let journal = mock.recordedRequests
        #expect(journal.map(\.isMatched) == [false, true, false])
        #expect(journal.map(\.statusCode) == [200, 200, 418])
    }

    @Test("passthrough relays the method, headers and body of the request, including upload bodies")
    func passthroughForwardsRequest() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .passthrough
        let (data, _) = try await mock.urlSession.upload(
            for: request("\(server.baseURL)/echo?x=1", method: "PUT", headers: ["X-Token": "abc"]), from: Data("payload".utf8))
        let echo = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(echo?["method"] as? String == "PUT")
        #expect(echo?["path"] as? String == "/echo?x=1")
        #expect(echo?["body"] as? String == "payload")
        #expect((echo?["headers"] as? [String: String])?["x-token"] == "abc")
    }

    @Test("MockResponse.passthrough() sends one route to the network whatever the policy")
    func passthroughResponse() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/hello", host: "127.0.0.1", responses: [.passthrough(), .plaintext("second is mocked")])
        #expect(try await mock.urlSession.reply("\(server.baseURL)/hello").text == "hello from python")
        #expect(try await mock.urlSession.reply("\(server.baseURL)/hello").text == "second is mocked")
        #expect(try await mock.urlSession.reply("\(server.baseURL)/hello").status == 404)
    }

    @Test("passthrough relays transport errors")
    func passthroughRelaysErrors() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .passthrough
        // Port 9 (discard) on loopback: nothing listens there.
        let error = await #expect(throws: URLError.self) {
            _ = try await mock.urlSession.reply("http://127.0.0.1:9/nothing")
        }
        #expect(error?.code == .cannotConnectToHost)
        #expect(mock.recordedRequests.first?.error is URLError)
    }

    @Test("passthrough cookies land in the instance's cookie storage")
    func passthroughCookies() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .passthrough
        _ = try await mock.urlSession.reply("\(server.baseURL)/hello")
        #expect(mock.cookieStorage.cookies(for: url("\(server.baseURL)/"))?.map(\.name) == ["origin"])
    }

    @Test("the instance timeout bounds passthrough: a server that answers too late times out")
    func passthroughTimeout() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .passthrough
        mock.timeout = 0.5
        // The server answers after 30 s: an error at all, and .timedOut, show the timeout ended it.
        let error = await #expect(throws: URLError.self) {
            _ = try await mock.urlSession.reply("\(server.baseURL)/slow")
        }
        #expect(error?.code == .timedOut)
    }

    @Test("a custom passthroughSession is used")
    func customPassthroughSession() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-Via": "custom-session"]
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let mock = HTTPMock(passthroughSession: session)
        mock.unmockedPolicy = .passthrough
        let (data, _) = try await mock.urlSession.data(from: url("\(server.baseURL)/echo"))
        let echo = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect((echo?["headers"] as? [String: String])?["x-via"] == "custom-session")
    }
}

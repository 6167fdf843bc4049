import Foundation
import HTTPMock
import Testing

@Suite("Response factories")
struct ResponseTests {
    let mock = HTTPMock()

    func serve(_ response: MockResponse, _ path: String = "/r", method: String = "GET") async throws -> Reply {
        mock.addResponses(forPath: path, responses: [response])
        return try await mock.urlSession.reply(request("https://example.com\(path)", method: method))
    }

    @Test("encodable: JSON body, application/json, status and headers")
    func encodable() async throws {
        struct Item: Codable, Equatable { var id: Int }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        struct Snake: Encodable { var userId = 7 }
        let reply = try await serve(.encodable(Item(id: 3), status: .created, headers: ["X-Trace": "t1"]))
        #expect(reply.status == 201)
        #expect(reply.header("content-type") == "application/json")
        #expect(reply.header("X-Trace") == "t1")
        #expect(try JSONDecoder().decode(Item.self, from: reply.data) == Item(id: 3))

        let snake = try await serve(.encodable(Snake(), encoder: encoder), "/snake")
        #expect(snake.text == #"{"user_id":7}"#)
    }

    @Test("dictionary: JSON with sorted keys")
    func dictionary() async throws {
        let reply = try await serve(.dictionary(["b": 1, "a": ["x", "y"], "c": true]))
        #expect(reply.text == #"{"a":["x","y"],"b":1,"c":true}"#)
        #expect(reply.header("Content-Type") == "application/json")
    }

    @Test("json: raw text served as given")
    func json() async throws {
        let reply = try await serve(.json(#"{"k": 1}"#, status: 202))
        #expect(reply.status == 202)
        #expect(reply.text == #"{"k": 1}"#)
        #expect(reply.header("Content-Type") == "application/json")
    }

    @Test("plaintext: text/plain; charset=utf-8 and Content-Length")
    func plaintext() async throws {
        let reply = try await serve(.plaintext("héllo"))
        #expect(reply.text == "héllo")
        #expect(reply.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(reply.header("Content-Length") == "6")
    }

    @Test("a Content-Type given in headers wins over the default, in any case")
    func explicitContentTypeWins() async throws {
        let reply = try await serve(.json("[]", headers: ["content-type": "application/vnd.api+json"]))
        #expect(reply.header("Content-Type") == "application/vnd.api+json")
    }

    @Test("data: bytes with a content type, octet-stream by default")
    func data() async throws {
        let bytes = Data([0, 1, 2, 255])
        let png = try await serve(.data(bytes, contentType: "image/png"))
        #expect(png.data == bytes)
        #expect(png.header("Content-Type") == "image/png")
        let raw = try await serve(.data(bytes), "/raw")
        #expect(raw.header("Content-Type") == "application/octet-stream")
    }

    @Test("empty: no body, 200 by default (as in bstien/HTTPMock), any status")
    func empty() async throws {
        let ok = try await serve(.empty())
        #expect(ok.status == 200)
        #expect(ok.data.isEmpty)
        #expect(ok.header("Content-Length") == "0")
        let noContent = try await serve(.empty(status: .noContent), "/none")
        #expect(noContent.status == 204)
        #expect(noContent.data.isEmpty)
        let notFound = try await serve(.empty(status: .notFound), "/missing")
        #expect(notFound.status == 404)
        #expect(notFound.header("Content-Length") == "0")
    }

    @Test("status: integer literals and named constants")
    func statusLiterals() async throws {
        #expect(try await serve(.empty(status: 418)).status == 418)
        #expect(try await serve(.plaintext("x", status: .tooManyRequests), "/429").status == 429)
        #expect(HTTPStatus.internalServerError.code == 500)
        #expect(HTTPStatus.permanentRedirect == 308)
    }

    @Test("file(url:): body from disk, Content-Type from the extension")
    func fileURL() async throws {
        let json = try await serve(.file(url: Fixtures.url("user.json")))
        #expect(json.text == #"{"id":1,"name":"Ada"}"#)
        #expect(json.header("Content-Type") == "application/json")
        let png = try await serve(.file(url: Fixtures.url("pixel.png")), "/pixel")
        #expect(png.header("Content-Type") == "image/png")
        #expect(png.data == (try Data(contentsOf: Fixtures.url("pixel.png"))))
    }

    @Test("file(named:extension:in:): a bundle resource")
    func fileInBundle() async throws {
        let reply = try await serve(.file(named: "greeting", extension: "txt", in: .module))
        #expect(reply.text == "hello from a file\n")
        #expect(reply.header("Content-Type") == "text/plain; charset=utf-8")
    }

    @Test("failure: the request fails with the given error, unchanged")
    func failure() async throws {
        struct Teapot: Error, Equatable { var reason: String }
        mock.addResponses(forPath: "/offline", responses: [.failure(URLError(.notConnectedToInternet))])
        mock.addResponses(forPath: "/custom", responses: [.failure(Teapot(reason: "steam"))])

        let urlError = await #expect(throws: URLError.self) {
            _ = try await mock.urlSession.reply("https://example.com/offline")
        }
        #expect(urlError?.code == .notConnectedToInternet)
        let custom = await #expect(throws: Teapot.self) {
            _ = try await mock.urlSession.replyViaCompletionHandler(request("https://example.com/custom"))
        }
        #expect(custom == Teapot(reason: "steam"))
        #expect(mock.recordedRequests.map { $0.error is URLError } == [true, false])
    }

    @Test("HEAD gets the headers and Content-Length of the body, without the body")
    func headRequest() async throws {
        let reply = try await serve(.plaintext("twelve bytes"), method: "HEAD")
        #expect(reply.status == 200)
        #expect(reply.data.isEmpty)
        #expect(reply.header("Content-Length") == "12")
    }

    @Test(
        "a response answered at once inside startLoading and the same response through an exchange reach every task kind alike",
        arguments: [
            MockResponse.plaintext("hello", headers: ["X-Trace": "1"]), .empty(status: .noContent), .json(#"{"a":1}"#, status: .created),
        ])
    func answeredAtOnceOrThroughAnExchange(response: MockResponse) async throws {
        // `.delayed(0.001)` is the only difference: it sends the response through an exchange.
        var atOnce = response
        atOnce.lifetime = .eternal
        var throughExchange = atOnce
        throughExchange.delivery = .delayed(0.001)
        let mock = HTTPMock()
        mock.addResponses(forPath: "/now", responses: [atOnce])
        mock.addResponses(forPath: "/later", responses: [throughExchange])
        for method in ["GET", "HEAD"] {
            let now = try await mock.urlSession.reply(request("https://example.com/now", method: method))
            let later = try await mock.urlSession.reply(request("https://example.com/later", method: method))
            #expect(now.status == later.status)
            #expect(now.data == later.data)
            #expect(now.response.allHeaderFields as? [String: String] == later.response.allHeaderFields as? [String: String])
            let viaHandler = try await mock.urlSession.replyViaCompletionHandler(request("https://example.com/now", method: method))
            #expect(viaHandler.data == now.data && viaHandler.status == now.status)
        }
        let delegate = RecordingDelegate()
        let session = mock.delegateSession(delegate)
        session.dataTask(with: url("https://example.com/now")).resume()
        await delegate.completion()
        let expected = try await mock.urlSession.reply("https://example.com/later")
        #expect(delegate.error == nil)
        #expect(delegate.response?.statusCode == expected.status)
        #expect(delegate.body == expected.data)
        #expect(mock.recordedRequests.allSatisfy { $0.isMatched && $0.statusCode == expected.status })
        session.finishTasksAndInvalidate()
    }
}

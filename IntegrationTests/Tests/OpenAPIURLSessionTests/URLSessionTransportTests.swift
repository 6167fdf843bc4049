import Foundation
import HTTPMock
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession
import Testing

/// `URLSessionTransport` from apple/swift-openapi-urlsession — what every OpenAPI-generated
/// client uses — built on a session from `mock.makeSessionConfiguration()`. On Linux the
/// transport uses its buffering implementation (`data(for:)`/upload tasks).
@Suite("swift-openapi-urlsession's URLSessionTransport through HTTPMock")
struct URLSessionTransportTests {
    let mock = HTTPMock()
    let transport: URLSessionTransport
    let baseURL = URL(string: "https://api.example.com/v1")!

    init() {
        mock.logHandler = nil
        let session = URLSession(configuration: mock.makeSessionConfiguration())
        transport = URLSessionTransport(configuration: .init(session: session))
    }

    func send(
        _ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:], body: HTTPBody? = nil
    ) async throws -> (HTTPResponse, Data) {
        let request = HTTPRequest(method: method, scheme: nil, authority: nil, path: path, headerFields: headers)
        let (response, responseBody) = try await transport.send(request, body: body, baseURL: baseURL, operationID: "test")
        var data = Data()
        if let responseBody {
            data = try await Data(collecting: responseBody, upTo: .max)
        }
        return (response, data)
    }

    @Test("a JSON GET: status, headers and body")
    func getJSON() async throws {
        mock.addResponses(
            forPath: "/v1/users/42", host: "api.example.com", method: .get,
            responses: [
                .json(#"{"id":42,"name":"Ada"}"#, headers: ["X-Request-ID": "abc"])
            ])
        let (response, data) = try await send(.get, "/users/42", headers: [.accept: "application/json"])
        #expect(response.status == .ok)
        #expect(response.headerFields[.contentType] == "application/json")
        #expect(response.headerFields[HTTPField.Name("X-Request-ID")!] == "abc")
        #expect(String(decoding: data, as: UTF8.self) == #"{"id":42,"name":"Ada"}"#)
        #expect(mock.recordedRequests.first?.request.headers["Accept"] == "application/json")
        #expect(mock.verify().isEmpty)
    }

    @Test("a POST with a JSON body: the body reaches matchers and the journal")
    func postBody() async throws {
        mock.registerResponses {
            Host("api.example.com") {
                Path("/v1/users", method: .post, body: .jsonContains(["name": "Grace"])) {
                    MockResponse.json(#"{"id":43,"name":"Grace"}"#, status: .created)
                }
            }
        }
        let (response, data) = try await send(
            .post, "/users", headers: [.contentType: "application/json"],
            body: HTTPBody(#"{"name":"Grace","role":"admiral"}"#))
        #expect(response.status == .created)
        #expect(String(decoding: data, as: UTF8.self).contains("Grace"))
        let body = try #require(mock.recordedRequests.first?.request.body)
        #expect(String(decoding: body, as: UTF8.self) == #"{"name":"Grace","role":"admiral"}"#)
    }

    @Test("a large response (5 MB from a file) arrives whole")
    func largeResponse() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-it-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("large.bin")
        let payload = Data((0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 >> 8) })
        try payload.write(to: file)
        mock.addResponses(forPath: "/v1/blob", host: "api.example.com", responses: [.file(url: file)])

        let (response, data) = try await send(.get, "/blob")
        #expect(response.status == .ok)
        #expect(response.headerFields[.contentLength] == String(payload.count))
        #expect(data == payload)
    }

    @Test("error statuses come back as responses, with their bodies", arguments: [400, 401, 404, 409, 429, 500, 503])
    func errorStatuses(status: Int) async throws {
        mock.addResponses(
            forPath: "/v1/thing", host: "api.example.com",
            responses: [
                .json(#"{"error":"status \#(status)"}"#, status: HTTPStatus(status))
            ])
        let (response, data) = try await send(.get, "/thing")
        #expect(response.status.code == status)
        #expect(String(decoding: data, as: UTF8.self) == #"{"error":"status \#(status)"}"#)
    }

    @Test("a transport failure surfaces as an error from the transport")
    func transportFailure() async throws {
        mock.addResponses(forPath: "/v1/offline", host: "api.example.com", responses: [.failure(URLError(.notConnectedToInternet))])
        await #expect(throws: (any Error).self) {
            _ = try await send(.get, "/offline")
        }
    }

    @Test("query items and path parameters through a dynamic response")
    func dynamic() async throws {
        mock.addResponses(
            forPath: "/v1/users/:id/posts", host: "api.example.com",
            responses: [
                .dynamic { request in
                    let page = request.queryItems.first { $0.name == "page" }?.value ?? "?"
                    return .json(#"{"user":"\#(request.pathParameters["id"] ?? "?")","page":\#(page)}"#)
                }
            ])
        let (_, data) = try await send(.get, "/users/7/posts?page=3")
        #expect(String(decoding: data, as: UTF8.self) == #"{"user":"7","page":3}"#)
    }

    @Test("an unmatched request gets the near-miss report as its 404 body")
    func unmatched() async throws {
        mock.addResponses(forPath: "/v1/users", host: "api.example.com", method: .post, responses: [.empty(status: .created)])
        let (response, data) = try await send(.get, "/users")
        #expect(response.status == .notFound)
        #expect(String(decoding: data, as: UTF8.self).contains("method: expected POST, got GET"))
    }
}

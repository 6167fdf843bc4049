#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import HTTPMock
@testable import HTTPMockServer
import Testing

/// Sends `method path` with `body` to `server`; status and body.
private func regexExchange(
    _ server: HTTPMockServer, _ method: String, _ path: String, body: String? = nil
) async throws -> (status: Int, text: String) {
    var request = URLRequest(url: URL(string: server.baseURL.absoluteString + path)!)
    request.httpMethod = method
    request.httpBody = body.map { Data($0.utf8) }
    if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
    let (data, response) = try await makePlainSession().data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    return (http.statusCode, String(decoding: data, as: UTF8.self))
}

/// Many regular-expression mappings filed by their literals (issue 46), and the mapping-level
/// fixes of issue 43.
@Suite("WireMock: regex mappings filed by their literals; issue 43", .serialized, .timeLimit(.minutes(2)))
struct WireMockRegexIndexTests {
    @Test("1,000 urlPathPattern mappings without distinct prefixes: each path finds its own; the newest of equals wins; priority first")
    func manyPatternsKeepTheirOrder() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        try await serving(mock, admin: true) { (server: HTTPMockServer) async throws in
            for number in 0..<1_000 {
                let mapping =
                    #"{"request": {"urlPathPattern": "/api/v[0-9]+/items/[a-z]+-\#(number)"}, "response": {"body": "m\#(number)"}}"#
                #expect(try await regexExchange(server, "POST", "/__admin/mappings", body: mapping).status == 201)
            }
            for number in [0, 1, 9, 10, 99, 100, 500, 999] {
                #expect(try await regexExchange(server, "GET", "/api/v3/items/xyz-\(number)").text == "m\(number)")
            }
            #expect(try await regexExchange(server, "GET", "/api/v3/items/xyz-1000").status == 404)
            #expect(try await regexExchange(server, "GET", "/api/v3/items/XYZ-5").status == 404)
            // Two patterns that both match, filed under different literals: the newer answers (WireMock's order)…
            let wide = #"{"request": {"urlPathPattern": "/api/v[0-9]+/.*-7"}, "response": {"body": "wide"}}"#
            #expect(try await regexExchange(server, "POST", "/__admin/mappings", body: wide).status == 201)
            #expect(try await regexExchange(server, "GET", "/api/v3/items/xyz-7").text == "wide")
            #expect(try await regexExchange(server, "GET", "/api/v3/items/xyz-8").text == "m8")
            // … a literal URL newer still answers before both; a priority beats the newest.
            let literal = #"{"request": {"urlPath": "/api/v3/items/xyz-7"}, "response": {"body": "literal"}}"#
            #expect(try await regexExchange(server, "POST", "/__admin/mappings", body: literal).status == 201)
            #expect(try await regexExchange(server, "GET", "/api/v3/items/xyz-7").text == "literal")
            let preferred =
                #"{"priority": 1, "request": {"urlPathPattern": "/api/v[0-9]+/items/[a-z]+-[0-9]"}, "response": {"body": "priority"}}"#
            #expect(try await regexExchange(server, "POST", "/__admin/mappings", body: preferred).status == 201)
            #expect(try await regexExchange(server, "GET", "/api/v3/items/xyz-7").text == "priority")
            #expect(try await regexExchange(server, "GET", "/api/v3/items/xyz-70").text == "m70")
            // urlPattern: path and query; a literal split by `?`.
            let query = #"{"request": {"urlPattern": "/search\\?q=[a-z]+&page=2"}, "response": {"body": "page two"}}"#
            #expect(try await regexExchange(server, "POST", "/__admin/mappings", body: query).status == 201)
            #expect(try await regexExchange(server, "GET", "/search?q=abc&page=2").text == "page two")
            #expect(try await regexExchange(server, "GET", "/search?q=abc&page=3").status == 404)
        }
    }

    @Test("urlPathTemplate + pathParameters: 200 templates filed by their parameters' literals, each path finds its own")
    func templatesFiledByParameters() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        try await serving(mock, admin: true) { (server: HTTPMockServer) async throws in
            for number in 0..<200 {
                let matcher = number % 2 == 0 ? #"{"matches": "[a-z]+-\#(number)"}"# : #"{"equalTo": "id-\#(number)"}"#
                let mapping =
                    #"{"request": {"urlPathTemplate": "/items/{id}", "pathParameters": {"id": \#(matcher)}}, "response": {"body": "t\#(number)"}}"#
                #expect(try await regexExchange(server, "POST", "/__admin/mappings", body: mapping).status == 201)
            }
            #expect(try await regexExchange(server, "GET", "/items/abc-42").text == "t42")
            #expect(try await regexExchange(server, "GET", "/items/ab%63-42").text == "t42")
            #expect(try await regexExchange(server, "GET", "/items/id-43").text == "t43")
            #expect(try await regexExchange(server, "GET", "/items/abc-43").status == 404)
            #expect(try await regexExchange(server, "GET", "/items/ID-42").status == 404)
        }
    }

    @Test("43.3: a look-around whose lengths overflow is refused naming the field (422, as every mapping error), never a trap")
    func overflowingLookAroundIsRefused() async throws {
        let pattern = #"/x(?=((((a{100000}){100000}){100000}){100000}))"#
        let mock = HTTPMock()
        mock.logHandler = nil
        try await serving(mock, admin: true) { (server: HTTPMockServer) async throws in
            let url = #"{"request": {"urlPattern": "\#(pattern)"}, "response": {}}"#
            let refused = try await regexExchange(server, "POST", "/__admin/mappings", body: url)
            #expect(refused.status == 422)
            #expect(refused.text.contains("/request/urlPattern"), "\(refused.text)")
            let body = #"{"request": {"urlPath": "/x", "bodyPatterns": [{"matches": "\#(pattern)"}]}, "response": {}}"#
            let refusedBody = try await regexExchange(server, "POST", "/__admin/mappings", body: body)
            #expect(refusedBody.status == 422)
            #expect(refusedBody.text.contains("/request/bodyPatterns/0/matches"), "\(refusedBody.text)")
            #expect(try await regexExchange(server, "GET", "/x").status == 404)
        }
        let root = try temporaryWireMockRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(#"{"request": {"urlPattern": "\#(pattern)"}, "response": {}}"#.utf8)
            .write(to: root.appendingPathComponent("mappings/huge.json"))
        let error = #expect(throws: HTTPMockError.self) { try HTTPMock().loadWireMock(from: root) }
        #expect(error?.message.contains("huge.json") == true, "\(String(describing: error))")
        #expect(error?.message.contains("/request/urlPattern") == true, "\(String(describing: error))")
    }

    @Test("43.21: a linear body pattern matches a 300 KB body")
    func linearPatternMatchesLongBody() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        try await serving(mock, admin: true) { (server: HTTPMockServer) async throws in
            let mapping =
                #"{"request": {"method": "POST", "urlPath": "/upload", "bodyPatterns": [{"matches": "(?s).*"}, {"matches": "[a-z]+"}]}, "response": {"body": "stored"}}"#
            #expect(try await regexExchange(server, "POST", "/__admin/mappings", body: mapping).status == 201)
            let answer = try await regexExchange(server, "POST", "/upload", body: String(repeating: "abcdefghij", count: 30_000))
            #expect(answer.status == 200 && answer.text == "stored", "\(answer.status)")
        }
    }
}
#endif

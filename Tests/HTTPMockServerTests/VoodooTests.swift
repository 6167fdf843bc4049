#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

/// The Voodoo fixtures beside this file.
let voodooFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("VoodooFixtures")

/// A folder of Voodoo files written by a test: name → content.
func makeVoodooFolder(_ files: [String: String]) throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-voodoo-\(UUID().uuidString)")
    for (name, content) in files {
        let url = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(content.utf8).write(to: url)
    }
    return root
}

/// One request through `session`: status, headers and body text.
func voodooRequest(
    _ session: URLSession, _ url: URL, method: String = "GET", body: String? = nil, contentType: String = "application/json"
) async throws -> (status: Int, headers: [AnyHashable: Any], text: String) {
    var request = URLRequest(url: url)
    request.httpMethod = method
    if let body {
        request.httpBody = Data(body.utf8)
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
    }
    let (data, response) = try await session.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    return (http.statusCode, http.allHeaderFields, String(decoding: data, as: UTF8.self))
}

@Suite("Voodoo files in process: loadVoodoo through a real URLSession", .serialized, .timeLimit(.minutes(1)))
struct VoodooTests {
    func loadedMock() throws -> HTTPMock {
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadVoodoo(
            from: voodooFixtures.appendingPathComponent("config/endpoints.yml"),
            templateDirectory: voodooFixtures.appendingPathComponent("templates"),
            fileDirectories: [voodooFixtures.appendingPathComponent("files")])
        return mock
    }

    @Test("every static form answers: text, JSON with Voodoo's names, YAML, file, template, redirect, include")
    func staticForms() async throws {
        let mock = try loadedMock()
        mock.store["plan"] = "gold"
        mock.store["team"] = "core"
        let session = mock.urlSession
        let base = URL(string: "https://api.example.com")!

        let hello = try await voodooRequest(session, base.appendingPathComponent("hello"))
        #expect(hello.status == 200 && hello.text == "Hello world")
        let user = try await voodooRequest(session, base.appendingPathComponent("users/42"))
        let json = try JSONDecoder().decode([String: String].self, from: Data(user.text.utf8))
        #expect(json == ["id": "42", "server": "api.example.com", "plan": "gold"])
        #expect(user.headers["X-Served-By"] as? String == "voodoo")
        let yaml = try await voodooRequest(session, base.appendingPathComponent("config.yaml"))
        #expect(yaml.text.contains("name: demo") && (yaml.headers["Content-Type"] as? String)?.contains("yaml") == true)
        let data = try await voodooRequest(session, base.appendingPathComponent("data"))
        #expect(data.text.contains(#""items": [1, 2, 3]"#))
        let profile = try await voodooRequest(session, base.appendingPathComponent("profile/7"))
        #expect(profile.status == 201 && profile.text == #"{"id":"7","role":"admin","team":"core"}"#)
        let old = try await voodooRequest(session, base.appendingPathComponent("old"))
        #expect(old.status == 200 && old.text == "Hello world")  // HTTPMock follows the 301 in process
        let included = try await voodooRequest(session, base.appendingPathComponent("included"), method: "DELETE")
        #expect(included.status == 204)
        #expect(mock.describeRoutes().contains("endpoints.yml"))
    }

    @Test("a GraphQL query selector matches a request whose document contains the endpoint's")
    func graphQLQuery() async throws {
        let mock = try loadedMock()
        let url = URL(string: "https://api.example.com/graphql")!
        let matching = ##"{"query":"# a comment\nquery Hero { hero { id name } }"}"##
        let hit = try await voodooRequest(mock.urlSession, url, method: "POST", body: matching)
        #expect(hit.status == 200 && hit.text.contains("R2-D2"))
        let other = #"{"query":"query Hero { villain { name } }"}"#
        let miss = try await voodooRequest(mock.urlSession, url, method: "POST", body: other)
        #expect(miss.status == 404)
    }

    @Test("a GraphQL operations selector over GET matches a document that defines every named operation")
    func graphQLOperations() async throws {
        let mock = try loadedMock()
        func get(_ document: String) async throws -> (status: Int, headers: [AnyHashable: Any], text: String) {
            var components = URLComponents(string: "https://api.example.com/graphql")!
            components.queryItems = [URLQueryItem(name: "query", value: document), URLQueryItem(name: "operationName", value: "Villains")]
            return try await voodooRequest(mock.urlSession, components.url!)
        }
        let both = try await get("query Heroes { heroes { name } }\nquery Villains { villains { name } }")
        #expect(both.status == 200 && both.text.contains("Vader"))
        let one = try await get("query Villains { villains { name } }")
        #expect(one.status == 404)
        let post = try await voodooRequest(
            mock.urlSession, URL(string: "https://api.example.com/graphql")!, method: "POST",
            body: #"{"query":"query Heroes { heroes { name } } query Villains { villains { name } }"}"#)
        #expect(post.status == 404)  // the endpoint is GET's
    }

    @Test("a missing file, an include cycle, a wrong api, a YAML syntax error: errors naming file, line and key; nothing registered")
    func badFiles() throws {
        let cases: [(files: [String: String], expected: [String])] = [
            (["a.yml": "http:\n  api: get /a\nresponse:\n  status: 200\n  body:\n    file: nowhere.json\n"], ["a.yml:6", "nowhere.json"]),
            (["a.yml": "- b.yml\n", "b.yml": "- a.yml\n"], ["include cycle", "a.yml → b.yml → a.yml"]),
            (["a.yml": "- http:\n    api: get/a\n  response:\n    status: 200\n"], ["a.yml:2", "api", "get/a"]),
            (["a.yml": "http:\n  api: get /a\nresponse:\n  status: [200\n"], ["a.yml", "line 5", "not valid YAML"]),
            (["a.yml": "http:\n  api: get /a\njavascriptFile: missing.js\n"], ["a.yml:3", "missing.js"]),
            (["a.yml": "http:\n  api: get /a\nresponse:\n  status: 200\n  bogus: 1\n"], ["a.yml:5", "response.bogus"]),
        ]
        for (files, expected) in cases {
            let folder = try makeVoodooFolder(files)
            defer { try? FileManager.default.removeItem(at: folder) }
            let mock = HTTPMock()
            let error = try #require(throws: HTTPMockError.self) { try mock.loadVoodoo(from: folder) }
            for part in expected { #expect(error.message.contains(part), "\(part) not in: \(error.message)") }
            #expect(mock.describeRoutes().isEmpty)
        }
    }

    @Test("PUT /_admin/delay/:seconds sets defaultDelay")
    func adminDelay() async throws {
        let mock = try loadedMock()
        let reply = try await voodooRequest(mock.urlSession, URL(string: "https://api.example.com/_admin/delay/0.25")!, method: "PUT")
        #expect(reply.status == 200)
        #expect(mock.defaultDelay == 0.25)
    }
}
#endif

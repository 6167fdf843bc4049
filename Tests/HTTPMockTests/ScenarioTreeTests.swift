import Foundation
import HTTPMock
import Testing

@Suite("configuration.json: scenario, required_state, new_state and template")
struct ScenarioTreeTests {
    let mock = HTTPMock()

    init() {
        mock.logHandler = nil
    }

    func write(_ files: [String: String]) throws -> URL {
        let root = try Fixtures.scratchDirectory()
        for (path, contents) in files {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: file)
        }
        return root
    }

    func loadError(_ files: [String: String]) throws -> String {
        let root = try write(files)
        defer { try? FileManager.default.removeItem(at: root) }
        do {
            try mock.loadMocks(from: root)
            return "loaded"
        } catch let error as HTTPMockError {
            return error.message
        }
    }

    @Test("the checkout example as a folder tree; one array, one route per required_state")
    func checkoutTree() async throws {
        let root = try write([
            "cart/GET/configuration.json": """
            [{"scenario": "checkout", "required_state": "started", "response_file": "empty.json", "lifetime": "eternal"},
             {"scenario": "checkout", "required_state": "filled", "response_file": "filled.json", "lifetime": "eternal"}]
            """,
            "cart/GET/empty.json": "[]",
            "cart/GET/filled.json": #"[{"sku":1}]"#,
            "cart/POST/configuration.json": """
            {"scenario": "checkout", "required_state": "started", "new_state": "filled", "status_code": 201}
            """,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        try mock.loadMocks(from: root)
        #expect(mock.describeRoutes().components(separatedBy: "\n").count == 3)
        #expect(try await mock.urlSession.reply("https://example.com/cart").text == "[]")
        #expect(try await mock.urlSession.reply(request("https://example.com/cart", method: "POST")).status == 201)
        #expect(mock.state(of: "checkout") == "filled")
        #expect(try await mock.urlSession.reply("https://example.com/cart").text == #"[{"sku":1}]"#)
        #expect(try await mock.urlSession.reply(request("https://example.com/cart", method: "POST")).status == 404)
    }

    @Test("\"template\": true renders the response file per request")
    func templateFile() async throws {
        let root = try write([
            "users/:id/GET/configuration.json": #"{"response_file": "user.json", "template": true, "lifetime": "eternal"}"#,
            "users/:id/GET/user.json": #"{"id":"{{request.pathParameters.id}}","name":"{{store.name}}"}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        try mock.loadMocks(from: root, host: "api.example.com")
        mock.store["name"] = "Ada"
        let reply = try await mock.urlSession.reply("https://api.example.com/users/7")
        #expect(reply.text == #"{"id":"7","name":"Ada"}"#)
        #expect(reply.header("Content-Type") == "application/json")
    }

    @Test("wrong types and missing partners are precise errors; nothing registered")
    func errors() throws {
        let config = "a/GET/configuration.json"
        #expect(
            try loadError([config: #"{"scenario": 1}"#]).hasSuffix(
                "configuration.json: scenario must be a non-empty string, got the number 1"))
        #expect(
            try loadError([config: #"[{}, {"scenario": "s", "new_state": ""}]"#])
                .hasSuffix(#"configuration.json, entry [1]: new_state must be a non-empty string, got the string """#))
        #expect(
            try loadError([config: #"{"required_state": "x"}"#])
                .hasSuffix(#"configuration.json: required_state needs a "scenario" naming the scenario it belongs to"#))
        #expect(
            try loadError([config: #"{"template": "yes", "response_file": "t.txt"}"#, "a/GET/t.txt": ""])
                .hasSuffix(#"configuration.json: template must be true or false, got the string "yes""#))
        #expect(
            try loadError([config: #"{"template": true}"#])
                .hasSuffix(#"configuration.json: "template": true needs a response_file holding the template"#))
        #expect(
            try loadError([config: #"{"template": true, "response_file": "t.txt"}"#, "a/GET/t.txt": "x\n{{#request.query.a}}"])
                .hasSuffix(
                    #"configuration.json: response_file "t.txt": MockResponse.template: 2:1: {{#request.query.a}} is never closed with {{/request.query.a}}"#
                ))
        #expect(
            try loadError([config: #"{"template": true, "response_file": "t.txt"}"#, "a/GET/t.txt": "{{who}}"])
                .contains(#"unknown name "who""#))
        #expect(mock.describeRoutes().isEmpty)
    }
}

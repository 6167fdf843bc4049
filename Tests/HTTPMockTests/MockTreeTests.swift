import Foundation
import HTTPMock
import Testing

@Suite("Mocks kept as a folder tree")
struct MockTreeTests {
    static var bundledTree: URL {
        get throws { try #require(Bundle.module.url(forResource: "Mocks", withExtension: nil)) }
    }

    let mock = HTTPMock()

    init() {
        mock.logHandler = nil
    }

    @Test("the bundled tree (a SwiftPM .copy resource) serves every rule")
    func bundledTreeServes() async throws {
        try mock.loadMocks(from: try Self.bundledTree, host: "api.example.com")
        let session = mock.urlSession

        let users = try await session.reply("https://api.example.com/users")
        #expect(users.text == #"[{"id":1,"name":"Ada"},{"id":2,"name":"Grace"}]"#)
        #expect(users.header("Content-Type") == "application/json")

        let user = try await session.reply("https://api.example.com/users/1")
        #expect(user.text == #"{"id":1,"name":"Ada"}"#)
        #expect(user.header("X-Source") == "tree")
        #expect(mock.recordedRequests.last?.request.pathParameters == ["id": "1"])

        #expect(try await session.reply(request("https://api.example.com/users/1", method: "DELETE")).status == 204)

        // Polling: two "running", then "done" for ever.
        var states: [String] = []
        for _ in 0..<4 { states.append(try await session.reply("https://api.example.com/jobs/42").text) }
        #expect(states == [#"{"state":"running"}"#, #"{"state":"running"}"#, #"{"state":"done"}"#, #"{"state":"done"}"#])

        let start = Date()
        let slow = try await session.reply("https://api.example.com/slow")
        #expect(Date().timeIntervalSince(start) >= 0.2)
        #expect(slow.status == 202)
        #expect(slow.header("Content-Type") == "text/plain; charset=utf-8")

        let image = try await session.reply("https://api.example.com/images/logo")
        #expect(image.header("Content-Type") == "image/png")
        #expect(image.data == (try Data(contentsOf: Fixtures.url("pixel.png"))))

        let health = try await session.reply("https://api.example.com/internal/v2/health")
        #expect(health.header("Content-Type") == "application/health+json")
        #expect(try await session.reply("https://api.example.com/health").text == #"{"status":"ok"}"#)

        #expect(try await session.reply("https://other.example.com/users").status == 404)
    }

    @Test("host: nil matches any host")
    func anyHost() async throws {
        try mock.loadMocks(from: try Self.bundledTree)
        #expect(try await mock.urlSession.reply("https://whatever.test/users/7").status == 200)
        #expect(try await mock.urlSession.reply("http://localhost:8080/users").status == 200)
    }

    @Test("describeRoutes lists one line per route with its queue and configuration file")
    func describeRoutes() throws {
        try mock.loadMocks(from: try Self.bundledTree, host: "api.example.com")
        let lines = mock.describeRoutes().split(separator: "\n").map(String.init)
        #expect(lines == [
            "GET api.example.com/**/health — 1 response queued, the last .eternal (**/health/GET/configuration.json:1)",
            "GET api.example.com/images/* — 1 response queued, the last .eternal (images/*/GET/configuration.json:1)",
            "GET api.example.com/jobs/42 — 2 responses queued, the last .eternal (jobs/42/GET/configuration.json:1)",
            "GET api.example.com/slow — 1 response queued (slow/GET/configuration.json:1)",
            // Folders are read in name order, and ":" sorts before "G".
            "GET api.example.com/users/:id — 1 response queued (users/:id/GET/configuration.json:1)",
            "DELETE api.example.com/users/:id — 1 response queued (users/:id/delete/configuration.json:1)",
            "GET api.example.com/users — 1 response queued (users/GET/configuration.json:1)",
        ])
    }

    // MARK: - Errors: one per kind, each naming the file, each registering nothing

    /// Builds a tree with one good route plus `files`, loads it, and returns the error message
    /// after checking that nothing was registered.
    func loadError(_ files: [String: String], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> String {
        let root = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        var all = files
        all["good/GET/configuration.json"] = #"{"status_code": 200}"#
        for (path, content) in all {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(content.utf8).write(to: url)
        }
        do {
            try mock.loadMocks(from: root, host: "api.example.com")
            Issue.record("loading succeeded", sourceLocation: sourceLocation)
            return ""
        } catch {
            #expect(error.code == .mockTree, sourceLocation: sourceLocation)
            #expect(mock.describeRoutes().isEmpty, "something was registered", sourceLocation: sourceLocation)
            return error.message.replacingOccurrences(of: root.path, with: "<root>")
        }
    }

    @Test("an unknown method folder")
    func unknownMethod() throws {
        let message = try loadError(["users/FETCH/configuration.json": "{}"])
        #expect(message.contains("<root>/users/FETCH/configuration.json: the folder holding a configuration.json names the HTTP method"))
        #expect(message.contains("not \"FETCH\""))
    }

    @Test("malformed JSON, with path, line and column")
    func malformedJSON() throws {
        let message = try loadError(["users/GET/configuration.json": "{\n  \"status_code\": 200,\n  \"headers\" {\"a\": \"b\"}\n}"])
        #expect(message.contains("<root>/users/GET/configuration.json:3:13: malformed JSON"))
    }

    @Test("an unknown key")
    func unknownKey() throws {
        let message = try loadError(["users/GET/configuration.json": #"{"status": 404}"#])
        #expect(message == #"loadMocks: <root>/users/GET/configuration.json: unknown key "status" (known keys: delay, headers, lifetime, response_file, status_code)"#)
    }

    @Test("a value of the wrong type, in the second response of an array")
    func wrongType() throws {
        let message = try loadError(["users/GET/configuration.json": #"[{"status_code": 200}, {"status_code": "404"}]"#])
        #expect(message.contains("configuration.json, response 2: \"status_code\" must be an HTTP status from 100 to 599, not 404"))
        let lifetime = try loadError(["jobs/GET/configuration.json": #"{"lifetime": "forever"}"#])
        #expect(lifetime.contains("\"lifetime\" must be \"single\", \"eternal\" or a count ≥ 1"))
    }

    @Test("a missing response file")
    func missingResponseFile() throws {
        let message = try loadError(["users/GET/configuration.json": #"{"response_file": "nope.json"}"#])
        #expect(message == #"loadMocks: <root>/users/GET/configuration.json: response_file "nope.json" does not exist (looked for <root>/users/GET/nope.json)"#)
    }

    @Test("a method folder without configuration.json")
    func methodFolderWithoutConfiguration() throws {
        let message = try loadError(["users/POST/body.json": "{}"])
        #expect(message == "loadMocks: the method folder <root>/users/POST has no configuration.json")
    }

    @Test("a malformed pattern folder")
    func malformedPattern() throws {
        let message = try loadError(["files/***/GET/configuration.json": "{}"])
        #expect(message.contains("nothing was registered"))
        #expect(message.contains("<root>/files/***/GET/configuration.json"))
        #expect(message.contains("\"***\" is not a pattern"))
    }

    @Test("an unreadable root: missing, or a file")
    func unreadableRoot() throws {
        #expect {
            try mock.loadMocks(from: URL(fileURLWithPath: "/no/such/mocks"))
        } throws: { error in
            (error as? HTTPMockError)?.message == "loadMocks: there is no folder at /no/such/mocks"
        }
        #expect {
            try mock.loadMocks(from: Fixtures.url("user.json"))
        } throws: { error in
            (error as? HTTPMockError)?.message.hasSuffix("user.json is a file, not a folder of mocks") == true
        }
    }
}

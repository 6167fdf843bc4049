import Foundation
import HTTPMock
import Testing

/// `loadHAR`: browser-shaped archives, recorded order, bodies, errors, speed.
@Suite("HAR: loading archives")
struct HARLoadTests {
    static func sample(_ name: String) -> URL {
        guard let url = Bundle.module.url(forResource: name, withExtension: "har", subdirectory: "Fixtures/HAR") else {
            preconditionFailure("missing HAR sample \(name)")
        }
        return url
    }

    @Test("a Chrome export loads: text and base64 bodies, postData, transfer headers dropped, status 0 fails")
    func chromeExport() async throws {
        let mock = HTTPMock()
        try mock.loadHAR(from: Self.sample("chrome"))

        let users = try await mock.urlSession.reply("https://api.example.com/users?page=1")
        #expect(users.status == 200)
        #expect(users.text == #"[{"id":1,"name":"Ada"}]"#)
        #expect(users.header("Content-Type") == "application/json")
        #expect(users.header("x-request-id") == "abc")
        #expect(users.header("Content-Encoding") == nil)  // the recorded wire was gzip; the body is not
        #expect(users.header("Content-Length") == String(users.data.count))

        let pixel = try await mock.urlSession.reply("https://cdn.example.com/img/pixel.png")
        #expect(pixel.data == (try Data(contentsOf: Fixtures.url("pixel.png"))))
        #expect(pixel.header("Content-Type") == "image/png")

        let created = try await mock.urlSession.reply(
            request("https://api.example.com/users", method: "POST", body: Data(#"{"name":"Bob"}"#.utf8)))
        #expect(created.status == 201)
        #expect(created.text == #"{"id":2,"name":"Bob"}"#)

        await #expect(throws: URLError.self) { try await mock.urlSession.reply("https://api.example.com/analytics") }
    }

    @Test("the query is matched exactly: another page, an extra or a missing item is not the recorded request")
    func exactQuery() async throws {
        let mock = HTTPMock()
        try mock.loadHAR(from: Self.sample("chrome"))
        #expect(try await mock.urlSession.reply("https://api.example.com/users?page=2").status == 404)
        #expect(try await mock.urlSession.reply("https://api.example.com/users?page=1&extra=1").status == 404)
        #expect(try await mock.urlSession.reply("https://api.example.com/users").status == 404)
        #expect(try await mock.urlSession.reply("https://api.example.com/users?page=1").status == 200)
    }

    @Test("identical requests are served in recorded order, the last one forever (a Firefox export)")
    func recordedOrder() async throws {
        let mock = HTTPMock()
        try mock.loadHAR(from: Self.sample("firefox"))
        var states: [String] = []
        for _ in 0..<5 {
            states.append(try await mock.urlSession.reply("https://api.example.com/jobs/42").text)
        }
        #expect(
            states == [
                #"{"state":"queued"}"#, #"{"state":"running"}"#, #"{"state":"done"}"#,
                #"{"state":"done"}"#, #"{"state":"done"}"#,
            ])
        let first = try await mock.urlSession.reply("https://api.example.com/jobs/42")
        #expect(first.header("Set-Cookie") == "a=1; Path=/, b=2; Path=/")  // repeated fields joined
        #expect(first.header("Transfer-Encoding") == nil)

        let deleted = try await mock.urlSession.reply(request("https://api.example.com/jobs/42/log", method: "DELETE"))
        #expect(deleted.status == 204)
        #expect(deleted.data.isEmpty)
        #expect(mock.pendingResponses.isEmpty)
    }

    @Test("a Safari export with missing optional fields loads; pattern characters in paths are literal; ports are kept")
    func safariExport() async throws {
        let mock = HTTPMock()
        try mock.loadHAR(from: Self.sample("safari"))
        let search = try await mock.urlSession.reply("https://api.example.com/search?q=swift%20testing&tag=a&tag=b")
        #expect(search.text == "two results")
        #expect(try await mock.urlSession.reply("https://api.example.com/search?q=swift%20testing&tag=b&tag=a").status == 404)

        let literal = try await mock.urlSession.reply("http://localhost:8080/v1/items/*/:id")
        #expect(literal.status == 404)
        #expect(literal.text == "not found")
        #expect(mock.recordedRequests.last?.isMatched == true)
        #expect(try await mock.urlSession.reply("http://localhost:8080/v1/items/7/3").text != "not found")
        #expect(try await mock.urlSession.reply("http://localhost:9999/v1/items/*/:id").text != "not found")
    }

    @Test("timing: .recorded delays each response by its recorded time")
    func recordedTiming() async throws {
        let mock = HTTPMock()
        try mock.loadHAR(from: Self.sample("chrome"), timing: .recorded)
        let start = Date()
        _ = try await mock.urlSession.reply("https://api.example.com/users?page=1")  // time: 120.5 ms
        #expect(Date().timeIntervalSince(start) >= 0.12)
    }

    static let malformed: [(json: String, message: String)] = [
        (#"{"log": {"entries": [}}"#, "not valid JSON"),
        (#"{"entries": []}"#, "log: expected an object, got nothing (the field is missing)"),
        (#"{"log": {"entries": {}}}"#, "log.entries: expected an array, got an object"),
        (
            #"{"log": {"entries": [\#(entry()), \#(entry(status: #""200""#))]}}"#,
            #"log.entries[1].response.status: expected a number, got the string "200""#
        ),
        (
            #"{"log": {"entries": [\#(entry(status: "700"))]}}"#,
            "log.entries[0].response.status: expected an HTTP status (100...599, or 0 for no response), got the number 700"
        ),
        (
            #"{"log": {"entries": [\#(entry(url: #""/relative""#))]}}"#,
            #"log.entries[0].request.url: expected an absolute http or https URL, got the string "/relative""#
        ),
        (
            #"{"log": {"entries": [\#(entry(content: #"{"text": "%%%", "encoding": "base64"}"#))]}}"#,
            #"log.entries[0].response.content.text: expected base64 (as log.entries[0].response.content.encoding says), got the string "%%%""#
        ),
        (
            #"{"log": {"entries": [\#(entry(headers: #"[{"name": "X"}]"#))]}}"#,
            "log.entries[0].response.headers[0].value: expected a string, got nothing (the field is missing)"
        ),
        (
            #"{"log": {"entries": [\#(entry(method: #""GE T""#))]}}"#,
            #""GE T" is not a valid HTTP method name"#
        ),
    ]

    static func entry(
        method: String = #""GET""#, url: String = #""https://api.example.com/ok""#, status: String = "200",
        content: String = #"{"text": "ok"}"#, headers: String = "[]"
    ) -> String {
        #"{"request": {"method": \#(method), "url": \#(url)}, "response": {"status": \#(status), "headers": \#(headers), "content": \#(content)}}"#
    }

    @Test(
        "a malformed archive throws an error naming the file, the entry, the field and what it held, and registers nothing",
        arguments: 0..<HARLoadTests.malformed.count)
    func malformedArchive(index: Int) async throws {
        let (json, message) = Self.malformed[index]
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("broken.har")
        try Data(json.utf8).write(to: file)

        let mock = HTTPMock()
        let error = try #require(throws: HTTPMockError.self) { try mock.loadHAR(from: file) }
        #expect(error.code == .har)
        #expect(error.message.contains(file.path), "\(error.message)")
        #expect(error.message.contains(message), "\(error.message)")
        #expect(mock.describeRoutes().isEmpty)
        #expect(try await mock.urlSession.reply("https://api.example.com/ok").status == 404)  // the valid entry was not registered
    }

    @Test("a missing archive throws an error naming it")
    func missingArchive() throws {
        let mock = HTTPMock()
        let error = try #require(throws: HTTPMockError.self) { try mock.loadHAR(from: URL(fileURLWithPath: "/nonexistent/x.har")) }
        #expect(error.message.hasPrefix("/nonexistent/x.har: the archive could not be read"))
    }

    @Test("a 10,000-entry archive loads in under a second (release builds; debug builds check 2,000 entries in 4 s)")
    func largeArchive() async throws {
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Unoptimised test builds take several times longer, and this runs beside timing-sensitive
        // tests on shared cores: there, a fifth of the archive with a proportional bound.
        #if DEBUG
        let count = 2_000
        let bound = Duration.seconds(4)
        #else
        let count = 10_000
        let bound = Duration.seconds(1)
        #endif
        let entries = (0..<count).map { index in
            Self.entry(
                url: "\"https://api.example.com/items/\(index % (count / 4))?page=\(index / (count / 4))\"",
                content: "{\"text\": \"{\\\"id\\\":\(index)}\", \"mimeType\": \"application/json\", \"size\": -1}",
                headers: #"[{"name": "Content-Type", "value": "application/json"}, {"name": "Cache-Control", "value": "no-store"}]"#)
        }
        let file = directory.appendingPathComponent("large.har")
        try Data(#"{"log": {"version": "1.2", "entries": [\#(entries.joined(separator: ",\n"))]}}"#.utf8).write(to: file)

        let mock = HTTPMock()
        // CPU time, which a busy machine does not inflate (SPEC §23); ThreadSanitizer's slowdown
        // (the CI runs this suite under it) scales the bound.
        let (_, elapsed) = try TestEnvironment.threadCPUTime { try mock.loadHAR(from: file) }
        #expect(elapsed < bound * TestEnvironment.slowdown, "loading \(count) entries took \(elapsed) of CPU")
        let last = try await mock.urlSession.reply("https://api.example.com/items/\(count / 4 - 1)?page=3")
        #expect(last.text == "{\"id\":\(count - 1)}")
    }
}

import Foundation
import HTTPMock
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Record from a real loopback server, export, redact and replay. Serialized: the tests set
/// `HTTPMOCK_RECORD`, which every replay scope of the process reads.
@Suite("HAR: record, export, replay", .serialized)
struct HARReplayTests {
    let server: TestServer

    init() async throws {
        server = try await TestServer.started()
    }

    /// Runs `body` with `HTTPMOCK_RECORD` set to `mode` (unset for `nil`).
    func withRecordMode<Result>(_ mode: String?, _ body: () async throws -> Result) async rethrows -> Result {
        if let mode { setenv("HTTPMOCK_RECORD", mode, 1) } else { unsetenv("HTTPMOCK_RECORD") }
        defer { unsetenv("HTTPMOCK_RECORD") }
        return try await body()
    }

    static func string(at url: URL) throws -> String {
        String(decoding: try Data(contentsOf: url), as: UTF8.self)
    }

    @Test("record from a live server, then replay offline: byte-identical bodies, the recorded order, no secret on disk")
    func recordThenReplay() async throws {
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let echo = request(
            "\(server.baseURL)/echo?page=1", method: "POST",
            body: Data(#"{"auth":{"token":"s3cr3t-body"},"name":"Ada"}"#.utf8),
            headers: ["Authorization": "Bearer s3cr3t-header", "Content-Type": "application/json"])
        let redaction: Redaction = [.default, .queryItems(["token"]), .jsonFields(["auth.token"]), .replacing("s3cr3t", with: "xxxxxx")]

        // Record: HTTPMOCK_RECORD=all sends everything to the server and writes the archive.
        let recorded = try await withRecordMode("all") {
            try await withHTTPMock(replaying: "session", in: directory, redacting: redaction) { mock in
                // First: /echo reflects the request's headers, and a later request would carry the
                // cookie /hello sets, which only Cookie redaction of *headers* would not catch.
                let echoed = try await mock.urlSession.reply(echo)
                let hello = try await mock.urlSession.reply("\(server.baseURL)/hello?token=t0k3n-123")
                let status1 = try await mock.urlSession.reply("\(server.baseURL)/status/201")
                let status2 = try await mock.urlSession.reply("\(server.baseURL)/status/202")
                #expect(echoed.text.contains("s3cr3t-header"))  // the live server saw the secret
                return [hello.data, status1.data, status2.data, echoed.data]
            }
        }
        let archive = directory.appendingPathComponent("session.har")
        let written = try Self.string(at: archive)
        #expect(!written.contains("s3cr3t"))
        #expect(!written.contains("t0k3n-123"))
        #expect(written.contains("/hello?token=REDACTED"))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])
        let entries = try #require((root["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let echoHeaders = try #require((entries.first?["request"] as? [String: Any])?["headers"] as? [[String: String]])
        #expect(echoHeaders.first { $0["name"] == "Authorization" }?["value"] == "REDACTED")  // redacted as a whole
        // /hello's Set-Cookie (the /echo body may still reflect a cookie an earlier test left in
        // the process-wide passthrough session: that is body text, which only .replacing reaches).
        let helloHeaders = try #require((entries[1]["response"] as? [String: Any])?["headers"] as? [[String: String]])
        #expect(helloHeaders.first { $0["name"]?.lowercased() == "set-cookie" }?["value"] == "REDACTED")

        // Replay (the default mode): answered from the archive, never from the network.
        try await withRecordMode(nil) {
            try await withHTTPMock(replaying: "session", in: directory, redacting: redaction) { mock in
                // A different token still matches: redacted query items match any value.
                let hello = try await mock.urlSession.reply("\(server.baseURL)/hello?token=another")
                #expect(hello.data == recorded[0])
                #expect(hello.header("X-Server") == "python")
                let reply1 = try await mock.urlSession.reply("\(server.baseURL)/status/201")
                #expect(reply1.data == recorded[1])
                let reply2 = try await mock.urlSession.reply("\(server.baseURL)/status/202")
                #expect(reply2.data == recorded[2])
                let echoed = try await mock.urlSession.reply(echo)
                #expect(echoed.status == 200)
                #expect(echoed.text.contains("xxxxxx-header"))  // what the archive holds
                #expect(mock.recordedRequests.allSatisfy { $0.isMatched })
            }
        }
        #expect(try Self.string(at: archive) == written)  // strict replay never rewrites
    }

    @Test("replay with .ignoringHost works with the server out of reach (nothing listens on port 9)")
    func replayOffline() async throws {
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let live = try await withRecordMode("all") {
            try await withHTTPMock(replaying: "offline", in: directory) { mock in
                try await mock.urlSession.reply("\(server.baseURL)/hello").data
            }
        }
        try await withRecordMode("none") {
            try await withHTTPMock(replaying: "offline", in: directory, matching: [.ignoringHost]) { mock in
                let reply3 = try await mock.urlSession.reply("http://127.0.0.1:9/hello")
                #expect(reply3.data == live)
            }
        }
    }

    @Test("a strict-replay miss fails the test naming the archive and the command that records it")
    func missMessage() async throws {
        let archive = try #require(Bundle.module.url(forResource: "firefox", withExtension: "har", subdirectory: "Fixtures/HAR"))
        try await withRecordMode(nil) {
            try await withKnownIssue {
                try await withHTTPMock(replaying: "firefox", in: archive.deletingLastPathComponent()) { mock in
                    let reply4 = try await mock.urlSession.reply("https://api.example.com/jobs/43")
                    #expect(reply4.status == 404)
                }
            } matching: { issue in
                let text = issue.description
                return text.contains("No mock for GET https://api.example.com/jobs/43")
                    && text.contains("The request is not in the archive \(archive.path)")
                    && text.contains("To record it, run: HTTPMOCK_RECORD=missing swift test --filter missMessage")
            }
        }
    }

    @Test("a missing archive in strict mode throws with the command that records it; a bad HTTPMOCK_RECORD is named")
    func missingArchiveAndBadMode() async throws {
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = try await #require(throws: HTTPMockError.self) {
            try await withRecordMode(nil) { try await withHTTPMock(replaying: "absent", in: directory) { _ in } }
        }
        #expect(
            error.message
                == "No archive at \(directory.appendingPathComponent("absent.har").path) to replay. Record it with: HTTPMOCK_RECORD=missing swift test --filter missingArchiveAndBadMode"
        )
        let bad = try await #require(throws: HTTPMockError.self) {
            try await withRecordMode("sometimes") { try await withHTTPMock(replaying: "absent", in: directory) { _ in } }
        }
        #expect(bad.message.hasPrefix(#"HTTPMOCK_RECORD is "sometimes"; expected none"#))
    }

    @Test("HTTPMOCK_RECORD=missing replays what the archive holds and appends what it lacks")
    func recordMissing() async throws {
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withRecordMode("all") {
            try await withHTTPMock(replaying: "grow", in: directory) { mock in
                _ = try await mock.urlSession.reply("\(server.baseURL)/status/201")
            }
        }
        try await withRecordMode("missing") {
            try await withHTTPMock(replaying: "grow", in: directory) { mock in
                let reply5 = try await mock.urlSession.reply("\(server.baseURL)/status/201")
                #expect(reply5.status == 201)
                let reply6 = try await mock.urlSession.reply("\(server.baseURL)/status/203")
                #expect(reply6.status == 203)
                #expect(mock.recordedRequests.map(\.isMatched) == [true, false])
            }
        }
        try await withRecordMode(nil) {
            try await withHTTPMock(replaying: "grow", in: directory) { mock in
                let reply7 = try await mock.urlSession.reply("\(server.baseURL)/status/203")
                #expect(reply7.text == "status 203")
                let reply8 = try await mock.urlSession.reply("\(server.baseURL)/status/201")
                #expect(reply8.text == "status 201")
            }
        }
    }

    @Test("exportHAR writes the journal as served: mocked, passthrough and failed requests, readable as HAR 1.2")
    func exportJournal() async throws {
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mock = HTTPMock()
        mock.unmockedPolicy = .passthrough
        mock.addResponses(
            forPath: "/user", host: "api.example.com",
            responses: [
                .json(#"{"name":"Ada","password":"hunter2"}"#, headers: ["Set-Cookie": "session=abc"])
            ])
        mock.addResponses(forPath: "/pixel", host: "api.example.com", responses: [.file(url: Fixtures.url("pixel.png"))])
        mock.addResponses(forPath: "/down", host: "api.example.com", responses: [.failure(URLError(.notConnectedToInternet))])
        _ = try await mock.urlSession.reply(request("https://api.example.com/user", headers: ["Authorization": "Bearer abc"]))
        let pixel = try await mock.urlSession.reply("https://api.example.com/pixel")
        let live = try await mock.urlSession.reply("\(server.baseURL)/hello")
        _ = try? await mock.urlSession.reply("https://api.example.com/down")

        let file = directory.appendingPathComponent("out/journal.har")
        try mock.exportHAR(to: file, redacting: [.default, .jsonFields(["password"])])
        let bytes = try Data(contentsOf: file)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("hunter2") && !text.contains("Bearer abc") && !text.contains("session=abc"))

        let root = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        let log = try #require(root["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries.count == 4)
        for entry in entries {
            for key in ["startedDateTime", "time", "request", "response", "cache", "timings"] {
                #expect(entry[key] != nil, "missing \(key)")
            }
            let response = try #require(entry["response"] as? [String: Any])
            for key in ["status", "statusText", "httpVersion", "headers", "cookies", "content", "redirectURL", "headersSize", "bodySize"] {
                #expect(response[key] != nil, "missing response.\(key)")
            }
        }
        let statuses = entries.compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }
        #expect(statuses == [200, 200, 200, 0])

        // It loads back and serves what the client received, file and passthrough bodies included.
        let replay = HTTPMock()
        try replay.loadHAR(from: file)
        #expect(try await replay.urlSession.reply("https://api.example.com/pixel").data == pixel.data)
        #expect(try await replay.urlSession.reply("\(server.baseURL)/hello").data == live.data)
        #expect(try await replay.urlSession.reply("https://api.example.com/user").text == #"{"name":"Ada","password":"REDACTED"}"#)
        await #expect(throws: URLError.self) { try await replay.urlSession.reply("https://api.example.com/down") }
    }

    @Test("matching: ignored query items, the body and chosen headers pick the archived entry; by default identical requests queue")
    func matchingOptions() async throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/HAR")
        let searchB = request("https://api.example.com/search", method: "POST", body: Data(#"{"q":"b"}"#.utf8))
        try await withRecordMode(nil) {
            try await withHTTPMock(
                replaying: "matching", in: fixtures,
                matching: [.ignoringQueryItems(["ts"]), .body, .headers(["Accept-Language"])]
            ) { mock in
                let feed = try await mock.urlSession.reply("https://api.example.com/feed?since=100&ts=1800000000")
                #expect(feed.text == "feed")
                // Asked in the other order than recorded: the body decides, not the queue.
                let b = try await mock.urlSession.replyViaCompletionHandler(searchB)
                #expect(b.text == "B")
                // An upload's body (not in the URLRequest on FoundationNetworking) is matched too.
                let (a, _) = try await mock.urlSession.upload(
                    for: request("https://api.example.com/search", method: "POST"), from: Data(#"{"q":"a"}"#.utf8))
                #expect(String(decoding: a, as: UTF8.self) == "A")
                let french = try await mock.urlSession.reply(request("https://api.example.com/me", headers: ["Accept-Language": "fr"]))
                #expect(french.text == "bonjour")
                // A delegate-driven task.
                let delegate = RecordingDelegate()
                let session = mock.delegateSession(delegate)
                defer { session.finishTasksAndInvalidate() }
                session.dataTask(with: request("https://api.example.com/me", headers: ["Accept-Language": "en"])).resume()
                await delegate.completion()
                #expect(String(decoding: delegate.body, as: UTF8.self) == "hello")
            }
            try await withHTTPMock(replaying: "matching", in: fixtures) { mock in
                let first = try await mock.urlSession.reply(searchB)
                #expect(first.text == "A")  // recorded order: the body is not compared by default
            }
        }
    }

    @Test("a mocked redirect exports with its Location and replays as a redirect")
    func exportRedirect() async throws {
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mock = HTTPMock()
        mock.addResponses(forPath: "/old", host: "api.example.com", responses: [.redirect(to: "/new")])
        mock.addResponses(forPath: "/new", host: "api.example.com", responses: [.plaintext("moved here")])
        #expect(try await mock.urlSession.reply("https://api.example.com/old").text == "moved here")
        let file = directory.appendingPathComponent("redirect.har")
        try mock.exportHAR(to: file)

        let replay = HTTPMock()
        try replay.loadHAR(from: file)
        let reply = try await replay.urlSession.reply("https://api.example.com/old")
        #expect(reply.text == "moved here")
        #expect(reply.response.url?.path == "/new")
    }

    @Test(
        .httpMock(
            replaying: "chrome", in: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/HAR")))
    func replayTrait() async throws {
        let users = try await HTTPMock.current.urlSession.reply("https://api.example.com/users?page=1")
        #expect(users.text == #"[{"id":1,"name":"Ada"}]"#)
    }
}

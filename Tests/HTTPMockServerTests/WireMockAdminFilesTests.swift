#if Server
import Foundation
import HTTPMock
import HTTPMockServer
import Testing

/// What the admin API writes under the WireMock root (SPEC §22): the files API (never outside
/// `__files/`), saved and persistent mappings, imports, and recordings through forwarding.
@Suite("WireMock admin API: files, saving, importing, recording", .serialized, .timeLimit(.minutes(2)))
struct WireMockAdminFilesTests {
    @Test("the files API reads, writes, lists and deletes inside __files, and refuses .., encoded .. and links out")
    func filesAPI() async throws {
        let root = try temporaryWireMockRoot()
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: outside)
        }
        try Data("secret".utf8).write(to: outside.appendingPathComponent("secret.txt"))
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("__files/link"), withDestinationURL: outside)
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadWireMock(from: root)
        try await servingAdmin(mock) { admin in
            #expect(try await admin.send("PUT", "/__admin/files/sub/hello.txt", "hello", contentType: "text/plain").status == 200)
            #expect(try String(contentsOf: root.appendingPathComponent("__files/sub/hello.txt"), encoding: .utf8) == "hello")
            #expect(try await admin.send("GET", "/__admin/files/sub/hello.txt").text == "hello")
            #expect(try await admin.json("/__admin/files") == ["sub/hello.txt"])
            try await admin.send(
                "POST", "/__admin/mappings", #"{"request":{"url":"/hello"},"response":{"status":200,"bodyFileName":"sub/hello.txt"}}"#)
            #expect(try await admin.send("GET", "/hello").text == "hello")
            #expect(try await admin.send("DELETE", "/__admin/files/sub/hello.txt").status == 200)
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("__files/sub/hello.txt").path))
            #expect(try await admin.send("GET", "/__admin/files/sub/hello.txt").status == 404)

            for name in ["..%2F..%2Fescape.txt", "%2e%2e/escape.txt", "sub/%2E%2E/%2E%2E/escape.txt", "link/secret.txt", "link/new.txt"] {
                let put = try await admin.send("PUT", "/__admin/files/\(name)", "x", contentType: "text/plain")
                #expect(put.status == 403, "PUT \(name)")
                #expect(try await admin.send("GET", "/__admin/files/\(name)").status == 403, "GET \(name)")
                #expect(try await admin.send("DELETE", "/__admin/files/\(name)").status == 403, "DELETE \(name)")
            }
            let port = admin.server.port
            let literal = try await rawExchange(
                port: port, "PUT /__admin/files/../escape.txt HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 1\r\n\r\nx")
            #expect(literal.hasPrefix("HTTP/1.1 403"))
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("escape.txt").path))
            #expect(!FileManager.default.fileExists(atPath: outside.appendingPathComponent("new.txt").path))
            #expect(try String(contentsOf: outside.appendingPathComponent("secret.txt"), encoding: .utf8) == "secret")
        }
        // Without a root, nothing is written.
        let bare = HTTPMock()
        bare.logHandler = nil
        try await servingAdmin(bare) { admin in
            #expect(try await admin.json("/__admin/files") == [])
            let refused = try await admin.send("PUT", "/__admin/files/a.txt", "x", contentType: "text/plain")
            #expect(refused.status == 422)
            #expect(refused.text.contains("--wiremock-root"))
        }
    }

    @Test("mappings/save writes mappings/NAME-ID.json (422 without a root); reset brings them back; persistent writes at once")
    func save() async throws {
        let bare = HTTPMock()
        bare.logHandler = nil
        try await servingAdmin(bare) { admin in
            let refused = try await admin.send("POST", "/__admin/mappings/save")
            #expect(refused.status == 422)
            #expect(refused.text.contains("--wiremock-root"))
        }
        let root = try temporaryWireMockRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let mock = try quietMock(loading: root)
        try await servingAdmin(mock) { admin in
            let id = "6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
            try await admin.send(
                "POST", "/__admin/mappings",
                #"{"id":"\#(id)","name":"My Stub!","request":{"url":"/a"},"response":{"status":200,"body":"a"}}"#)
            #expect(try await admin.send("POST", "/__admin/mappings/save").status == 200)
            let file = root.appendingPathComponent("mappings/my-stub-\(id).json")
            let written = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: file))
            #expect(written["persistent"] == true)
            #expect(written["request"]?["url"] == "/a")
            try await admin.send("DELETE", "/__admin/mappings")
            #expect(try await admin.send("GET", "/a").status == 404)
            #expect(FileManager.default.fileExists(atPath: file.path))
            try await admin.send("POST", "/__admin/mappings/reset")
            #expect(try await admin.send("GET", "/a").text == "a")

            let persistent = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
            try await admin.send(
                "POST", "/__admin/mappings",
                #"{"id":"\#(persistent)","persistent":true,"request":{"urlPath":"/p/q"},"response":{"status":200}}"#)
            let persistentFile = root.appendingPathComponent("mappings/p_q-\(persistent).json")
            #expect(FileManager.default.fileExists(atPath: persistentFile.path))
            try await admin.send("DELETE", "/__admin/mappings/\(persistent)")
            #expect(!FileManager.default.fileExists(atPath: persistentFile.path))
        }
        // The files load as WireMock mapping files.
        let reloaded = HTTPMock()
        reloaded.logHandler = nil
        try reloaded.loadWireMock(from: root)
        try await servingAdmin(reloaded) { admin in
            let answer = try await admin.send("GET", "/a")
            #expect(answer.text == "a")
        }
    }

    @Test("mappings/import: OVERWRITE, IGNORE, deleteAllNotInImport; a bad mapping changes nothing")
    func importPolicies() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        try await servingAdmin(mock) { admin in
            let id = "8a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
            try await admin.send(
                "POST", "/__admin/mappings", #"{"id":"\#(id)","request":{"url":"/x"},"response":{"status":200,"body":"old"}}"#)
            try await admin.send("POST", "/__admin/mappings", #"{"request":{"url":"/other"},"response":{"status":200}}"#)
            let new = #"{"id":"\#(id)","request":{"url":"/x"},"response":{"status":200,"body":"new"}}"#
            let extra = #"{"request":{"url":"/y"},"response":{"status":200,"body":"y"}}"#
            let ignored = try await admin.send(
                "POST", "/__admin/mappings/import", #"{"mappings":[\#(new),\#(extra)],"importOptions":{"duplicatePolicy":"IGNORE"}}"#)
            #expect(ignored.status == 200)
            #expect(try await admin.send("GET", "/x").text == "old")
            #expect(try await admin.send("GET", "/y").text == "y")
            try await admin.send("POST", "/__admin/mappings/import", #"{"mappings":[\#(new)]}"#)
            #expect(try await admin.send("GET", "/x").text == "new")
            let bad = try await admin.send(
                "POST", "/__admin/mappings/import",
                #"{"mappings":[\#(extra),{"request":{"url":"/z"},"response":{"status":200},"bogus":1}],"importOptions":{"deleteAllNotInImport":true}}"#
            )
            #expect(bad.status == 422)
            #expect(bad.text.contains("/mappings/1/bogus"))
            #expect(try await admin.json("/__admin/mappings")["meta"]?["total"] == 3)
            try await admin.send(
                "POST", "/__admin/mappings/import", #"{"mappings":[\#(new)],"importOptions":{"deleteAllNotInImport":true}}"#)
            #expect(try await admin.json("/__admin/mappings")["meta"]?["total"] == 1)
            #expect(try await admin.send("GET", "/other").status == 404)
        }
    }

    @Test("recording forwards to the target and stops into mappings (repeats become a scenario); snapshot takes proxied requests")
    func recording() async throws {
        let upstream = HTTPMock()
        upstream.logHandler = nil
        upstream.addResponses(forPath: "/r/a", responses: [.plaintext("first"), .plaintext("second")])
        upstream.addResponses(forPath: "/r/json", responses: [.json(#"{"ok":true}"#, lifetime: .eternal)])
        let target = try await upstream.startServer()
        defer { Task { await target.stop() } }
        let root = try temporaryWireMockRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let mock = try quietMock(loading: root)
        try await servingAdmin(mock) { admin in
            #expect(try await admin.json("/__admin/recordings/status")["status"] == "NeverStarted")
            let start = try await admin.send(
                "POST", "/__admin/recordings/start",
                #"{"targetBaseUrl":"\#(target.baseURL.absoluteString)","captureHeaders":{"Accept":{}},"persist":true}"#)
            #expect(start.status == 200)
            #expect(try await admin.json("/__admin/recordings/status")["status"] == "Recording")
            #expect(try await admin.send("GET", "/r/a").text == "first")
            #expect(try await admin.send("GET", "/r/a").text == "second")
            #expect(try await admin.send("POST", "/r/json", #"{"q":1}"#).text == #"{"ok":true}"#)
            let stopped = try await admin.send("POST", "/__admin/recordings/stop")
            #expect(try await admin.json("/__admin/recordings/status")["status"] == "Stopped")
            guard case .array(let recorded)? = stopped.json?["mappings"] else {
                Issue.record("no mappings in \(stopped.text)")
                return
            }
            #expect(recorded.count == 3)
            let repeats = recorded.filter { $0["request"]?["url"] == "/r/a" }
            #expect(repeats.count == 2)
            #expect(repeats[0]["scenarioName"] == "scenario-1-r_a")
            #expect(repeats[0]["requiredScenarioState"] == "Started")
            #expect(repeats[0]["newScenarioState"] == "scenario-1-r_a-2")
            #expect(repeats[1]["requiredScenarioState"] == "scenario-1-r_a-2")
            let json = recorded.first { $0["request"]?["url"] == "/r/json" }
            #expect(json?["request"]?["bodyPatterns"]?[0]?["equalToJson"] == #"{"q":1}"#)
            #expect(json?["request"]?["headers"]?["Accept"] != nil)
            #expect(json?["name"] == "r_json")
            let files = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("mappings").path)
            #expect(files.count == 3)

            // Played back without the upstream.
            await target.stop()
            #expect(try await admin.send("GET", "/r/a").text == "first")
            #expect(try await admin.send("GET", "/r/a").text == "second")
            #expect(try await admin.send("POST", "/__admin/recordings/stop").status == 422)

            // A snapshot takes what a proxy mapping forwarded, even after it is gone.
            try await admin.send("DELETE", "/__admin/mappings")
            try await admin.send("DELETE", "/__admin/requests")
            let restarted = try await upstream.startServer()
            defer { Task { await restarted.stop() } }
            try await admin.send(
                "POST", "/__admin/mappings",
                #"{"request":{"urlPathPattern":"/r/.*"},"response":{"proxyBaseUrl":"\#(restarted.baseURL.absoluteString)"}}"#)
            try await admin.send("POST", "/__admin/mappings", #"{"request":{"url":"/local"},"response":{"status":200}}"#)
            #expect(try await admin.send("GET", "/r/json").text == #"{"ok":true}"#)
            try await admin.send("GET", "/local")
            try await admin.send("DELETE", "/__admin/mappings")
            let snapshot = try await admin.send("POST", "/__admin/recordings/snapshot", #"{"persist":false,"outputFormat":"IDS"}"#)
            guard case .array(let ids)? = snapshot.json?["ids"] else {
                Issue.record("no ids in \(snapshot.text)")
                return
            }
            #expect(ids.count == 1)
            #expect(try await admin.send("GET", "/r/json").text == #"{"ok":true}"#)
        }
    }
}
#endif

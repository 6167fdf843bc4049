#if Server
import Foundation
import HTTPMock
import HTTPMockServer
import Testing

/// Issue 43, "Safety part four", through real sockets and the spawned CLI: webhooks that come
/// back, mapping files saved and deleted concurrently, resets under load, bounded journals and
/// webhooks, whole recorded bodies. (Forwarding's timeout is in `ForwardingServerTests`.)
@Suite("Safety part four (issue 43)")
struct SafetyPartFourTests {
    /// Waits until `condition` holds, checking every 20 ms, for at most `seconds`; whether it held.
    static func eventually(within seconds: TimeInterval, _ condition: () -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return condition()
    }

    // MARK: - Webhooks

    @Test("a webhook that calls its own mapping is sent once, carrying Via: its request fires no webhook again")
    func webhookLoopStops() async throws {
        let mock = HTTPMock()
        try await servingAdmin(mock) { (admin: AdminClient) async throws in
            let hook = admin.server.baseURL.absoluteString + "/hook"
            let mapping =
                #"{"request":{"urlPath":"/hook"},"response":{"status":200,"body":"ok"},"serveEventListeners":[{"name":"webhook","parameters":{"method":"POST","url":"\#(hook)","body":"again"}}]}"#
            #expect(try await admin.send("POST", "/__admin/mappings", mapping).status == 201)
            let first = try await admin.send("GET", "/hook")
            #expect(first.status == 200)
            // The webhook's own request arrives…
            #expect(try await Self.eventually(within: 60) { mock.recordedRequests.count >= 2 }, "the webhook never came")
            let webhook = mock.recordedRequests[1].request
            #expect(webhook.method == .post)
            #expect(webhook.headers["Via"]?.contains("httpmock-webhook-") == true, "\(webhook.headers)")
            // …and fires nothing more: a loop went on at about 1,000 requests a second.
            try await Task.sleep(nanoseconds: 1_500_000_000)
            #expect(mock.recordedRequests.count == 2, "\(mock.recordedRequests.count) requests journaled: the webhook looped")
        }
    }

    /// Resident memory of process `pid` in bytes (Linux: VmRSS of /proc/PID/status).
    static func residentBytes(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return -1 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1) * 1024
    }

    @Test(
        "a 10 MB webhook to a receiver that never answers, fired 40 times: the body is not copied per send, those beyond the bound are dropped and said so"
    )
    func webhooksInFlightAreBounded() async throws {
        let receiver = try SilentUpstream()
        defer { receiver.stop() }
        let body = String(repeating: "w", count: 10 << 20)
        let root = try Self.root([
            "fire.json":
                #"{"request":{"urlPath":"/fire"},"response":{"status":200},"postServeActions":[{"name":"webhook","parameters":{"url":"http://127.0.0.1:\#(receiver.port)/in","body":"\#(body)"}}]}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let cli = try RunningCLI(["serve", "--wiremock-root", root.path, "--port", "0", "--log-level", "ERROR"], directory: root)
        defer { cli.process.terminate() }
        let started = try await cli.waitFor("serving on http://", timeout: 60)
        let range = try #require(started.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression))
        let port = try #require(Int(started[range].split(separator: ":").last ?? ""))
        let before = Self.residentBytes(cli.process.processIdentifier)
        try await blocking {
            let client = try RawClient(port: port)
            for _ in 0..<40 {
                client.reset()
                try client.send("GET /fire HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                guard client.readResponse(timeout: 60).hasPrefix("HTTP/1.1 200") else { throw CLITestError("no 200: \(client.text)") }
            }
        }
        // Six 10 MB bodies fit the 64 MB bound: they reach the receiver, which never answers.
        #expect(try await receiver.waitUntilRead(6, within: 60), "\(receiver.accepted) webhooks arrived")
        #expect(try await Self.eventually(within: 60) { cli.text.contains("was dropped") }, "\(cli.text.suffix(2000))")
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let after = Self.residentBytes(cli.process.processIdentifier)
        #expect(receiver.accepted <= 6, "\(receiver.accepted) webhooks in flight at once")
        #expect(after - before < 150 << 20, "resident memory grew by \((after - before) >> 20) MB for 40 webhooks of 10 MB")
    }

    // MARK: - Mapping files: save, delete, restart

    /// A WireMock root holding `files` (names under `mappings/` → contents).
    static func root(_ files: [String: String]) throws -> URL {
        let root = try temporaryWireMockRoot()
        for (name, text) in files {
            try Data(text.utf8).write(to: root.appendingPathComponent("mappings/" + name))
        }
        return root
    }

    /// The file names under `mappings/`, sorted.
    static func mappingFiles(in root: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("mappings").path)) ?? []).sorted()
    }

    /// A fresh instance loading `root`, as a restart does: its mapping ids, sorted (the load
    /// throws, as `httpmock serve` exits 64, when two files hold one id).
    static func restart(_ root: URL) throws -> (HTTPMock, [String]) {
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadWireMock(from: root)
        return (mock, mock.wireMockMappingIDs.sorted())
    }

    @Test("mappings/save updates a file mapping's own file (never a second file with its id), an edit included; a next start loads")
    func saveUpdatesTheMappingsOwnFile() async throws {
        let id = "11111111-2222-4333-8444-555555555555"
        let root = try Self.root([
            "orders.json":
                "// the orders\n{\"id\":\"\(id)\",\"request\":{\"url\":\"/orders\"},\"response\":{\"status\":200,\"body\":\"v1\"}}",
            "many.json":
                #"{"mappings":[{"id":"21111111-2222-4333-8444-555555555555","request":{"url":"/a"},"response":{"body":"a"}},{"request":{"url":"/b"},"response":{"body":"b"}}]}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let (mock, ids) = try Self.restart(root)
        #expect(ids.count == 3)
        try await servingAdmin(mock) { (admin: AdminClient) async throws in
            #expect(try await admin.send("POST", "/__admin/mappings/save").status == 200)
            #expect(Self.mappingFiles(in: root) == ["many.json", "orders.json"])
            let edited = #"{"request":{"url":"/orders"},"response":{"status":200,"body":"v2"}}"#
            #expect(try await admin.send("PUT", "/__admin/mappings/\(id)", edited).status == 200)
            #expect(try await admin.send("POST", "/__admin/mappings/save").status == 200)
            #expect(Self.mappingFiles(in: root) == ["many.json", "orders.json"])
        }
        let written = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: root.appendingPathComponent("mappings/orders.json")))
        #expect(written["id"] == .string(id) && written["persistent"] == true, "\(written)")
        let (reloaded, again) = try Self.restart(root)
        #expect(again == ids)
        try await servingAdmin(reloaded) { (admin: AdminClient) async throws in
            #expect(try await admin.send("GET", "/orders").text == "v2")
            #expect(try await admin.send("GET", "/b").text == "b")
            // A file of several mappings is read-only, as in WireMock: an edit of one is refused, loudly.
            let bID = try #require(again.first { $0 != id && $0 != "21111111-2222-4333-8444-555555555555" })
            #expect(
                try await admin.send("PUT", "/__admin/mappings/\(bID)", #"{"request":{"url":"/b"},"response":{"body":"b2"}}"#).status == 200
            )
            let refused = try await admin.send("POST", "/__admin/mappings/save")
            #expect(refused.status == 422 && refused.text.contains("mappings/many.json"), "\(refused.text)")
        }
        #expect(Self.mappingFiles(in: root) == ["many.json", "orders.json"])
    }

    @Test("id-less file mappings keep one id at every start: six save/restart cycles keep 5 mappings in 4 files")
    func idlessMappingsAreStable() async throws {
        let root = try Self.root([
            "a.json": #"{"request":{"url":"/a"},"response":{"body":"a"}}"#,
            "b.json": #"{"request":{"url":"/b"},"response":{"body":"b"}}"#,
            "c.json": #"{"name":"C","request":{"url":"/c"},"response":{"body":"c"}}"#,
            "pair.json":
                #"{"mappings":[{"request":{"url":"/d"},"response":{"body":"d"}},{"request":{"url":"/e"},"response":{"body":"e"}}]}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        var previous: [String]?
        for cycle in 1...6 {
            let (mock, ids) = try Self.restart(root)
            #expect(ids.count == 5, "cycle \(cycle): \(ids.count) mappings")
            if let previous { #expect(ids == previous, "cycle \(cycle): the ids changed") }
            previous = ids
            let saved = try await servingAdmin(mock) { admin in try await admin.send("POST", "/__admin/mappings/save").status }
            #expect(saved == 200)
            #expect(Self.mappingFiles(in: root) == ["a.json", "b.json", "c.json", "pair.json"], "cycle \(cycle)")
        }
    }

    @Test("DELETE /__admin/mappings/{id} racing mappings/save: every deleted persistent mapping stays deleted after a restart")
    func deleteRacingSave() async throws {
        let root = try Self.root([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let (mock, _) = try Self.restart(root)
        let count = 100
        let ids = (0..<count).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
        try await servingAdmin(mock) { (admin: AdminClient) async throws in
            for (index, id) in ids.enumerated() {
                let mapping = #"{"id":"\#(id)","persistent":true,"request":{"url":"/p/\#(index)"},"response":{"status":200}}"#
                #expect(try await admin.send("POST", "/__admin/mappings", mapping).status == 201)
            }
            #expect(Self.mappingFiles(in: root).count == count)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for _ in 0..<4 { _ = try await admin.send("POST", "/__admin/mappings/save") }
                }
                for lane in 0..<4 {
                    group.addTask {
                        for id in ids[(lane * count / 4)..<((lane + 1) * count / 4)] {
                            _ = try await admin.send("DELETE", "/__admin/mappings/\(id)")
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let (_, back) = try Self.restart(root)
        #expect(back.isEmpty, "\(back.count) of \(count) deleted mappings came back")
        #expect(Self.mappingFiles(in: root).isEmpty)
    }

    // MARK: - Recording

    @Test(
        "a recording keeps an upstream body over the journal body limit whole (to __files/) and replays all of it",
        .timeLimit(.minutes(2)))
    func recordingKeepsLargeBodies() async throws {
        let upstream = HTTPMock()
        upstream.logHandler = nil
        let big = Data((0..<(2 << 20)).map { UInt8(ascii: "a") + UInt8(truncatingIfNeeded: $0 % 26) })
        upstream.addResponses(forPath: "/big", responses: [.data(big, lifetime: .eternal)])
        let target = try await upstream.startServer()
        defer { Task { await target.stop() } }
        let root = try Self.root([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let (mock, _) = try Self.restart(root)
        mock.journalBodyLimit = 1024 * 1024  // as httpmock serve has it
        let replayed = try await servingAdmin(mock) { (admin: AdminClient) async throws -> Data in
            let start = #"{"targetBaseUrl":"\#(target.baseURL.absoluteString)","persist":true}"#
            #expect(try await admin.send("POST", "/__admin/recordings/start", start).status == 200)
            let (through, _) = try await admin.session.data(from: URL(string: admin.server.baseURL.absoluteString + "/big")!)
            #expect(through == big)
            let stopped = try await admin.send("POST", "/__admin/recordings/stop")
            #expect(stopped.status == 200, "\(stopped.text.prefix(500))")
            // Raw, with a deadline: a replay that declares 2 MB and sends nothing never ends.
            let port = admin.server.port
            return try await blocking { () -> Data in
                let client = try RawClient(port: port)
                try client.send("GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                client.readResponse(timeout: 30)
                let received = client.received
                guard let end = received.range(of: Data("\r\n\r\n".utf8)) else { return Data() }
                return received[end.upperBound...]
            }
        }
        #expect(replayed.count == big.count, "the recording replays \(replayed.count) of \(big.count) bytes")
        #expect(replayed == big)
    }

    // MARK: - Reset

    @Test("POST /__admin/reset swaps the routes in one step: requests to file mappings never get a 404 meanwhile")
    func resetIsAtomic() async throws {
        var files: [String: String] = [:]
        for index in 0..<300 { files["m\(index).json"] = #"{"request":{"url":"/m/\#(index)"},"response":{"body":"m"}}"# }
        let root = try Self.root(files)
        defer { try? FileManager.default.removeItem(at: root) }
        let (mock, _) = try Self.restart(root)
        let server = try await mock.startServer(admin: true)
        defer { Task { await server.stop() } }
        let port = server.port
        let done = LockedFlag()
        async let resets = blocking { () -> Int in
            let client = try RawClient(port: port)
            var count = 0
            while !done.value {
                client.reset()
                try client.send("POST /__admin/reset HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
                guard client.readResponse(timeout: 60).hasPrefix("HTTP/1.1 200") else { throw CLITestError("reset: \(client.text)") }
                count += 1
            }
            return count
        }
        func requests(_ lane: Int) async throws -> [String] {
            try await blocking {
                let client = try RawClient(port: port)
                var misses: [String] = []
                for index in 0..<2000 {
                    client.reset()
                    try client.send("GET /m/\((index + lane) % 300) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    let answer = client.readResponse(timeout: 60)
                    if !answer.hasPrefix("HTTP/1.1 200") { misses.append(String(answer.prefix(40))) }
                }
                return misses
            }
        }
        async let first = requests(0)
        async let second = requests(7)
        let misses = try await first + second
        done.set()
        let resetCount = try await resets
        #expect(resetCount > 0)
        #expect(misses.isEmpty, "\(misses.count) of 4000 requests missed during \(resetCount) resets: \(misses.prefix(3))")
    }
}

/// A flag one thread sets and others read.
final class LockedFlag: @unchecked Sendable {
    // @unchecked: `isSet` is guarded by `lock`.
    private let lock = NSLock()
    private var isSet = false
    var value: Bool { lock.withLock { isSet } }
    func set() { lock.withLock { isSet = true } }
}
#endif

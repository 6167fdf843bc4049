#if Server
import Foundation
import HTTPMock
import HTTPMockServer
import Testing

/// Issue 43's crashes and wrong answers that one request to a WireMock folder could cause,
/// through a spawned `httpmock serve` (a trap kills only that child, and the test sees it):
/// `range` and date helpers fed numbers past their types, admin paths that do not decode, a
/// CR/LF in a templated header. Each is answered, and the server answers on.
@Suite("Hostile templates, admin paths and slow matches against the server (issue 43)", .serialized, .timeLimit(.minutes(2)))
struct HostileTemplateServerTests {
    /// A WireMock root whose mappings render what the query says.
    static func root() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-hostile-\(UUID().uuidString)")
        let mappings = root.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        let templated: [(String, String)] = [
            ("/range", "{{#each (range request.query.a request.query.b)}}{{this}}{{/each}}"),
            ("/unix-epoch", "{{date (parseDate request.query.t format='unix') format='epoch'}}"),
            ("/epoch", "{{parseDate request.query.t format='epoch'}}"),
            ("/back", "{{now offset='-9223372036854775807 days'}}"),
            ("/ahead", "{{now offset='2000000000 years' format='epoch'}}"),
            ("/math", "{{math request.query.a '*' request.query.b}}"),
        ]
        for (index, (path, body)) in templated.enumerated() {
            let mapping: [String: Any] = [
                "request": ["method": "GET", "urlPath": path],
                "response": ["status": 200, "body": body, "transformers": ["response-template"]],
            ]
            try JSONSerialization.data(withJSONObject: mapping).write(to: mappings.appendingPathComponent("t\(index).json"))
        }
        let header: [String: Any] = [
            "request": ["method": "GET", "urlPath": "/header"],
            "response": [
                "status": 200, "headers": ["X-Echo": "{{request.query.v}}"], "body": "echoed", "transformers": ["response-template"],
            ],
        ]
        try JSONSerialization.data(withJSONObject: header).write(to: mappings.appendingPathComponent("header.json"))
        let ping: [String: Any] = ["request": ["method": "GET", "url": "/ping"], "response": ["status": 200, "body": "pong"]]
        try JSONSerialization.data(withJSONObject: ping).write(to: mappings.appendingPathComponent("ping.json"))
        return root
    }

    static func serve(_ root: URL) async throws -> (RunningCLI, Int) {
        let cli = try RunningCLI(["serve", "--wiremock-root", root.path, "--port", "0"], directory: root)
        let started = try await cli.waitFor("serving on http://")
        guard let range = started.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
            let port = Int(started[range].split(separator: ":").last ?? "")
        else { throw CLITestError("no port in \(started)") }
        return (cli, port)
    }

    static func get(_ port: Int, _ target: String) async throws -> String {
        try await rawExchange(port: port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 30)
    }

    @Test("range -8e18 8e18, dates past Java's Instant, 1,001-digit math: each a 500 naming the problem, and the server answers on")
    func hostileTemplates() async throws {
        let root = try Self.root()
        defer { try? FileManager.default.removeItem(at: root) }
        let (cli, port) = try await Self.serve(root)
        defer { cli.process.terminate() }
        let huge = String(repeating: "9", count: 1_001)
        for (target, named) in [
            ("/range?a=-8000000000000000000&b=8000000000000000000", "range"),
            ("/unix-epoch?t=1e300", "parseDate"), ("/unix-epoch?t=nan", "parseDate"), ("/epoch?t=1e300", "parseDate"),
            ("/back", "offset"), ("/ahead", "offset"), ("/math?a=\(huge)&b=2", "digits"),
        ] {
            let answer = try await Self.get(port, target)
            #expect(answer.hasPrefix("HTTP/1.1 500"), "\(target): \(answer.prefix(300))")
            #expect(answer.contains(named), "\(target): \(answer.prefix(600))")
            #expect(cli.process.isRunning, "httpmock died on \(target): \(cli.text.suffix(2_000))")
        }
        let math = try await Self.get(port, "/math?a=9223372036854775807&b=9223372036854775807")
        #expect(math.hasPrefix("HTTP/1.1 200") && math.hasSuffix("\r\n\r\n1"), "\(math)")
        let ping = try await Self.get(port, "/ping")
        #expect(ping.hasPrefix("HTTP/1.1 200") && ping.hasSuffix("pong"), "\(ping)")
    }

    @Test("admin paths that do not decode (/__admin/%ff, /__admin/mappings/%c0%ae) are 404s naming the path, not a trap")
    func undecodableAdminPaths() async throws {
        let root = try Self.root()
        defer { try? FileManager.default.removeItem(at: root) }
        let (cli, port) = try await Self.serve(root)
        defer { cli.process.terminate() }
        for target in ["/__admin/%ff", "/__admin/mappings/%c0%ae", "/__admin/%ff/%fe?x=%ff", "/__admin/requests/%c0"] {
            let answer = try await Self.get(port, target)
            #expect(answer.hasPrefix("HTTP/1.1 404"), "\(target): \(answer.prefix(300))")
            #expect(cli.process.isRunning, "httpmock died on \(target): \(cli.text.suffix(2_000))")
        }
        let mappings = try await Self.get(port, "/__admin/mappings")
        #expect(mappings.hasPrefix("HTTP/1.1 200"), "\(mappings.prefix(300))")
    }

    /// A predicate that keeps its thread busy (as a slow match does: CPU, not a wait, so a
    /// pool that grows only for blocked threads does not grow) until released, counting who
    /// entered.
    final class Blocker: @unchecked Sendable {
        // @unchecked: `entered` and `released` are guarded by `condition`.
        private let condition = NSCondition()
        private var entered = 0
        private var released = false

        func block() {
            condition.lock()
            entered += 1
            condition.broadcast()
            condition.unlock()
            var spin: UInt64 = 0
            while true {
                for step in 0..<100_000 { spin = spin &* 31 &+ UInt64(step) }
                condition.lock()
                let done = released
                condition.unlock()
                if done { break }
            }
            withExtendedLifetime(spin) {}
        }

        /// Whether `count` callers entered within `timeout` seconds.
        func waitForEntries(_ count: Int, timeout: TimeInterval) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date(timeIntervalSinceNow: timeout)
            while entered < count {
                if !condition.wait(until: deadline) { return entered >= count }
            }
            return true
        }

        func release() {
            condition.lock()
            released = true
            condition.broadcast()
            condition.unlock()
        }

        var isReleased: Bool {
            condition.lock()
            defer { condition.unlock() }
            return released
        }

        /// Releases the predicates after `seconds` from a thread of its own, should the test
        /// itself be stalled (a stalled pool would otherwise hold the test forever).
        func releaseLater(_ seconds: TimeInterval) {
            Thread.detachNewThread { [self] in
                Thread.sleep(forTimeInterval: seconds)
                release()
            }
        }
    }

    @Test("four slow matches (predicates busy on the CPU) hold up neither a body-matched route, nor a miss, nor the admin API (issue 43)")
    func slowMatchesDoNotStall() async throws {
        let blocker = Blocker()
        defer { blocker.release() }
        blocker.releaseLater(90)
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.registerResponses {
            Host("api.example.com") {
                Path(
                    "/slow", method: .post,
                    where: { _ in
                        blocker.block()
                        return true
                    }
                ) { MockResponse.plaintext("slow", lifetime: .eternal) }
                Path("/body", method: .post, body: .contains("x")) { MockResponse.plaintext("body", lifetime: .eternal) }
            }
        }
        let server = try await mock.startServer(impersonating: "api.example.com", admin: true)
        defer { Task { await server.stop() } }
        let port = server.port
        let slow = Task {
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await rawExchange(
                            port: port, "POST /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\n\r\ns", timeout: 120)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        let allEntered = try await blocking { blocker.waitForEntries(4, timeout: 60) }
        #expect(allEntered, "four slow matches did not all start: they queued behind each other")
        // While all four hold their threads: each of these is answered (a stall would last
        // until the release below, after these reads have given up).
        let body = try await rawExchange(port: port, "POST /body HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\nxyz", timeout: 30)
        #expect(body.hasPrefix("HTTP/1.1 200") && body.hasSuffix("body"), "a body-matched route stalled: \(body.debugDescription)")
        let miss = try await rawExchange(port: port, "POST /nothing HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\n\r\nx", timeout: 30)
        #expect(miss.hasPrefix("HTTP/1.1 404"), "a miss stalled: \(miss.debugDescription)")
        let health = try await rawExchange(port: port, "GET /__admin/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 30)
        #expect(health.hasPrefix("HTTP/1.1 200"), "the admin API stalled: \(health.debugDescription)")
        #expect(!blocker.isReleased, "the answers above came only once the slow matches were released")
        blocker.release()
        let answers = try await slow.value
        #expect(answers.count == 4 && answers.allSatisfy { $0.hasPrefix("HTTP/1.1 200") && $0.hasSuffix("slow") }, "\(answers)")
    }

    @Test("a CR/LF rendered into a header value is a 500 naming the header, and the request pipelined behind is answered")
    func crlfInTemplatedHeader() async throws {
        let root = try Self.root()
        defer { try? FileManager.default.removeItem(at: root) }
        let (cli, port) = try await Self.serve(root)
        defer { cli.process.terminate() }
        let answers = try await blocking {
            let client = try RawClient(port: port)
            try client.send(
                "GET /header?v=a%0d%0aX-Injected:%201 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    + "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return client.read(timeout: 30) { $0.contains("HTTP/1.1 500") && $0.hasSuffix("pong") }
        }
        #expect(answers.hasPrefix("HTTP/1.1 500"), "\(answers.prefix(400))")
        #expect(answers.contains("X-Echo"), "the 500 names the header: \(answers.prefix(600))")
        #expect(!answers.contains("\r\nX-Injected:"), "\(answers)")
        #expect(answers.hasSuffix("pong"), "the pipelined request was lost: \(answers.debugDescription)")
        #expect(cli.process.isRunning)
    }
}
#endif

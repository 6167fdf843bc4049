#if Server
import Foundation
import Testing

/// Issue 43's crashes and wrong answers that one request to a WireMock folder could cause,
/// through a spawned `httpmock serve` (a trap kills only that child, and the test sees it):
/// `range` and date helpers fed numbers past their types, admin paths that do not decode, a
/// CR/LF in a templated header. Each is answered, and the server answers on.
@Suite("Hostile templates and admin paths against httpmock serve (issue 43)", .serialized, .timeLimit(.minutes(2)))
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

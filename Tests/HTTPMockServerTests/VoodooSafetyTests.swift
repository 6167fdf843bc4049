#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
@_spi(CLI) import HTTPMockServer
import InMemoryLogging
import Logging
import Testing

// SPEC §23 for Voodoo's scripts, GraphQL and loaders: what used to kill, hang or bloat the
// process. Whatever can crash, hang or eat memory when it regresses runs in a child process
// (ServerChildProcess); the rest runs here.

/// The lines a script wrote to the log (through ``logger``, the instance's `serverLogger`), and
/// those appended (a load's warnings).
final class VoodooLines: @unchecked Sendable {
    // @unchecked: `lines` is read and written under `lock`; `captured` locks its own entries.
    private let lock = NSLock()
    private var lines: [String] = []
    private let captured = InMemoryLogHandler()

    /// A logger of every level whose messages ``all`` lists.
    var logger: Logger {
        var logger = Logger(label: "HTTPMockServerTests") { [captured] _ in captured }
        logger.logLevel = .trace
        return logger
    }

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } + captured.entries.map(\.message.description) }
}

/// The process's resident memory now and at its peak (Linux), in bytes.
func residentMemory() -> (now: Int, peak: Int)? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    func field(_ name: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
    }
    guard let now = field("VmRSS"), let peak = field("VmHWM") else { return nil }
    return (now, peak)
}

@Suite("Voodoo safety (SPEC §23): in a child process", .serialized)  // one child at a time: they share 2 cores with the suite
struct VoodooSafetyChildTests {
    private func expectChildPasses(_ scenario: String, timeout: TimeInterval = 90) async throws {
        let outcome = try await ServerChildProcess.run(scenario, timeout: timeout)
        #expect(outcome.passed, "scenario \(scenario): \(outcome)")
    }

    @Test(
        "a GraphQL document nested 4,000 deep, a list argument 20,000 or 100 deep: 400 naming the depth limit, and the server answers on",
        .enabled(if: ServerChildProcess.isAvailable))
    func graphQLDepth() async throws { try await expectChildPasses("voodooGraphQLDepth") }

    #if JavaScript
    @Test(
        "a script status of 1e300, NaN or 101, a CR/LF header value, a bad header name, a thrown {line: 1e300}: 500 naming it",
        .enabled(if: ServerChildProcess.isAvailable))
    func scriptNumbers() async throws { try await expectChildPasses("voodooScriptNumbers") }

    @Test(
        "a WebAssembly infinite loop cannot run (WebAssembly is off): 500, and the next script answers",
        .enabled(if: ServerChildProcess.isAvailable))
    func webAssembly() async throws { try await expectChildPasses("voodooWebAssembly") }

    @Test(
        "runaway scripts whose clients reset never run, or stop at once; the next script answers, not N × timeout later",
        .enabled(if: ServerChildProcess.isAvailable))
    func clientGone() async throws { try await expectChildPasses("voodooClientGone") }

    @Test(
        "one runaway script whose client waits does not hold up another script endpoint: it is cut, the other answers",
        .enabled(if: ServerChildProcess.isAvailable))
    func runawayDoesNotHoldOthers() async throws { try await expectChildPasses("voodooRunawayYields") }

    @Test(
        "allocation bombs and a 256 MB string answer end in 500s while resident memory stays within 768 MB of its start",
        .enabled(if: ServerChildProcess.isAvailable))
    func memory() async throws { try await expectChildPasses("voodooMemory") }
    #endif

    @Test(
        "a billion-laughs YAML file and one nested 100,000 deep are refused with file and line, memory unmoved",
        .enabled(if: ServerChildProcess.isAvailable))
    func yamlBombs() async throws { try await expectChildPasses("voodooYAMLBombs") }
}

/// The scenarios, run by ``ServerChildScenarioHost`` in the child.
enum VoodooChildScenarios {
    static let all: [String: @Sendable () async throws -> Void] = {
        var all: [String: @Sendable () async throws -> Void] = [
            "voodooGraphQLDepth": graphQLDepth,
            "voodooYAMLBombs": yamlBombs,
        ]
        #if JavaScript
        all["voodooScriptNumbers"] = scriptNumbers
        all["voodooWebAssembly"] = webAssembly
        all["voodooClientGone"] = clientGone
        all["voodooRunawayYields"] = runawayYields
        all["voodooMemory"] = memory
        #endif
        return all
    }()

    /// A server for one Voodoo file; the log lines of its scripts are collected.
    static func serve(_ yaml: String, timeout: TimeInterval = 120) async throws -> (HTTPMockServer, VoodooLines, URL) {
        let folder = try makeVoodooFolder(["a.yml": yaml])
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.timeout = timeout
        let lines = VoodooLines()
        mock.serverLogger = lines.logger
        try mock.loadVoodoo(
            from: folder, templateDirectory: nil, fileDirectories: [], host: nil, shutdown: nil,
            warn: { Issue.record(Comment(rawValue: $0)) })
        return (try await mock.startServer(admin: true), lines, folder)  // admin: Voodoo's /_admin/ routes too
    }

    static func post(_ path: String, _ body: String, contentType: String, port: Int) async throws -> String {
        try await rawExchange(
            port: port,
            "POST \(path) HTTP/1.1\r\nHost: localhost\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)",
            timeout: 30)
    }

    static func get(_ path: String, port: Int) async throws -> String {
        try await rawExchange(port: port, "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n", timeout: 30)
    }

    static func graphQLDepth() async throws {
        let (server, _, folder) = try await serve(
            """
            graphQL:
              method: post
              query: "{ hero { name } }"
            response:
              status: 200
              body:
                text: hero
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        let deepSelection = "{" + String(repeating: "f {", count: 4_000) + "g" + String(repeating: "}", count: 4_001)
        let deepList = "{ hero(ids: " + String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000) + ") { name } }"
        let listOf100 = "{ hero(ids: " + String(repeating: "[1, ", count: 100) + String(repeating: "]", count: 100) + ") { name } }"
        for document in [deepSelection, deepList, listOf100] {
            let answer = try await post("/graphql", document, contentType: "application/graphql", port: server.port)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(300))")
            #expect(answer.contains("more than 64 levels deep"))
            let json = String(decoding: try JSONEncoder().encode(["query": document]), as: UTF8.self)
            let viaJSON = try await post("/graphql", json, contentType: "application/json", port: server.port)
            #expect(viaJSON.hasPrefix("HTTP/1.1 400") && viaJSON.contains("64"))
        }
        let fine = try await post(
            "/graphql", "{ hero(ids: [[1], [2, [3]]]) { name } }", contentType: "application/graphql", port: server.port)
        #expect(fine.hasPrefix("HTTP/1.1 200") && fine.hasSuffix("hero"))
        await server.stop()
    }

    static func yamlBombs() async throws {
        let start = residentMemory()
        var laughs = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...9 {
            laughs.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        let bomb =
            "http:\n  api: get /x\nresponse:\n  status: 200\n  body:\n    json:\n" + laughs.map { "      " + $0 }.joined(separator: "\n")
        let deep =
            "http:\n  api: get /x\nresponse:\n  status: 200\n  body:\n    json: " + String(repeating: "[", count: 100_000)
            + String(repeating: "]", count: 100_000) + "\n"
        for (yaml, expected) in [(bomb, "alias"), (deep, "nested more than 256 levels")] {
            let folder = try makeVoodooFolder(["bomb.yml": yaml])
            defer { try? FileManager.default.removeItem(at: folder) }
            let mock = HTTPMock()
            let error = try #require(throws: HTTPMockError.self) { try mock.loadVoodoo(from: folder) }
            #expect(error.message.contains("bomb.yml:") && error.message.contains(expected), "\(error.message)")
            #expect(mock.describeRoutes().isEmpty)
        }
        if let start, let end = residentMemory() {
            #expect(end.peak - start.peak < 256 << 20, "peak grew \((end.peak - start.peak) >> 20) MB")
        }
    }

    #if JavaScript
    static func scriptNumbers() async throws {
        let (server, _, folder) = try await serve(
            """
            - http:
                api: get /status/:code
              javascript: |
                function response(request, cache) {
                  return Response.raw(Number(request.pathParameters.code), Body.text("x"));
                }
            - http:
                api: get /header/:kind
              javascript: |
                function response(request, cache) {
                  if (request.pathParameters.kind === "split") { return Response.ok(Body.text("x"), { "X-A": "a\\r\\nX-Evil: 1" }); }
                  return Response.ok(Body.text("x"), { "Bad Name": "v" });
                }
            - http:
                api: get /throw
              javascript: |
                function response(request, cache) { throw { line: 1e300, message: "odd" }; }
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (path, named) in [
            ("/status/1e300", "1e+300"), ("/status/NaN", "NaN"), ("/status/101", "101"), ("/status/-5", "-5"),
            ("/header/split", "CR, LF"), ("/header/name", "Bad Name"),
        ] {
            let answer = try await get(path, port: server.port)
            #expect(answer.hasPrefix("HTTP/1.1 500") && answer.contains(named), "\(path): \(answer)")
            #expect(!answer.contains("X-Evil: 1\r\n"))
        }
        #expect(try await get("/throw", port: server.port).hasPrefix("HTTP/1.1 500"))
        let fine = try await get("/status/418", port: server.port)
        #expect(fine.hasPrefix("HTTP/1.1 418"))
        let delay = try await rawExchange(port: server.port, "PUT /_admin/delay/1e300 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(delay.hasPrefix("HTTP/1.1 400"))
        await server.stop()
    }

    static func webAssembly() async throws {
        // (module (func (export "f") (loop br 0))): a loop the time limit never sees.
        let (server, _, folder) = try await serve(
            """
            - http:
                api: get /wasm
              javascript: |
                function response(request, cache) {
                  var bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,4,1,96,0,0,3,2,1,0,7,5,1,1,102,0,0,10,9,1,7,0,3,64,12,0,11,11]);
                  new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.f();
                  return Response.ok(Body.text("ended"));
                }
            - http:
                api: get /ok
              javascript: |
                function response(request, cache) { return Response.ok(Body.text("ok " + typeof WebAssembly)); }
            """, timeout: 600)
        defer { try? FileManager.default.removeItem(at: folder) }
        let wasm = try await get("/wasm", port: server.port)
        #expect(wasm.hasPrefix("HTTP/1.1 500") && wasm.contains("WebAssembly"), "\(wasm)")
        let ok = try await get("/ok", port: server.port)
        #expect(ok.hasSuffix("ok undefined"), "\(ok)")
        await server.stop()
    }

    static let runaway = """
        - http:
            api: get /spin/:name
          javascript: |
            function response(request, cache) {
              console.log("started " + request.pathParameters.name);
              while (true) {}
            }
        - http:
            api: get /ok
          javascript: |
            function response(request, cache) { return Response.ok(Body.text("ok")); }
        """

    /// Waits (at most 30 s) until a script logged `line`.
    static func waitFor(_ line: String, in lines: VoodooLines) async throws {
        for _ in 0..<1_500 where !lines.all.contains(where: { $0.hasSuffix(line) }) {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    static func clientGone() async throws {
        // A timeout of 120 s: were the abandoned runaways each run to their time limit, the next
        // script would answer minutes later, past this child's time limit.
        let (server, lines, folder) = try await serve(runaway, timeout: 120)
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try await blocking {
            let client = try RawClient(port: server.port)
            try client.send("GET /spin/first HTTP/1.1\r\nHost: localhost\r\n\r\n")
            return client
        }
        try await waitFor("started first", in: lines)
        #expect(lines.all.contains { $0.hasSuffix("started first") })
        // Two more, queued behind the first, whose clients reset at once; then the first's.
        for name in ["second", "third"] {
            try await blocking {
                let client = try RawClient(port: server.port)
                try client.send("GET /spin/\(name) HTTP/1.1\r\nHost: localhost\r\n\r\n")
                client.resetNow()
            }
        }
        first.resetNow()
        let ok = try await get("/ok", port: server.port)
        #expect(ok.hasPrefix("HTTP/1.1 200") && ok.hasSuffix("ok"), "\(ok)")
        // A request whose client has gone runs no script.
        #expect(!lines.all.contains { $0.hasSuffix("started second") || $0.hasSuffix("started third") }, "\(lines.all)")
        #expect(!lines.all.contains { $0.contains("time limit") })
        await server.stop()
    }

    static func runawayYields() async throws {
        let (server, lines, folder) = try await serve(runaway, timeout: 120)
        defer { try? FileManager.default.removeItem(at: folder) }
        let spinning = try await blocking {
            let client = try RawClient(port: server.port)
            try client.send("GET /spin/one HTTP/1.1\r\nHost: localhost\r\n\r\n")
            return client
        }
        try await waitFor("started one", in: lines)
        let ok = try await get("/ok", port: server.port)
        #expect(ok.hasPrefix("HTTP/1.1 200") && ok.hasSuffix("ok"), "\(ok)")
        let cut = try await blocking { spinning.readResponse(timeout: 30) }
        #expect(cut.hasPrefix("HTTP/1.1 500") && cut.contains("other script requests were waiting"), "\(cut)")
        await server.stop()
    }

    static func memory() async throws {
        let (server, _, folder) = try await serve(
            """
            - http:
                api: get /bomb
              javascript: |
                function response(request, cache) {
                  var hoard = [];
                  while (true) { hoard.push(new Array(100000).fill(1.5)); }
                }
            - http:
                api: get /strings
              javascript: |
                var kept = [];
                function response(request, cache) {
                  while (true) { kept.push("y".repeat(1 << 20) + Math.random()); }
                }
            - http:
                api: get /huge
              javascript: |
                function response(request, cache) { return Response.ok(Body.text("x".repeat(256 << 20))); }
            - http:
                api: get /large
              javascript: |
                function response(request, cache) { return Response.ok(Body.text("x".repeat(100 << 20))); }
            - http:
                api: get /buffer
              javascript: |
                function response(request, cache) { var b = new Uint8Array(1 << 30); b.fill(1); return Response.ok(); }
            - http:
                api: get /ok
              javascript: |
                function response(request, cache) { return Response.ok(Body.text("ok")); }
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await get("/ok", port: server.port).hasSuffix("ok"))
        let start = try #require(residentMemory())
        for path in ["/bomb", "/strings", "/bomb", "/huge", "/large", "/buffer", "/strings"] {
            let answer = try await get(path, port: server.port)
            #expect(answer.hasPrefix("HTTP/1.1 500"), "\(path): \(answer.prefix(300))")
            #expect(answer.contains("MB") || answer.contains("bytes") || answer.contains("characters"), "\(path): \(answer.prefix(300))")
        }
        #expect(try await get("/ok", port: server.port).hasSuffix("ok"))
        let end = try #require(residentMemory())
        #expect(end.peak - start.now < 768 << 20, "resident memory peaked \((end.peak - start.now) >> 20) MB above its start")
        await server.stop()
    }
    #endif
}
#endif

#if Server
@Suite("Voodoo loaders are confined and checked (SPEC §20, §23)", .serialized, .timeLimit(.minutes(1)))
struct VoodooLoaderLimitsTests {
    @Test(
        "an include outside the configuration folder is refused without reading it; a non-YAML include or non-script javascriptFile is refused unread"
    )
    func includesStayInside() throws {
        let cases: [([String: String], [String])] = [
            (["a.yml": "- /etc/passwd\n"], ["a.yml:1", "outside the configuration folder"]),
            (["a.yml": "- ../../../../../../etc/passwd\n"], ["a.yml:1", "outside the configuration folder"]),
            (["a.yml": "- notes.txt\n", "notes.txt": "root:x:0:0:root:/root:/bin/bash\n"], ["a.yml:1", "not a YAML file"]),
            (["a.yml": "http:\n  api: get /a\njavascriptFile: /etc/passwd\n"], ["a.yml:3", "not a JavaScript file"]),
        ]
        for (files, expected) in cases {
            let folder = try makeVoodooFolder(files)
            defer { try? FileManager.default.removeItem(at: folder) }
            let mock = HTTPMock()
            let error = try #require(throws: HTTPMockError.self) { try mock.loadVoodoo(from: folder) }
            for part in expected { #expect(error.message.contains(part), "\(part) not in: \(error.message)") }
            #expect(!error.message.contains("root:x:0"))
            #expect(mock.describeRoutes().isEmpty)
        }
        // A file whose whole text is one YAML string is never quoted whole in the error.
        let long = "line one of a long text\nline two\n" + String(repeating: "x", count: 500)
        let folder = try makeVoodooFolder(["a.yml": "- |\n" + long.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = try #require(throws: HTTPMockError.self) { try HTTPMock().loadVoodoo(from: folder) }
        #expect(error.message.contains("line one of a long text…") && !error.message.contains("line two"))
    }

    @Test("a template or partial outside --template-dir is refused, from YAML at load and from Body.template per request")
    func templatesStayInside() async throws {
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-secret-\(UUID().uuidString).json")
        try Data("SECRET".utf8).write(to: outside)
        defer { try? FileManager.default.removeItem(at: outside) }
        let escape = "../../../../../../../.." + outside.deletingPathExtension().path
        let folder = try makeVoodooFolder([
            "config/a.yml": """
            - http:
                api: get /js
              javascript: |
                function response(request, cache) { return Response.ok(Body.template("\(escape)", "text/plain")); }
            """,
            "config/b.yml": "http:\n  api: get /yaml\nresponse:\n  status: 200\n  body:\n    template: \(escape)\n",
            "templates/partial.json": "before {{> \(escape)}} after",
            "config/c.yml": "http:\n  api: get /partial\nresponse:\n  status: 200\n  body:\n    template: partial\n",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let templates = folder.appendingPathComponent("templates")
        for file in ["b.yml", "c.yml"] {
            let mock = HTTPMock()
            let error = try #require(throws: HTTPMockError.self) {
                try mock.loadVoodoo(from: folder.appendingPathComponent("config/" + file), templateDirectory: templates)
            }
            #expect(error.message.contains("\(file):6") && error.message.contains("outside the template folder"), "\(error.message)")
        }
        #if JavaScript
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadVoodoo(from: folder.appendingPathComponent("config/a.yml"), templateDirectory: templates)
        let reply = try await voodooRequest(mock.urlSession, URL(string: "https://api.example.com/js")!)
        #expect(reply.status == 500 && reply.text.contains("outside the template folder") && !reply.text.contains("SECRET"))
        #endif
    }

    @Test("partials: a partial may name another; a cycle and a chain deeper than 32 are errors naming the chain")
    func partialChains() throws {
        var files = [
            "config/a.yml": "http:\n  api: get /a\nresponse:\n  status: 200\n  body:\n    template: loop\n",
            "templates/loop.json": "{{> back}}",
            "templates/back.json": "{{> loop}}",
            "templates/p0.json": "{{> p1}}",
        ]
        for level in 1...40 { files["templates/p\(level).json"] = "{{> p\(level + 1)}}" }
        files["config/deep.yml"] = "http:\n  api: get /deep\nresponse:\n  status: 200\n  body:\n    template: p0\n"
        let folder = try makeVoodooFolder(files)
        defer { try? FileManager.default.removeItem(at: folder) }
        let templates = folder.appendingPathComponent("templates")
        let cycle = try #require(throws: HTTPMockError.self) {
            try HTTPMock().loadVoodoo(from: folder.appendingPathComponent("config/a.yml"), templateDirectory: templates)
        }
        #expect(cycle.message.contains("a.yml:6") && cycle.message.contains("back → loop → back"), "\(cycle.message)")
        let deep = try #require(throws: HTTPMockError.self) {
            try HTTPMock().loadVoodoo(from: folder.appendingPathComponent("config/deep.yml"), templateDirectory: templates)
        }
        #expect(deep.message.contains("deep.yml:6") && deep.message.contains("32") && deep.message.contains("p1 → p2"), "\(deep.message)")
    }

    @Test("~ means absent for every optional key; statuses and numbers from YAML are checked, never trapped")
    func nullKeysAndNumbers() async throws {
        let folder = try makeVoodooFolder([
            "a.yml": """
            - http: { api: get /null }
              response: { status: 201, headers: ~, body: ~, url: ~ }
            - http: { api: get /text }
              response:
                status: 200
                headers: ~
                body: { text: "hi {{who}}", templateData: ~, contentType: ~ }
            - http: { api: get /inf }
              response:
                status: 200
                body: { json: { big: .inf, nan: .nan, who: "{{who}}" }, templateData: { who: .inf } }
            - graphQL: { method: ~, query: "{ hero { name } }" }
              response: { status: 200, body: { text: graphql } }
            """
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadVoodoo(from: folder)
        let base = URL(string: "https://api.example.com")!
        let null = try await voodooRequest(mock.urlSession, base.appendingPathComponent("null"))
        #expect(null.status == 201 && null.text.isEmpty && null.headers["Content-Type"] == nil)
        #expect(try await voodooRequest(mock.urlSession, base.appendingPathComponent("text")).text == "hi ")
        #expect(
            try await voodooRequest(mock.urlSession, base.appendingPathComponent("inf")).text
                == #"{"big":".inf","nan":".nan","who":".inf"}"#)
        for status in ["1e300", "99999999999999999999", "101", "~", ".nan"] {
            let bad = try makeVoodooFolder(["b.yml": "http:\n  api: get /b\nresponse:\n  status: \(status)\n"])
            defer { try? FileManager.default.removeItem(at: bad) }
            let error = try #require(throws: HTTPMockError.self) { try HTTPMock().loadVoodoo(from: bad) }
            #expect(error.message.contains("b.yml:4") && error.message.contains("response.status"), "\(status): \(error.message)")
        }
    }
}
#endif

#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
@_spi(CLI) import HTTPMockServer
import Testing

#if JavaScript
/// The lines a script wrote to the log.
final class VoodooLines: @unchecked Sendable {
    // @unchecked: `lines` is read and written under `lock`.
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

@Suite("Voodoo's JavaScript responses on JavaScriptCore", .serialized, .timeLimit(.minutes(1)))
struct VoodooScriptTests {
    func loadedMock() throws -> HTTPMock {
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadVoodoo(
            from: voodooFixtures.appendingPathComponent("config"), templateDirectory: voodooFixtures.appendingPathComponent("templates"),
            fileDirectories: [voodooFixtures.appendingPathComponent("files")])
        return mock
    }

    @Test("an inline script reads the request and shares cache with a Swift .dynamic handler through store")
    func inlineScriptSharesStore() async throws {
        let mock = try loadedMock()
        mock.store["counter"] = 10
        mock.addResponses(
            forPath: "/counter", host: "api.example.com",
            responses: [
                .dynamic(lifetime: .eternal) { _ in .plaintext("\(mock.store["counter"] ?? .null)") }
            ])
        let url = URL(string: "https://api.example.com/echo?tag=x")!
        let reply = try await voodooRequest(mock.urlSession, url, method: "POST", body: #"{"name":"Ada"}"#)
        #expect(reply.status == 201)
        #expect(reply.headers["X-Script"] as? String == "inline")
        let json = try JSONDecoder().decode(JSONValue.self, from: Data(reply.text.utf8))
        #expect(json == ["name": "Ada", "count": 11, "q": "x"])
        #expect(mock.store["counter"] == 11)
        let counter = try await voodooRequest(mock.urlSession, URL(string: "https://api.example.com/counter")!)
        #expect(counter.text == "11")
        // more/extra.yml is both included and below the folder: registered once.
        #expect(mock.describeRoutes().split(separator: "\n").filter { $0.contains("/included") }.count == 1)
    }

    @Test("a script file renders a template; a throwing script answers 500 with its message")
    func scriptFileAndThrow() async throws {
        let mock = try loadedMock()
        mock.store["visits"] = 3
        let greet = try await voodooRequest(mock.urlSession, URL(string: "https://api.example.com/greet/Ada")!)
        #expect(greet.status == 200 && greet.text == "Hello Ada (3 visits)")
        let failed = try await voodooRequest(mock.urlSession, URL(string: "https://api.example.com/greet/nobody")!)
        #expect(failed.status == 500)
        #expect(failed.text.contains("nobody to greet") && failed.text.contains("greet.js"))
        #expect(mock.requests(where: { $0.statusCode == 500 }).count == 1)
    }

    @Test("a script that returns nothing answers 500; console.log lines and the failure reach the instance's log")
    func returnsNothing() async throws {
        let lines = VoodooLines()
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadVoodoo(
            from: voodooFixtures.appendingPathComponent("config"), templateDirectory: voodooFixtures.appendingPathComponent("templates"),
            fileDirectories: [voodooFixtures.appendingPathComponent("files")], host: nil, shutdown: nil, log: { line in lines.append(line) }
        )
        let reply = try await voodooRequest(mock.urlSession, URL(string: "https://api.example.com/silent")!)
        #expect(reply.status == 500)
        #expect(reply.text.contains("returned nothing") && reply.text.contains("scripts.yml"))
        let logged = lines.all
        #expect(logged.contains { $0.contains("saying nothing") })
        #expect(logged.contains { $0.contains("returned nothing") })
        let journaled = mock.requests(where: { $0.request.url.path == "/silent" })
        #expect(journaled.count == 1 && journaled.first?.statusCode == 500)
    }

    @Test("a syntax error or no response function fails loading with file and line")
    func loadErrors() throws {
        let cases: [([String: String], [String])] = [
            (
                ["a.yml": "http:\n  api: get /a\njavascript: |\n  function response(request, cache) {\n    return Response.ok(;\n  }\n"],
                ["a.yml:5", "SyntaxError"]
            ),
            (["a.yml": "http:\n  api: get /a\njavascript: \"var x = 1;\"\n"], ["a.yml:3", "no function response"]),
            (
                [
                    "a.yml": "http:\n  api: get /a\njavascriptFile: js/bad.js\n",
                    "js/bad.js": "// bad\n\nfunction response(request, cache) {\n  return }}\n}\n",
                ],
                ["bad.js:4", "SyntaxError"]
            ),
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

    @Test("while (true) {} is cut by the instance timeout and the engine answers the next request")
    func runawayScript() async throws {
        let folder = try makeVoodooFolder([
            "a.yml": """
            http:
              api: get /spin/:n
            javascript: |
              function response(request, cache) {
                if (request.pathParameters.n === "forever") { while (true) {} }
                return Response.ok(Body.text("done " + request.pathParameters.n));
              }
            """
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.timeout = 1
        try mock.loadVoodoo(from: folder)
        // It ends (the suite's time limit would catch one that does not), and not with a 200.
        let spun = try? await voodooRequest(mock.urlSession, URL(string: "https://api.example.com/spin/forever")!)
        #expect(spun?.status != 200)
        // The engine is usable again (the request above may have timed out before the script was cut).
        var after: (status: Int, headers: [AnyHashable: Any], text: String)?
        for _ in 0..<20 where after?.status != 200 {
            after = try? await voodooRequest(mock.urlSession, URL(string: "https://api.example.com/spin/1")!)
            if after?.status != 200 { try await Task.sleep(nanoseconds: 200_000_000) }
        }
        #expect(after?.status == 200 && after?.text == "done 1")
    }
}
#else
@Suite("Voodoo scripts without the JavaScript trait")
struct VoodooNoScriptTests {
    @Test("a config with a script fails to load, naming the endpoint and the trait")
    func scriptNeedsTrait() throws {
        let folder = try makeVoodooFolder(["a.yml": "http:\n  api: get /a\njavascript: \"function response() {}\"\n"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let mock = HTTPMock()
        let error = try #require(throws: HTTPMockError.self) { try mock.loadVoodoo(from: folder) }
        #expect(error.message.contains("GET /a") && error.message.contains("--traits JavaScript"))
        #expect(mock.describeRoutes().isEmpty)
    }
}
#endif
#endif

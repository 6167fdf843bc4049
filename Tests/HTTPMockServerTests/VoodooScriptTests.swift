#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
@_spi(CLI) import HTTPMockServer
import Testing

#if JavaScript
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
        mock.serverLogger = lines.logger
        try mock.loadVoodoo(
            from: voodooFixtures.appendingPathComponent("config"), templateDirectory: voodooFixtures.appendingPathComponent("templates"),
            fileDirectories: [voodooFixtures.appendingPathComponent("files")], host: nil, shutdown: nil,
            warn: { _ in })
        let reply = try await voodooRequest(mock.urlSession, URL(string: "https://api.example.com/silent")!)
        #expect(reply.status == 500)
        #expect(reply.text.contains("returned nothing") && reply.text.contains("scripts.yml"))
        let logged = lines.all
        #expect(logged.contains { $0.contains("saying nothing") })
        #expect(logged.contains { $0.contains("returned nothing") })
        let journaled = mock.requests(where: { $0.request.url.path == "/silent" })
        #expect(journaled.count == 1 && journaled.first?.statusCode == 500)
    }

    @Test("a syntax error or no response function does not stop the load: a test failure at the call site, that endpoint answers 500")
    func brokenScriptsLoadTheRest() async throws {
        let good = "- http:\n    api: get /good\n  response:\n    status: 200\n    body:\n      text: fine\n"
        let cases: [([String: String], [String])] = [
            (
                [
                    "a.yml": good
                        + "- http:\n    api: get /a\n  javascript: |\n    function response(request, cache) {\n      return Response.ok(;\n    }\n"
                ],
                ["a.yml:11", "SyntaxError"]
            ),
            (["a.yml": good + "- http:\n    api: get /a\n  javascript: \"var x = 1;\"\n"], ["a.yml:9", "no function response"]),
            (
                [
                    "a.yml": good + "- http:\n    api: get /a\n  javascriptFile: js/bad.js\n",
                    "js/bad.js": "// bad\n\nfunction response(request, cache) {\n  return }}\n}\n",
                ],
                ["bad.js:4", "SyntaxError"]
            ),
        ]
        for (files, expected) in cases {
            let folder = try makeVoodooFolder(files)
            defer { try? FileManager.default.removeItem(at: folder) }
            let mock = HTTPMock()
            mock.logHandler = nil
            let messages = VoodooLines()
            try mock.loadVoodoo(
                from: folder, templateDirectory: nil, fileDirectories: [], host: nil, shutdown: nil, warn: { messages.append($0) })
            let warning = try #require(messages.all.first)
            for part in expected { #expect(warning.contains(part), "\(part) not in: \(warning)") }
            let good = try await voodooRequest(mock.urlSession, URL(string: "https://api.example.com/good")!)
            #expect(good.status == 200 && good.text == "fine")
            let broken = try await voodooRequest(mock.urlSession, URL(string: "https://api.example.com/a")!)
            #expect(broken.status == 500 && broken.text == warning)
        }
    }

    @Test("loadVoodoo records a script that does not load as a test failure at its call site")
    func brokenScriptIsATestFailureAtTheCallSite() throws {
        let folder = try makeVoodooFolder(["a.yml": "http:\n  api: get /a\njavascript: login.js\n"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let mock = HTTPMock()
        mock.logHandler = nil
        let line = #line + 3
        withKnownIssue {
            do {
                try mock.loadVoodoo(from: folder)
            } catch {
                Issue.record(error)
            }
        } matching: { issue in
            issue.sourceLocation?.line == line && issue.sourceLocation?.fileName == "VoodooScriptTests.swift"
                && "\(issue)".contains("a.yml:3") && "\(issue)".contains("login")
        }
        #expect(mock.describeRoutes().contains("/a"))
    }

    @Test("a script sees request.bodyJSON's members in the order the client sent them, as JSON.parse gives them (issue 45.2)")
    func bodyJSONKeepsItsOrder() async throws {
        let folder = try makeVoodooFolder([
            "a.yml": """
            http:
              api: post /keys
            javascript: |
              function response(request, cache) {
                return Response.ok(Body.text(Object.keys(request.bodyJSON).join(",") + ";" + Object.keys(request.bodyJSON.inner).join(",")));
              }
            """
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadVoodoo(from: folder)
        let reply = try await voodooRequest(
            mock.urlSession, URL(string: "https://api.example.com/keys")!, method: "POST",
            body: #"{"zeta":1,"alpha":2,"inner":{"y":1,"b":2}}"#)
        #expect(reply.status == 200 && reply.text == "zeta,alpha,inner;y,b", "\(reply.text)")
    }

    @Test("while (true) {} is cut at 80 % of the instance timeout with a 500 naming the limit, and the engine answers the next request")
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
        mock.timeout = 5
        try mock.loadVoodoo(from: folder)
        // Stopped at 80 % of the timeout, so the 500 reaches the client before the request times out.
        let spun = try await voodooRequest(mock.urlSession, URL(string: "https://api.example.com/spin/forever")!)
        #expect(spun.status == 500 && spun.text.contains("time limit (4.0 s"), "\(spun.text)")
        // The engine is usable again.
        let after = try await voodooRequest(mock.urlSession, URL(string: "https://api.example.com/spin/1")!)
        #expect(after.status == 200 && after.text == "done 1")
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

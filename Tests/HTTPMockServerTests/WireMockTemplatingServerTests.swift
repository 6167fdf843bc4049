#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

/// A WireMock root written for one test: `mappings/` and `__files/`, removed at the end.
struct WireMockFolder {
    let root: URL

    init(mappings: [String: String], files: [String: String] = [:]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("wm-templates-\(UUID().uuidString)")
        for (name, text) in mappings { try write(text, to: "mappings/" + name) }
        for (name, text) in files { try write(text, to: "__files/" + name) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("__files"), withIntermediateDirectories: true)
    }

    func write(_ text: String, to path: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

/// Mappings mixing templated and literal responses (SPEC §21), used by the Swift and the CLI tests.
let mixedTemplatingMappings: [String: String] = [
    "templated.json": #"""
    {"request": {"method": "GET", "urlPathPattern": "/hello/[a-z]+"},
     "response": {"status": 200, "body": "Hello {{request.path.[1]}} ({{request.query.lang}}, {{request.query.lang.[1]}}) {{base64 'hello'}} {{{base64 'hello'}}}",
                  "headers": {"Content-Type": "text/plain", "X-Echo": "{{request.headers.X-Trace}}", "X-Fixed": "fixed"},
                  "transformers": ["response-template"]}}
    """#,
    "literal.json": #"""
    {"request": {"method": "GET", "url": "/literal"},
     "response": {"status": 200, "body": "{{request.path}} is served as written", "headers": {"X-Raw": "{{x}}"}}}
    """#,
    "json.json": #"""
    {"request": {"method": "POST", "url": "/orders"},
     "response": {"status": 201, "jsonBody": {"id": "{{jsonPath request.body '$.id'}}", "items": "{{size (jsonPath request.body '$.items')}}", "by": "{{parameters.owner}}"},
                  "transformers": ["response-template"], "transformerParameters": {"owner": "shop"}}}
    """#,
    "file.json": #"""
    {"request": {"method": "GET", "urlPathPattern": "/files/.+"},
     "response": {"status": 200, "bodyFileName": "pages/{{request.pathSegments.[1]}}.txt", "transformers": ["response-template"]}}
    """#,
    "static-file.json": #"""
    {"request": {"method": "GET", "url": "/static-file"},
     "response": {"status": 200, "bodyFileName": "pages/static.txt", "transformers": ["response-template"]}}
    """#,
    "binary.json": #"""
    {"request": {"method": "GET", "url": "/binary"},
     "response": {"status": 200, "base64Body": "e3tyZXF1ZXN0LnBhdGh9fQ==", "transformers": ["response-template"]}}
    """#,
    "partial.json": #"""
    {"request": {"method": "GET", "url": "/greeting?name=Lin"},
     "response": {"status": 200, "body": "[{{> greeting}}]", "transformers": ["response-template"]}}
    """#,
    "failing.json": #"""
    {"request": {"method": "GET", "url": "/divide"},
     "response": {"status": 200, "body": "{{math 1 '/' 0}}", "transformers": ["response-template"]}}
    """#,
]

let mixedTemplatingFiles: [String: String] = [
    "pages/about.txt": "About {{request.pathSegments.[1]}}, asked with {{request.method}}",
    "pages/static.txt": "static name, {{upper 'templated'}} content",
    "greeting.hbs": "Hi {{request.query.name}}",
]

@Suite("WireMock response templating through the server (SPEC §21)", .serialized, .timeLimit(.minutes(1)))
struct WireMockTemplatingServerTests {
    func get(
        _ session: URLSession, _ url: String, method: String = "GET", body: String? = nil, headers: [String: String] = [:]
    )
        async throws -> (status: Int, text: String, headers: [AnyHashable: Any])
    {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, String(decoding: data, as: UTF8.self), http?.allHeaderFields ?? [:])
    }

    @Test(
        "a folder mixing templated and literal mappings: body, headers, jsonBody, parameters, file names and contents; literal {{ served as written"
    )
    func mixedFolder() async throws {
        let folder = try WireMockFolder(mappings: mixedTemplatingMappings, files: mixedTemplatingFiles)
        defer { folder.remove() }
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadWireMock(from: folder.root)
        let server = try await mock.startServer()
        defer { Task { await server.stop() } }
        let base =
            server.baseURL.absoluteString.hasSuffix("/") ? String(server.baseURL.absoluteString.dropLast()) : server.baseURL.absoluteString
        let session = makePlainSession()

        let hello = try await get(session, base + "/hello/ada?lang=en&lang=fr", headers: ["X-Trace": "t-1"])
        #expect(hello.status == 200)
        #expect(hello.text == "Hello ada (en, fr) aGVsbG8&#x3D; aGVsbG8=")
        #expect(hello.headers["X-Echo"] as? String == "t-1")
        #expect(hello.headers["X-Fixed"] as? String == "fixed")

        let literal = try await get(session, base + "/literal")
        #expect(literal.text == "{{request.path}} is served as written")
        #expect(literal.headers["X-Raw"] as? String == "{{x}}")

        let order = try await get(session, base + "/orders", method: "POST", body: #"{"id": "o-7", "items": [1, 2, 3]}"#)
        #expect(order.status == 201)
        #expect(order.text == #"{"by":"shop","id":"o-7","items":"3"}"#)

        #expect(try await get(session, base + "/files/about").text == "About about, asked with GET")
        #expect(try await get(session, base + "/static-file").text == "static name, TEMPLATED content")
        // A partial comes from __files/ (name, else name.hbs).
        #expect(try await get(session, base + "/greeting?name=Lin").text == "[Hi Lin]")
        // base64Body is not templated (as in WireMock).
        #expect(try await get(session, base + "/binary").text == "{{request.path}}")
        // A file that is not there, or a name that leaves __files/, is a 500 naming it, never another file.
        let missing = try await get(session, base + "/files/nothing")
        #expect(missing.status == 500)
        #expect(missing.text.contains("no file pages/nothing.txt"))
        let escaping = try await get(session, base + "/files/..%2F..%2F..%2Fetc%2Fpasswd")
        #expect(escaping.status == 500)
        #expect(!escaping.text.contains("root:"))
        // A helper failing on a request is a 500 saying why, as in WireMock.
        let divided = try await get(session, base + "/divide")
        #expect(divided.status == 500)
        #expect(divided.text.contains("division by zero"))
    }

    @Test("globalTemplating renders every mapping; request.url, baseUrl, host and port are what the client called")
    func globalTemplating() async throws {
        let folder = try WireMockFolder(mappings: [
            "called.json": #"""
            {"request": {"urlPath": "/where"}, "response": {"body": "{{request.url}}|{{request.baseUrl}}|{{request.host}}|{{request.port}}|{{request.scheme}}"}}
            """#
        ])
        defer { folder.remove() }
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadWireMock(from: folder.root, globalTemplating: true)
        let server = try await mock.startServer()
        defer { Task { await server.stop() } }
        let port = server.port
        let reply = try await get(makePlainSession(), "http://127.0.0.1:\(port)/where?q=1")
        #expect(reply.text == "/where?q&#x3D;1|http://127.0.0.1:\(port)|127.0.0.1|\(port)|http")
    }

    @Test("a templated proxyBaseUrl forwards to the rendered address")
    func templatedProxy() async throws {
        let upstream = HTTPMock()
        upstream.logHandler = nil
        upstream.addResponses(forPath: "/api/**", host: "**", responses: [.plaintext("from upstream", lifetime: .eternal)])
        let upstreamServer = try await upstream.startServer()
        defer { Task { await upstreamServer.stop() } }
        let folder = try WireMockFolder(mappings: [
            "proxy.json": #"""
            {"request": {"urlPathPattern": "/api/.*"},
             "response": {"proxyBaseUrl": "http://127.0.0.1:{{request.headers.X-Upstream-Port}}", "transformers": ["response-template"]}}
            """#
        ])
        defer { folder.remove() }
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadWireMock(from: folder.root)
        let server = try await mock.startServer()
        defer { Task { await server.stop() } }
        let reply = try await get(
            makePlainSession(), "http://127.0.0.1:\(server.port)/api/x", headers: ["X-Upstream-Port": "\(upstreamServer.port)"])
        #expect(reply.status == 200)
        #expect(reply.text == "from upstream")
    }

    @Test("an unknown helper fails the load naming the helper and the mapping; nothing of the folder is registered")
    func loadErrors() async throws {
        let folder = try WireMockFolder(mappings: [
            "good.json": #"{"request": {"url": "/good"}, "response": {"body": "fine"}}"#,
            "faker.json": #"""
            {"id": "6b0e3d3c-1a43-4c7f-9c4b-0d7e6c1f2a11", "request": {"url": "/city"},
             "response": {"body": "{\"city\":\"{{ random 'Address.city' }}\"}", "transformers": ["response-template"]}}
            """#,
        ])
        defer { folder.remove() }
        let mock = HTTPMock()
        mock.logHandler = nil
        #expect { try mock.loadWireMock(from: folder.root) } throws: { error in
            let message = (error as? HTTPMockError)?.message ?? ""
            return message.contains("mapping 6b0e3d3c-1a43-4c7f-9c4b-0d7e6c1f2a11") && message.contains("/response/body")
                && message.contains("unknown helper random")
        }
        let server = try await mock.startServer()
        defer { Task { await server.stop() } }
        #expect(try await get(makePlainSession(), "http://127.0.0.1:\(server.port)/good").status == 404)

        // The same mapping without templating loads: its body is served as written.
        let plain = HTTPMock()
        plain.logHandler = nil
        let literalFolder = try WireMockFolder(mappings: [
            "faker.json": #"{"request": {"url": "/city"}, "response": {"body": "{\"city\":\"{{ random 'Address.city' }}\"}"}}"#
        ])
        defer { literalFolder.remove() }
        try plain.loadWireMock(from: literalFolder.root)
        #expect(plain.wireMockLiteralTemplateCount == 1)
        #expect { try plain.loadWireMock(from: literalFolder.root, globalTemplating: true) } throws: { error in
            ((error as? HTTPMockError)?.message ?? "").contains("unknown helper random")
        }

        // A file's content is a template too: its mistakes fail the load, naming the file.
        let fileFolder = try WireMockFolder(
            mappings: [
                "file.json": #"{"request": {"url": "/f"}, "response": {"bodyFileName": "f.txt", "transformers": ["response-template"]}}"#
            ], files: ["f.txt": "{{#each request.query}}never closed"])
        defer { fileFolder.remove() }
        #expect { try HTTPMock().loadWireMock(from: fileFolder.root) } throws: { error in
            let message = (error as? HTTPMockError)?.message ?? ""
            return message.contains("bodyFileName (f.txt)") && message.contains("is never closed")
        }
    }

    @Test("the admin API answers 422 naming the helper for a template it cannot run, and registers nothing")
    func adminRefusesUnknownHelpers() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        let server = try await mock.startServer(admin: true)
        defer { Task { await server.stop() } }
        let session = makePlainSession()
        let base = "http://127.0.0.1:\(server.port)"
        let refused = try await get(
            session, base + "/__admin/mappings", method: "POST",
            body: #"{"request":{"url":"/city"},"response":{"body":"{{random 'Address.city'}}","transformers":["response-template"]}}"#,
            headers: ["Content-Type": "application/json"])
        #expect(refused.status == 422)
        #expect(refused.text.contains("unknown helper random"))
        #expect(refused.text.contains("/response/body"))
        let header = try await get(
            session, base + "/__admin/mappings", method: "POST",
            body: #"{"request":{"url":"/h"},"response":{"headers":{"X-A":"{{#if x}}open"},"transformers":["response-template"]}}"#,
            headers: ["Content-Type": "application/json"])
        #expect(header.status == 422)
        #expect(header.text.contains("/response/headers/X-A"))
        #expect(try await get(session, base + "/city").status == 404)
        #expect(try await get(session, base + "/__admin/mappings").text.contains(#""total":0"#))
        let accepted = try await get(
            session, base + "/__admin/mappings", method: "POST",
            body:
                #"{"request":{"urlPathPattern":"/t/.*"},"response":{"body":"{{request.pathSegments.[1]}}","transformers":["response-template"]}}"#,
            headers: ["Content-Type": "application/json"])
        #expect(accepted.status == 201)
        #expect(try await get(session, base + "/t/ok").text == "ok")
    }
}
#endif

#if Server
@Suite(
    "httpmock serve --wiremock-root: templated and literal mappings through the spawned CLI and curl", .serialized, .timeLimit(.minutes(1)))
struct WireMockTemplatingCLITests {
    func start(_ folder: WireMockFolder, extra: [String] = []) async throws -> (RunningCLI, String) {
        let cli = try RunningCLI(["serve", "--port", "0"] + extra + ["--wiremock-root", folder.root.path], directory: folder.root)
        let started = try await cli.waitFor("serving on http://")
        let line = try #require(started.split(separator: "\n").first { $0.contains("serving on http://") })
        let base = String(line[line.range(of: "http://")!.lowerBound...]).trimmingCharacters(in: .whitespaces)
        return (cli, base.hasSuffix("/") ? String(base.dropLast()) : base)
    }

    @Test("templated mappings render, literal ones are served as written, and the start-up log says so once")
    func mixedFolder() async throws {
        let folder = try WireMockFolder(mappings: mixedTemplatingMappings, files: mixedTemplatingFiles)
        defer { folder.remove() }
        let (cli, base) = try await start(folder)
        defer { cli.process.terminate() }
        #expect(try await curl(["-H", "X-Trace: t-9", base + "/hello/lin?lang=de"]) == "Hello lin (de, ) aGVsbG8&#x3D; aGVsbG8=")
        #expect(try await curl(["-D", "-", "-o", "/dev/null", "-H", "X-Trace: t-9", base + "/hello/lin"]).contains("X-Echo: t-9"))
        #expect(try await curl([base + "/literal"]) == "{{request.path}} is served as written")
        #expect(
            try await curl(["-X", "POST", "-d", #"{"id":"o-1","items":[1]}"#, base + "/orders"]) == #"{"by":"shop","id":"o-1","items":"1"}"#
        )
        #expect(try await curl([base + "/files/about"]) == "About about, asked with GET")
        #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code}", base + "/divide"]) == "500")
        let note = "1 WireMock mapping holds {{ and is served as written (templating off; --global-response-templating to turn it on)"
        #expect(cli.text.components(separatedBy: note).count == 2, "\(cli.text)")
    }

    @Test("--global-response-templating renders every mapping and prints no note")
    func globalTemplating() async throws {
        var mappings = mixedTemplatingMappings
        mappings["literal.json"] = #"""
            {"request": {"method": "GET", "url": "/literal"}, "response": {"status": 200, "body": "{{request.path}} rendered"}}
            """#
        let folder = try WireMockFolder(mappings: mappings, files: mixedTemplatingFiles)
        defer { folder.remove() }
        let (cli, base) = try await start(folder, extra: ["--global-response-templating"])
        defer { cli.process.terminate() }
        #expect(try await curl([base + "/literal"]) == "/literal rendered")
        #expect(try await curl([base + "/hello/ada"]) == "Hello ada (, ) aGVsbG8&#x3D; aGVsbG8=")
        #expect(!cli.text.contains("served as written"))
    }

    @Test("serve with no source and --global-response-templating renders mappings posted to the admin API; no note")
    func globalTemplatingWithoutRoot() async throws {
        let folder = try WireMockFolder(mappings: [:])
        defer { folder.remove() }
        let cli = try RunningCLI(["serve", "--port", "0", "--global-response-templating"], directory: folder.root)
        defer { cli.process.terminate() }
        let started = try await cli.waitFor("serving on http://")
        let line = try #require(started.split(separator: "\n").first { $0.contains("serving on http://") })
        let base = String(line[line.range(of: "http://")!.lowerBound...]).trimmingCharacters(in: .whitespaces)
        let mapping =
            #"{"request": {"method": "GET", "urlPath": "/echo"}, "response": {"status": 200, "body": "{{request.query.word}} {{upper request.query.word}}"}}"#
        let posted = try await curl([
            "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/json", "-d", mapping, base + "/__admin/mappings",
        ])
        #expect(posted == "201")
        #expect(try await curl([base + "/echo?word=swift"]) == "swift SWIFT")
        #expect(!cli.text.contains("served as written"), "\(cli.text)")
    }

    @Test("a mapping file with an unknown helper stops the start, naming the helper and the mapping")
    func loadError() async throws {
        let folder = try WireMockFolder(mappings: [
            "faker.json":
                #"{"request": {"url": "/city"}, "response": {"body": "{{random 'Address.city'}}", "transformers": ["response-template"]}}"#
        ])
        defer { folder.remove() }
        let cli = try RunningCLI(["serve", "--port", "0", "--wiremock-root", folder.root.path], directory: folder.root)
        let status = try await cli.waitForExit(timeout: 20)
        #expect(status != 0)
        #expect(cli.text.contains("unknown helper random"), "\(cli.text)")
        #expect(cli.text.contains("/response/body"), "\(cli.text)")
    }
}
#endif

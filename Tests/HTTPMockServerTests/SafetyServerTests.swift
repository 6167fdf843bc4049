#if Server
import Foundation
import HTTPMock
import HTTPMockServer
import Testing

/// SPEC §22's `Upgrade` item and §23's server-side safety items, through real sockets: an
/// upgrade offer declined on a connection that keeps working, a request body read in linear
/// time, one access rule for every admin path, the CLI's bounded journal.
@Suite("Server safety (SPEC §22 Upgrade, §23)")
struct SafetyServerTests {
    // MARK: - Upgrade offers

    /// What Java's `java.net.http.HttpClient` sends on its first request to an `http://` URL.
    static let upgradeOffer =
        "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAEAAEAAAAIAAAABAAMAAABkAAQBAAAAAAUAAEAA\r\n"

    static func pingMock() -> HTTPMock {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/ping", host: "api.example.com", responses: [.plaintext("pong", lifetime: .eternal)])
        mock.addResponses(
            forPath: "/echo", host: "api.example.com", method: .post,
            responses: [.dynamic(lifetime: .eternal) { request in .plaintext("got \(request.body?.count ?? 0)") }])
        return mock
    }

    @Test("an Upgrade: h2c offer is answered as HTTP/1.1 and the next request on the connection is answered too")
    func upgradeOfferDeclined() async throws {
        let mock = Self.pingMock()
        let server = try await mock.startServer(impersonating: "api.example.com")
        defer { Task { await server.stop() } }
        let port = server.port
        let (first, second, third) = try await blocking { () -> (String, String, String) in
            let client = try RawClient(port: port)
            try client.send("GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\(Self.upgradeOffer)\r\n")
            let first = client.readResponse(timeout: 30)
            client.reset()
            try client.send("GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let second = client.readResponse(timeout: 30)
            client.reset()
            // With a body, then a request pipelined behind it in the same write.
            try client.send(
                "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\(Self.upgradeOffer)\r\nabc"
                    + "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let third = client.read(timeout: 30) { $0.components(separatedBy: "HTTP/1.1 200").count == 3 && $0.hasSuffix("pong") }
            return (first, second, third)
        }
        #expect(first.hasPrefix("HTTP/1.1 200") && first.hasSuffix("pong"), "\(first)")
        #expect(!first.contains("101"), "\(first)")
        #expect(second.hasPrefix("HTTP/1.1 200") && second.hasSuffix("pong"), "the second request hung: \(second.debugDescription)")
        #expect(third.contains("got 3") && third.hasSuffix("pong"), "\(third.debugDescription)")
    }

    /// `java` on the PATH (Debian's openjdk-17), for Java's own `HttpClient`.
    static let java: URL? = {
        let candidates = ["/usr/bin/java", "/usr/local/bin/java"]
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        return URL(fileURLWithPath: path)
    }()

    @Test(
        "Java's java.net.http.HttpClient makes several keep-alive requests to httpmock serve (Tests/Java/HttpClientKeepAliveCheck.java)",
        .enabled(if: java != nil, "needs a JDK (openjdk-17)"))
    func javaHttpClientKeepsAlive() async throws {
        let folder = try makeMocksFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (cli, port) = try await Self.serve([], folder: folder)
        defer { cli.process.terminate() }
        let check = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Java/HttpClientKeepAliveCheck.java")
        let process = Process()
        guard let java = Self.java else { return }
        process.executableURL = java
        process.arguments = [check.path, "http://127.0.0.1:\(port)"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // The program bounds each request itself (20 s) and exits 1 on a timeout.
        let output = try await blocking { pipe.fileHandleForReading.readDataToEndOfFile() }
        process.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("6 requests answered over HTTP/1.1"), "\(text)")
    }

    // MARK: - Request bodies

    /// Seconds to send `count` requests of `size` bytes each on one connection and read their answers.
    static func upload(port: Int, size: Int, count: Int) async throws -> Double {
        try await blocking {
            let client = try RawClient(port: port)
            let body = Data(repeating: UInt8(ascii: "x"), count: size)
            let started = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<count {
                client.reset()
                try client.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(size)\r\n\r\n")
                try client.send(body)
                let answer = client.readResponse(timeout: 120)
                guard answer.hasSuffix("got \(size)") else { throw CLITestError("no answer to a \(size)-byte body: \(answer)") }
            }
            return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        }
    }

    @Test("a request body is read in linear time: one 32 MB body costs about what 8 bodies of 4 MB do")
    func bodyReadIsLinear() async throws {
        let mock = Self.pingMock()
        let server = try await mock.startServer(impersonating: "api.example.com")
        defer { Task { await server.stop() } }
        // Interleaved rounds, the fastest of each kind: a busy machine slows both alike. Copying
        // the whole body so far for every chunk makes one 32 MB body ~8× the eight 4 MB ones.
        var whole = Double.infinity
        var parts = Double.infinity
        for _ in 0..<3 {
            whole = min(whole, try await Self.upload(port: server.port, size: 32 << 20, count: 1))
            parts = min(parts, try await Self.upload(port: server.port, size: 4 << 20, count: 8))
        }
        #expect(whole < 3 * parts, "32 MB took \(whole) s, 8 × 4 MB \(parts) s")
    }

    // MARK: - Admin access

    static func adminServer(token: String? = nil, origins: [String] = []) async throws -> (HTTPMock, HTTPMockServer) {
        let mock = Self.pingMock()
        let server = try await mock.startServer(
            impersonating: "api.example.com", admin: true, adminToken: token, adminAllowedOrigins: origins)
        return (mock, server)
    }

    static let mapping = #"{"request":{"method":"GET","url":"/evil"},"response":{"status":200,"body":"pwned"}}"#

    static func post(_ port: Int, _ path: String, headers: String, body: String = mapping) async throws -> String {
        try await rawExchange(
            port: port, "POST \(path) HTTP/1.1\r\n\(headers)Content-Length: \(body.utf8.count)\r\n\r\n\(body)", timeout: 30)
    }

    @Test(
        "a web page of another origin cannot drive the admin API: Origin, Sec-Fetch-Site, a browser's non-JSON bodies and foreign Hosts are refused; other clients' text/plain is taken, as WireMock takes it"
    )
    func crossOriginRefused() async throws {
        let (_, server) = try await Self.adminServer()
        defer { Task { await server.stop() } }
        let port = server.port
        let host = "Host: 127.0.0.1:\(port)\r\n"
        // What a no-cors fetch from http://evil.example sends.
        let noCors = try await Self.post(
            port, "/__admin/mappings",
            headers: host + "Origin: http://evil.example\r\nSec-Fetch-Site: cross-site\r\nContent-Type: text/plain\r\n")
        #expect(noCors.hasPrefix("HTTP/1.1 403"), "\(noCors)")
        #expect(noCors.contains("evil.example") && noCors.contains("--admin-allow-origin"))
        // A page of a sibling port on the same machine (same site, another origin), without Origin.
        let sameSite = try await rawExchange(
            port: port, "GET /__admin/requests HTTP/1.1\r\n\(host)Sec-Fetch-Site: same-site\r\n\r\n", timeout: 30)
        #expect(sameSite.hasPrefix("HTTP/1.1 403"), "\(sameSite)")
        // A text/plain body a browser sent from the server's own origin (a form on a page it serves).
        let plain = try await Self.post(
            port, "/__admin/mappings", headers: host + "Origin: http://127.0.0.1:\(port)\r\nContent-Type: text/plain\r\n")
        #expect(plain.hasPrefix("HTTP/1.1 415") && plain.contains("application/json"), "\(plain)")
        let form = try await Self.post(
            port, "/__admin/mappings", headers: host + "Sec-Fetch-Mode: navigate\r\nContent-Type: application/x-www-form-urlencoded\r\n")
        #expect(form.hasPrefix("HTTP/1.1 415"), "\(form)")
        // DNS rebinding: evil.example resolved to 127.0.0.1.
        let rebound = try await rawExchange(port: port, "GET /__admin/requests HTTP/1.1\r\nHost: evil.example:\(port)\r\n\r\n", timeout: 30)
        #expect(rebound.hasPrefix("HTTP/1.1 403") && rebound.contains("evil.example"), "\(rebound)")
        let shutdown = try await Self.post(port, "/__admin/shutdown", headers: "Host: evil.example\r\n", body: "")
        #expect(shutdown.hasPrefix("HTTP/1.1 403"), "\(shutdown)")
        let evil = try await rawExchange(port: port, "GET /evil HTTP/1.1\r\n\(host)\r\n", timeout: 30)
        #expect(!evil.contains("pwned"), "a refused request created the mapping: \(evil)")
        // The server's own page (the dashboard), a JSON client and a request with no Host pass.
        let own = try await Self.post(
            port, "/__admin/mappings",
            headers: host + "Origin: http://127.0.0.1:\(port)\r\nSec-Fetch-Site: same-origin\r\nContent-Type: application/json\r\n")
        #expect(own.hasPrefix("HTTP/1.1 201"), "\(own)")
        let plainClient = try await Self.post(
            port, "/__admin/mappings", headers: "Host: localhost:\(port)\r\nContent-Type: application/json; charset=utf-8\r\n")
        #expect(plainClient.hasPrefix("HTTP/1.1 201"), "\(plainClient)")
        // Not a browser: WireMock's Java client sends text/plain, curl -d a form type; WireMock takes both.
        let javaClient = try await Self.post(
            port, "/__admin/mappings", headers: host + "Content-Type: text/plain; charset=UTF-8\r\n",
            body: #"{"request":{"url":"/java"},"response":{"status":204}}"#)
        #expect(javaClient.hasPrefix("HTTP/1.1 201"), "\(javaClient)")
        let curlForm = try await Self.post(
            port, "/__admin/mappings", headers: host + "Content-Type: application/x-www-form-urlencoded\r\n",
            body: #"{"request":{"url":"/curl"},"response":{"status":204}}"#)
        #expect(curlForm.hasPrefix("HTTP/1.1 201"), "\(curlForm)")
        let health = try await rawExchange(port: port, "GET /__admin/mappings HTTP/1.0\r\n\r\n", timeout: 30)
        #expect(health.hasPrefix("HTTP/1.1 200"), "\(health)")
    }

    @Test("an origin named by adminAllowedOrigins may use the admin API, with CORS headers and a preflight")
    func allowedOrigin() async throws {
        let (_, server) = try await Self.adminServer(origins: ["http://localhost:3000/"])
        defer { Task { await server.stop() } }
        let port = server.port
        let origin = "Origin: http://localhost:3000\r\n"
        let preflight = try await rawExchange(
            port: port,
            "OPTIONS /__admin/mappings HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(origin)Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n\r\n",
            timeout: 30)
        #expect(preflight.hasPrefix("HTTP/1.1 204"), "\(preflight)")
        #expect(preflight.contains("Access-Control-Allow-Origin: http://localhost:3000"))
        let created = try await Self.post(
            port, "/__admin/mappings",
            headers: "Host: 127.0.0.1:\(port)\r\n\(origin)Sec-Fetch-Site: same-site\r\nContent-Type: application/json\r\n")
        #expect(created.hasPrefix("HTTP/1.1 201") && created.contains("Access-Control-Allow-Origin: http://localhost:3000"), "\(created)")
        let other = try await Self.post(
            port, "/__admin/mappings",
            headers: "Host: 127.0.0.1:\(port)\r\nOrigin: http://localhost:3001\r\nContent-Type: application/json\r\n")
        #expect(other.hasPrefix("HTTP/1.1 403"), "\(other)")
        await #expect(throws: HTTPMockError.self) {
            _ = try await HTTPMock().startServer(admin: true, adminAllowedOrigins: ["localhost:3000/path"])
        }
    }

    @Test("the admin token: Bearer in any case; ?token= only for the dashboard and its event stream; a token lets other Hosts in")
    func adminToken() async throws {
        let (_, server) = try await Self.adminServer(token: "s3cret")
        defer { Task { await server.stop() } }
        let port = server.port
        func get(_ target: String, _ headers: String = "") async throws -> String {
            try await rawExchange(port: port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(headers)\r\n", timeout: 30)
        }
        #expect(try await get("/__admin/mappings").hasPrefix("HTTP/1.1 401"))
        #expect(try await get("/__admin/mappings", "Authorization: Bearer nope\r\n").hasPrefix("HTTP/1.1 401"))
        #expect(try await get("/__admin/mappings", "Authorization: bearer s3cret\r\n").hasPrefix("HTTP/1.1 200"))
        #expect(try await get("/__admin/mappings", "Authorization: BEARER   s3cret\r\n").hasPrefix("HTTP/1.1 200"))
        #expect(try await get("/__admin/mappings?token=s3cret").hasPrefix("HTTP/1.1 401"))
        #expect(try await get("/__admin/?token=s3cret").hasPrefix("HTTP/1.1 200"))
        let events = try await blocking {
            let client = try RawClient(port: port)
            try client.send("GET /__admin/events?token=s3cret HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            return client.read(timeout: 30) { $0.contains("data:") }
        }
        #expect(events.hasPrefix("HTTP/1.1 200"), "\(events)")
        let named = try await rawExchange(
            port: port, "GET /__admin/mappings HTTP/1.1\r\nHost: mock.internal:\(port)\r\nAuthorization: Bearer s3cret\r\n\r\n", timeout: 30
        )
        #expect(named.hasPrefix("HTTP/1.1 200"), "\(named)")
    }

    @Test("startServer on every interface with admin: true and no token refuses, as the CLI does")
    func anyAddressNeedsToken() async throws {
        await #expect(throws: HTTPMockError.self) {
            _ = try await HTTPMock().startServer(host: "0.0.0.0", admin: true)
        }
        let server = try await HTTPMock().startServer(host: "0.0.0.0", admin: true, adminToken: "t0ken")
        let refused = try await rawExchange(port: server.port, "GET /__admin/mappings HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 30)
        #expect(refused.hasPrefix("HTTP/1.1 401"), "\(refused)")
        await server.stop()
    }

    // MARK: - The CLI

    static func serve(_ arguments: [String], folder: URL) async throws -> (RunningCLI, Int) {
        let cli = try RunningCLI(["serve", folder.path, "--port", "0"] + arguments, directory: folder)
        let started = try await cli.waitFor("serving on http://")
        guard let range = started.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
            let port = Int(started[range].split(separator: ":").last ?? "")
        else { throw CLITestError("no port in \(started)") }
        return (cli, port)
    }

    @Test("httpmock serve: Voodoo's /_admin/ routes obey --no-admin and --admin-token like /__admin/; ?token= is masked in the log")
    func voodooAdminObeysTheRule() async throws {
        let folder = try makeMocksFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let voodoo = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-voodoo-\(UUID().uuidString).yml")
        defer { try? FileManager.default.removeItem(at: voodoo) }
        try "- http:\n    api: get /hello\n  response:\n    status: 200\n    body:\n      text: hi\n".write(
            to: voodoo, atomically: true, encoding: .utf8)

        let (off, offPort) = try await Self.serve(["--config", voodoo.path, "--no-admin"], folder: folder)
        let offDelay = try await rawExchange(
            port: offPort, "PUT /_admin/delay/5 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", timeout: 30)
        #expect(offDelay.hasPrefix("HTTP/1.1 404"), "\(offDelay)")
        let offShutdown = try await rawExchange(
            port: offPort, "POST /_admin/shutdown HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", timeout: 30)
        #expect(offShutdown.hasPrefix("HTTP/1.1 404"), "\(offShutdown)")
        #expect(off.process.isRunning)
        off.process.terminate()
        _ = try await off.waitForExit()

        let (cli, port) = try await Self.serve(["--config", voodoo.path, "--admin-token", "s3cret"], folder: folder)
        let noToken = try await rawExchange(
            port: port, "POST /_admin/shutdown HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", timeout: 30)
        #expect(noToken.hasPrefix("HTTP/1.1 401"), "\(noToken)")
        let rebound = try await rawExchange(
            port: port, "PUT /_admin/delay/1 HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 0\r\n\r\n", timeout: 30)
        #expect(rebound.hasPrefix("HTTP/1.1 401"), "\(rebound)")
        let page = try await rawExchange(port: port, "GET /__admin/?token=s3cret HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 30)
        #expect(page.hasPrefix("HTTP/1.1 200"))
        #expect(cli.process.isRunning)
        let shutdown = try await rawExchange(
            port: port, "POST /_admin/shutdown HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret\r\nContent-Length: 0\r\n\r\n",
            timeout: 30)
        #expect(shutdown.contains("Shutting down"), "\(shutdown)")
        #expect(try await cli.waitForExit() == 0)
        #expect(!cli.text.contains("s3cret"), "the log printed the token: \(cli.text)")
        #expect(cli.text.contains("token=REDACTED"), "\(cli.text)")
    }

    @Test("httpmock serve --journal-limit 0 journals nothing and answers misses and hits (a miss used to stop the server)")
    func cliJournalLimitZero() async throws {
        let folder = try makeMocksFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (cli, port) = try await Self.serve(["--journal-limit", "0", "--log-level", "INFO"], folder: folder)
        defer { cli.process.terminate() }
        for _ in 0..<2 {
            let miss = try await rawExchange(port: port, "GET /nothing-here HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 30)
            #expect(miss.hasPrefix("HTTP/1.1 404"), "\(miss)")
            let hit = try await rawExchange(port: port, "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 30)
            #expect(hit.hasPrefix("HTTP/1.1 200") && hit.hasSuffix("pong"), "\(hit)")
        }
        let listed = try await rawExchange(port: port, "GET /__admin/requests HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 30)
        #expect(listed.contains(#""requests":[]"#) || listed.contains(#""requests" : [ ]"#), "\(listed)")
        _ = try await cli.waitFor("GET /ping 200")
        #expect(try await cli.stop() == 0, "\(cli.text)")
    }

    @Test("httpmock serve keeps the last --journal-limit requests and bodies over --journal-body-limit as their size")
    func cliJournalIsBounded() async throws {
        let folder = try makeMocksFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (cli, port) = try await Self.serve(["--journal-limit", "50", "--log-level", "ERROR"], folder: folder)
        defer { cli.process.terminate() }
        let body = String(repeating: "b", count: 1_100_000)
        try await blocking {
            let client = try RawClient(port: port)
            for index in 0..<120 {
                client.reset()
                try client.send("GET /journal/\(index) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                client.readResponse(timeout: 30)
            }
            client.reset()
            try client.send("POST /big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            client.readResponse(timeout: 30)
        }
        let listed = try await rawExchange(port: port, "GET /__admin/requests HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 30)
        let json = try #require(listed.range(of: "\r\n\r\n").map { String(listed[$0.upperBound...]) })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let requests = try #require(object["requests"] as? [[String: Any]])
        #expect(requests.count == 50, "the journal kept \(requests.count) requests")
        let newest = try #require(requests.first?["request"] as? [String: Any])
        #expect(newest["url"] as? String == "/big")
        #expect((newest["body"] as? String)?.isEmpty == true, "a 1.1 MB body was kept whole (default --journal-body-limit is 1 MB)")
    }

    @Test("httpmock serve bounds the journal's bytes (--journal-bytes-limit, default 256 MB): the oldest requests go first")
    func cliJournalBytesAreBounded() async throws {
        let folder = try makeMocksFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let help = try RunningCLI(["serve", "--help"], directory: folder)
        _ = try await help.waitForExit(timeout: 30)
        #expect(help.text.contains("--journal-bytes-limit") && help.text.contains("268435456"), "\(help.text)")
        let (cli, port) = try await Self.serve(
            ["--journal-bytes-limit", "1000000", "--journal-body-limit", "2000000", "--log-level", "ERROR"], folder: folder)
        defer { cli.process.terminate() }
        let body = String(repeating: "b", count: 400_000)
        try await blocking {
            let client = try RawClient(port: port)
            for index in 0..<5 {
                client.reset()
                try client.send("POST /big/\(index) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                client.readResponse(timeout: 30)
            }
        }
        let listed = try await rawExchange(port: port, "GET /__admin/requests HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 30)
        let json = try #require(listed.range(of: "\r\n\r\n").map { String(listed[$0.upperBound...]) })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let requests = try #require(object["requests"] as? [[String: Any]])
        let urls = requests.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }
        #expect(urls == ["/big/4", "/big/3"], "the journal kept \(urls)")
    }
}
#endif

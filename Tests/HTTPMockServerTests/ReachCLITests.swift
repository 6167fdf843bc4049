#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

/// What a spawned command printed and its exit status.
struct CommandResult: CustomStringConvertible {
    var status: Int32
    var output: String
    var errors: String
    var description: String { "exit \(status), stdout: \(output.prefix(600)), stderr: \(errors.prefix(600))" }
}

/// Runs `executable arguments` on a thread of its own, in `directory`, with `environment` added;
/// killed after `timeout` seconds (a hang fails the test, it does not stall the suite).
func runCommand(
    _ executable: String, _ arguments: [String], directory: URL? = nil, environment: [String: String] = [:],
    timeout: TimeInterval = 60
) async throws -> CommandResult {
    try await blocking {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let collected = SharedBox(Data())
        let reader = Thread { collected.withLock { $0 = errors.fileHandleForReading.readDataToEndOfFile() } }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        while reader.isExecuting || !reader.isFinished { usleep(1000) }
        return CommandResult(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: collected.withLock { $0 }, as: UTF8.self))
    }
}

/// A lock around one value, for the tests' threads.
final class SharedBox<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// `httpmock serve arguments` started, with the base URL of its start-up line.
func startServe(_ arguments: [String], in directory: URL) async throws -> (RunningCLI, URL) {
    let cli = try RunningCLI(["serve"] + arguments, directory: directory)
    let started = try await cli.waitFor("serving on http://")
    let line = try #require(started.split(separator: "\n").first { $0.contains("serving on http://") })
    let base = try #require(URL(string: String(line[line.range(of: "http://")!.lowerBound...])))
    return (cli, base)
}

/// A fresh temporary folder.
func temporaryFolder(_ name: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

@Suite("Issue 44: localhost over IPv6, WireMock's command line, what clients see", .serialized, .timeLimit(.minutes(3)))
struct ReachCLITests {
    /// A WireMock root holding a named and an unnamed mapping, a reset fault and a proxy.
    func wireMockRoot() throws -> URL {
        let root = try temporaryWireMockRoot()
        let mappings = #"""
            {"mappings": [
              {"id": "11111111-1111-1111-1111-111111111111", "name": "hello stub",
               "request": {"method": "GET", "url": "/hello"},
               "response": {"status": 200, "body": "hi", "headers": {"X-Mine": "1"}}},
              {"id": "22222222-2222-2222-2222-222222222222",
               "request": {"method": "GET", "url": "/noname"}, "response": {"status": 201, "body": "x"}},
              {"id": "33333333-3333-3333-3333-333333333333",
               "request": {"method": "GET", "url": "/reset"}, "response": {"fault": "CONNECTION_RESET_BY_PEER"}},
              {"id": "66666666-6666-6666-6666-666666666666",
               "request": {"method": "GET", "url": "/malformed"}, "response": {"status": 200, "fault": "MALFORMED_RESPONSE_CHUNK"}},
              {"id": "44444444-4444-4444-4444-444444444444",
               "request": {"method": "GET", "url": "/tpl"},
               "response": {"status": 200, "body": "{{request.path}}", "transformers": ["response-template"]}}
            ]}
            """#
        try Data(mappings.utf8).write(to: root.appendingPathComponent("mappings/stubs.json"))
        return root
    }

    @Test("startServer() listens on 127.0.0.1 and ::1 on one port: curl reaches [::1], localhost -4 and -6")
    func swiftServerListensOnBothLoopbacks() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/ping", host: "api.example.com", responses: [.plaintext("pong", lifetime: .eternal)])
        let server = try await mock.startServer(impersonating: "api.example.com")
        defer { Task { await server.stop() } }
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        #expect(server.listeningAddresses == ["127.0.0.1", "::1"])
        let v6 = try await curlAnswer(["-g", "http://[::1]:\(server.port)/ping"])
        #expect(v6.statusLine.hasPrefix("HTTP/1.1 200"), "\(v6)")
        #expect(v6.body == "pong")
        for family in ["-4", "-6"] {
            let answer = try await curlAnswer([family, "http://localhost:\(server.port)/ping"])
            #expect(answer.body == "pong", "curl \(family) localhost: \(answer)")
        }
        // One address given: that one only.
        let only4 = try await mock.startServer(host: "127.0.0.1")
        #expect(only4.listeningAddresses == ["127.0.0.1"])
        let refused = try await curlAnswer(["-g", "http://[::1]:\(only4.port)/ping"])
        #expect(refused.statusLine.isEmpty, "\(refused)")
        await only4.stop()
        let only6 = try await mock.startServer(host: "::1", impersonating: "api.example.com")
        #expect(only6.baseURL.absoluteString == "http://[::1]:\(only6.port)")
        #expect(try await curlAnswer(["-g", "http://[::1]:\(only6.port)/ping"]).body == "pong")
        await only6.stop()
    }

    @Test("A port taken on ::1 alone is a bind error naming [::1]:PORT, and the IPv4 socket is given back")
    func portTakenOnIPv6Only() async throws {
        let holder = HTTPMock()
        let v6 = try await holder.startServer(host: "::1")
        defer { Task { await v6.stop() } }
        let mock = HTTPMock()
        do {
            let server = try await mock.startServer(port: v6.port)
            await server.stop()
            Issue.record("startServer(port: \(v6.port)) bound although [::1]:\(v6.port) is taken")
        } catch let error as HTTPMockError {
            #expect(error.message.contains("[::1]:\(v6.port) is already in use"), "\(error.message)")
        }
        // 127.0.0.1:PORT was released: it binds now.
        let v4 = try await mock.startServer(host: "127.0.0.1", port: v6.port)
        #expect(v4.port == v6.port)
        await v4.stop()
    }

    @Test("httpmock serve: localhost over IPv6 by default; --bind-address binds one address; conflicting flags are named")
    func cliBindsBothLoopbacks() async throws {
        let folder = try temporaryFolder("httpmock-bind")
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = try wireMockRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let (cli, base) = try await startServe(["--root-dir", root.path, "--port", "0"], in: folder)
        #expect(base.host == "127.0.0.1")
        let port = try #require(base.port)
        #expect(try await curlAnswer(["-g", "http://[::1]:\(port)/hello"]).body == "hi")
        #expect(try await curlAnswer(["-6", "http://localhost:\(port)/hello"]).body == "hi")
        #expect(try await curlAnswer(["-4", "http://localhost:\(port)/hello"]).body == "hi")
        #expect(try await cli.stop() == 0)

        let (bound, boundBase) = try await startServe(
            ["--root-dir", root.path, "--port", "0", "--bind-address", "127.0.0.1"], in: folder)
        let boundPort = try #require(boundBase.port)
        #expect(try await curlAnswer(["http://127.0.0.1:\(boundPort)/hello"]).body == "hi")
        #expect(try await curlAnswer(["-g", "http://[::1]:\(boundPort)/hello"]).statusLine.isEmpty)  // refused, as WireMock
        kill(bound.process.processIdentifier, SIGTERM)
        #expect(try await bound.waitForExit() == 0)

        let both = try RunningCLI(["serve", "--host", "127.0.0.1", "--bind-address", "::1"], directory: folder)
        #expect(try await both.waitForExit() != 0)
        #expect(both.text.contains("--host 127.0.0.1 and --bind-address ::1 name two addresses"), "\(both.text)")
    }

    /// Whether this process may make a network namespace (`unshare -n`: root, or a user
    /// namespace the kernel allows); CI containers without the capability skip the test below.
    static let canUnshareNetwork: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-n", "true"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    @Test(
        "Without an IPv6 loopback (a network namespace with IPv6 off) serve listens on 127.0.0.1 alone and says so",
        .enabled(if: canUnshareNetwork, "needs unshare -n (a network namespace)"))
    func noIPv6Loopback() async throws {
        let folder = try temporaryFolder("httpmock-no-v6")
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = try wireMockRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let script = """
            ip link set lo up
            echo 1 > /proc/sys/net/ipv6/conf/lo/disable_ipv6
            "$HTTPMOCK" serve --port 0 --root-dir "$ROOT" > serve.log 2>&1 &
            pid=$!
            until grep -q 'serving on' serve.log; do kill -0 $pid || exit 3; sleep 0.1; done
            port=$(sed -n 's/.*serving on http:\\/\\/127.0.0.1:\\([0-9]*\\).*/\\1/p' serve.log)
            echo "body $(curl -s http://127.0.0.1:$port/hello)"
            kill $pid; wait $pid; echo "exit $?"
            cat serve.log
            """
        let result = try await runCommand(
            "/usr/bin/unshare", ["-n", "/bin/sh", "-c", script], directory: folder,
            environment: ["HTTPMOCK": try httpmockExecutable().path, "ROOT": root.path])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("body hi"), "\(result)")
        #expect(result.output.contains("exit 0"), "\(result)")
        #expect(
            result.output.contains("::1 cannot be bound on this machine (no IPv6 loopback): listening on 127.0.0.1 only"),
            "\(result)")
    }

    @Test("WireMock's standalone flags: accepted where they mean something, a bad --https-port and unknown flags named")
    func wireMockStandaloneFlags() async throws {
        let folder = try temporaryFolder("httpmock-flags")
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = try wireMockRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let (cli, base) = try await startServe(
            [
                "--port", "0", "--root-dir", root.path, "--disable-banner", "--local-response-templating", "--verbose",
                "--max-request-journal-entries", "1",
            ], in: folder)
        #expect(cli.text.contains("httpmock: route GET"), "\(cli.text)")  // --verbose lists the mappings' routes
        #expect(try await curlAnswer([base.absoluteString + "/tpl"]).body == "/tpl")  // rendered with the flag, as WireMock
        #expect(try await curlAnswer([base.absoluteString + "/hello"]).body == "hi")
        let journal = try await curlAnswer([base.absoluteString + "/__admin/requests"])
        let requests = try JSONDecoder().decode(JSONValue.self, from: Data(journal.body.utf8))
        guard case .array(let kept)? = requests["requests"] else { throw CLITestError("no requests in \(journal)") }
        #expect(kept.count == 1, "\(journal)")  // --max-request-journal-entries 1
        #expect(try await cli.stop() == 0)

        let https = try RunningCLI(["serve", "--https-port", "70000"], directory: folder)
        #expect(try await https.waitForExit() != 0)
        #expect(https.text.contains("--https-port must be a number from 0 to 65535"), "\(https.text)")

        let unknown = try RunningCLI(["serve", "--container-threads", "4"], directory: folder)
        #expect(try await unknown.waitForExit() != 0)
        #expect(unknown.text.contains("Unknown option '--container-threads'"), "\(unknown.text)")

        let empty = try RunningCLI(["serve", "--root-dir", folder.path], directory: folder)
        #expect(try await empty.waitForExit() != 0)
        #expect(empty.text.contains("\(folder.path) has no mappings/ folder"), "\(empty.text)")

        let recordAdminOff = try RunningCLI(
            ["serve", "--use-any-addr", "--root-dir", root.path, "--proxy-all", "http://127.0.0.1:9", "--record-mappings"],
            directory: folder)
        #expect(try await recordAdminOff.waitForExit() != 0)
        #expect(recordAdminOff.text.contains("--record-mappings records through the admin API's recorder, which is off"))

        let recordAlone = try RunningCLI(["serve", "--record-mappings"], directory: folder)
        #expect(try await recordAlone.waitForExit() != 0)
        #expect(recordAlone.text.contains("--record-mappings records what --proxy-all URL answers"), "\(recordAlone.text)")
    }

    @Test("--no-request-journal: the admin API answers as WireMock 2.35.1 does with its journal off")
    func noRequestJournal() async throws {
        let folder = try temporaryFolder("httpmock-nojournal")
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = try wireMockRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let (cli, base) = try await startServe(["--port", "0", "--root-dir", root.path, "--no-request-journal"], in: folder)
        #expect(try await curlAnswer([base.absoluteString + "/hello"]).body == "hi")
        let admin = base.absoluteString + "/__admin/requests"
        let count = try await curlAnswer(
            ["-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"method":"GET","url":"/hello"}"#, admin + "/count"])
        let countJSON = try JSONDecoder().decode(JSONValue.self, from: Data(count.body.utf8))
        #expect(countJSON["count"] == .integer(-1), "\(count)")
        #expect(countJSON["requestJournalDisabled"] == .bool(true))
        let find = try await curlAnswer(
            ["-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"method":"GET","url":"/hello"}"#, admin + "/find"])
        let findJSON = try JSONDecoder().decode(JSONValue.self, from: Data(find.body.utf8))
        #expect(findJSON["requests"] == .array([]), "\(find)")
        #expect(findJSON["requestJournalDisabled"] == .bool(true))
        let list = try await curlAnswer([admin])
        #expect(list.statusLine.hasPrefix("HTTP/1.1 500"), "\(list)")
        #expect(list.body.contains("The request journal is disabled"))
        #expect(try await cli.stop() == 0)
    }

    @Test("--proxy-all with --record-mappings forwards misses and writes what it recorded into --root-dir at stop")
    func proxyAllRecordMappings() async throws {
        let upstream = HTTPMock()
        upstream.addResponses(forPath: "/greeting", responses: [.plaintext("hello from upstream", lifetime: .eternal)])
        let upstreamServer = try await upstream.startServer(host: "127.0.0.1")
        defer { Task { await upstreamServer.stop() } }
        let folder = try temporaryFolder("httpmock-record")
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.appendingPathComponent("root")  // no mappings/ yet: created, as WireMock does
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let (cli, base) = try await startServe(
            ["--port", "0", "--root-dir", root.path, "--proxy-all", upstreamServer.baseURL.absoluteString, "--record-mappings"],
            in: folder)
        #expect(try await curlAnswer([base.absoluteString + "/greeting"]).body == "hello from upstream")
        #expect(try await cli.stop() == 0)
        #expect(cli.text.contains("recorded 1 mapping into \(root.path)/mappings"), "\(cli.text)")
        let files = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("mappings").path)
        #expect(files.count == 1, "\(files)")
        let written = try String(contentsOf: root.appendingPathComponent("mappings/\(files.first ?? "")"), encoding: .utf8)
        #expect(written.contains("/greeting"))
        #expect(written.contains("hello from upstream"))
        // The recording serves again from the files.
        let (replay, replayBase) = try await startServe(["--port", "0", "--root-dir", root.path], in: folder)
        await upstreamServer.stop()
        #expect(try await curlAnswer([replayBase.absoluteString + "/greeting"]).body == "hello from upstream")
        kill(replay.process.processIdentifier, SIGTERM)
        #expect(try await replay.waitForExit() == 0)
    }

    @Test("CONNECTION_RESET_BY_PEER is a TCP reset: curl reads 'Connection reset by peer', no status line")
    func connectionResetIsATCPReset() async throws {
        let root = try wireMockRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let mock = HTTPMock()
        try mock.loadWireMock(from: root)
        let server = try await mock.startServer()
        defer { Task { await server.stop() } }
        let result = try await runCommand("/usr/bin/curl", ["-sS", "-i", "-m", "20", server.baseURL.absoluteString + "/reset"])
        #expect(result.status == 56, "\(result)")  // CURLE_RECV_ERROR
        #expect(result.errors.contains("Connection reset by peer"), "\(result)")
        #expect(!result.output.contains("HTTP/1.1"), "\(result)")
        // The connection is gone, the server is not: the next request is answered.
        #expect(try await curlAnswer([server.baseURL.absoluteString + "/hello"]).body == "hi")
    }

    @Test("Matched-Stub-Id and Matched-Stub-Name as WireMock 2.35.1 sends them; none on a miss or a forward")
    func matchedStubHeaders() async throws {
        let root = try wireMockRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let mock = HTTPMock()
        try mock.loadWireMock(from: root)
        let server = try await mock.startServer(admin: true)
        defer { Task { await server.stop() } }
        let base = server.baseURL.absoluteString
        let named = try await runCommand("/usr/bin/curl", ["-s", "-i", "-m", "20", base + "/hello"])
        #expect(named.output.contains("Matched-Stub-Id: 11111111-1111-1111-1111-111111111111\r\n"), "\(named)")
        #expect(named.output.contains("Matched-Stub-Name: hello stub\r\n"), "\(named)")
        #expect(named.output.contains("X-Mine: 1\r\n"), "\(named)")
        let unnamed = try await curlAnswer([base + "/noname"])
        #expect(unnamed.headers["matched-stub-id"] == "22222222-2222-2222-2222-222222222222")
        #expect(unnamed.headers["matched-stub-name"] == nil)
        let templated = try await curlAnswer([base + "/tpl"])
        #expect(templated.headers["matched-stub-id"] == "44444444-4444-4444-4444-444444444444")
        let malformed = try await runCommand("/usr/bin/curl", ["-s", "-i", "-m", "20", base + "/malformed"])
        #expect(malformed.output.hasPrefix("HTTP/1.1 200"), "\(malformed)")
        #expect(!malformed.output.contains("Matched-Stub-Id"), "\(malformed)")  // a fault's head: none, as WireMock
        let miss = try await curlAnswer([base + "/nothing"])
        #expect(miss.statusLine.hasPrefix("HTTP/1.1 404"))
        #expect(miss.headers["matched-stub-id"] == nil)
        // A forward relays the upstream's fields alone (the upstream's own mapping's).
        let upstream = HTTPMock()
        try upstream.loadWireMock(from: root)
        let upstreamServer = try await upstream.startServer(host: "127.0.0.1")
        defer { Task { await upstreamServer.stop() } }
        let target = upstreamServer.baseURL.absoluteString
        let proxy =
            #"{"id": "55555555-5555-5555-5555-555555555555", "name": "proxy one", "request": {"url": "/proxied/hello"}, "#
            + #""response": {"proxyBaseUrl": "\#(target)", "proxyUrlPrefixToRemove": "/proxied"}}"#
        let created = try await curlAnswer(["-X", "POST", "-H", "Content-Type: application/json", "-d", proxy, base + "/__admin/mappings"])
        #expect(created.statusLine.hasPrefix("HTTP/1.1 201"), "\(created)")
        let forwarded = try await runCommand("/usr/bin/curl", ["-s", "-i", "-m", "20", base + "/proxied/hello"])
        #expect(forwarded.output.contains("Matched-Stub-Id: 11111111-1111-1111-1111-111111111111"), "\(forwarded)")
        #expect(!forwarded.output.contains("55555555-5555-5555-5555-555555555555"), "\(forwarded)")
    }

    @Test("GET /__admin/recorder redirects to WireMock's recorder page, which drives /__admin/recordings")
    func recorderPage() async throws {
        let mock = HTTPMock()
        let server = try await mock.startServer(admin: true, adminToken: "secret")
        defer { Task { await server.stop() } }
        let base = server.baseURL.absoluteString
        let redirect = try await curlAnswer([base + "/__admin/recorder?token=secret"])
        #expect(redirect.statusLine.hasPrefix("HTTP/1.1 302"), "\(redirect)")
        #expect(redirect.headers["location"] == "/__admin/recorder/?token=secret")
        let page = try await curlAnswer([base + "/__admin/recorder/?token=secret"])
        #expect(page.statusLine.hasPrefix("HTTP/1.1 200"), "\(page)")
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        for hook in ["recorder-target", "recorder-start", "recorder-stop", "recorder-message", "/__admin/recordings/"] {
            #expect(page.body.contains(hook), "the page lacks \(hook)")
        }
        #expect(try await curlAnswer([base + "/__admin/recorder/"]).statusLine.hasPrefix("HTTP/1.1 401"))  // the token rule
        let status = try await curlAnswer(["-H", "Authorization: Bearer secret", base + "/__admin/recordings/status"])
        #expect(status.body.contains("NeverStarted"), "\(status)")
    }

    @Test("httpmock run --help and a validation error of run print run's usage, not 'httpmock serve run'")
    func runUsage() async throws {
        let folder = try temporaryFolder("httpmock-usage")
        defer { try? FileManager.default.removeItem(at: folder) }
        let help = try RunningCLI(["run", "--help"], directory: folder)
        #expect(try await help.waitForExit() == 0)
        #expect(help.text.contains("USAGE: httpmock run "), "\(help.text)")
        #expect(!help.text.contains("httpmock serve run"))
        let wrong = try RunningCLI(["run", "--frobnicate"], directory: folder)
        #expect(try await wrong.waitForExit() != 0)
        #expect(wrong.text.contains("Unknown option '--frobnicate'"))
        #expect(wrong.text.contains("Usage: httpmock run "), "\(wrong.text)")
        #expect(!wrong.text.contains("serve run"))
        let serveHelp = try RunningCLI(["serve", "--help"], directory: folder)
        #expect(try await serveHelp.waitForExit() == 0)
        #expect(serveHelp.text.contains("USAGE: httpmock serve "), "\(serveHelp.text)")
        #expect(serveHelp.text.contains("--bind-address"))
    }

    @Test("Voodoo.md's recipe reads run's URL while the server keeps running, then stops it with exit 0")
    func voodooURLRecipe() async throws {
        let folder = try temporaryFolder("httpmock-recipe")
        defer { try? FileManager.default.removeItem(at: folder) }
        let endpoints = folder.appendingPathComponent("endpoints")
        try FileManager.default.createDirectory(at: endpoints, withIntermediateDirectories: true)
        try Data(
            "- http: { api: get /users/:id }\n  response: { status: 200, body: { text: \"user {{request.pathParameters.id}}\" } }\n".utf8
        )
        .write(to: endpoints.appendingPathComponent("users.yml"))
        // The guide's block, as written, with `wait` added to see the exit status.
        let guide = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../Docs/HTTPMock.docc/Voodoo.md"), encoding: .utf8)
        let start = try #require(guide.range(of: "```sh\nhttpmock run -c endpoints/"))
        let block = guide[start.upperBound...].prefix { _ in true }
        let end = try #require(block.range(of: "```"))
        let script = "httpmock run -c endpoints/" + block[..<end.lowerBound] + "wait \"$HTTPMOCK_PID\"\necho \"exit $?\"\n"
        #expect(script.contains("kill \"$HTTPMOCK_PID\""))
        let directory = try httpmockExecutable().deletingLastPathComponent().path
        let result = try await runCommand(
            "/bin/sh", ["-c", script], directory: folder,
            environment: ["PATH": directory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("user 1"), "\(result)")
        #expect(result.output.contains("exit 0"), "\(result)")
    }

    @Test("A Voodoo GraphQL miss says what differed and lists no internal route")
    func graphQLMissSaysWhatDiffered() async throws {
        let folder = try temporaryFolder("httpmock-graphql")
        defer { try? FileManager.default.removeItem(at: folder) }
        let yaml = """
            - graphQL:
                method: post
                query: "query Hero { hero(episode: JEDI) { name friends { name } } }"
              response: { status: 200, body: { json: { data: { hero: { name: R2-D2 } } } } }
            - graphQL:
                method: post
                operations: [Villains]
              response: { status: 200, body: { text: villains } }
            """
        try Data(yaml.utf8).write(to: folder.appendingPathComponent("graphql.yml"))
        let mock = HTTPMock()
        mock.unmockedPolicy = .notFound
        try mock.loadVoodoo(from: folder.appendingPathComponent("graphql.yml"))
        let server = try await mock.startServer()
        defer { Task { await server.stop() } }
        let url = server.baseURL.absoluteString + "/graphql"
        let matched = try await curlAnswer(
            [
                "-H", "Content-Type: application/graphql", "--data-binary", "query Hero { hero(episode: JEDI) { name friends { name } } }",
                url,
            ])
        #expect(matched.statusLine.hasPrefix("HTTP/1.1 200"), "\(matched)")
        let miss = try await curlAnswer(
            ["-H", "Content-Type: application/graphql", "--data-binary", "query Hero { hero(episode: EMPIRE) { name } }", url])
        #expect(miss.statusLine.hasPrefix("HTTP/1.1 404"), "\(miss)")
        #expect(miss.body.contains("missing /hero(episode=JEDI), /hero/friends, /hero/friends/name"), "\(miss.body)")
        #expect(miss.body.contains("expected operation Villains, got operation Hero"), "\(miss.body)")
        #expect(!miss.body.contains("the predicate returned false"), "\(miss.body)")
        #expect(!miss.body.contains("Voodoo GraphQL limits"), "\(miss.body)")
        #expect(!miss.body.contains("/_admin/"), "\(miss.body)")  // Voodoo's own endpoints are no near miss either
        let empty = try await curlAnswer(["-X", "POST", url])
        #expect(empty.body.contains("expected a document"), "\(empty.body)")
    }

    @Test("PUT /_admin/delay/0 answers before a request that waits the current delay")
    func delayAdminAnswersAtOnce() async throws {
        let folder = try temporaryFolder("httpmock-delay")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("- http: { api: get /slow }\n  response: { status: 200, body: { text: slow } }\n".utf8)
            .write(to: folder.appendingPathComponent("endpoints.yml"))
        let mock = HTTPMock()
        try mock.loadVoodoo(from: folder.appendingPathComponent("endpoints.yml"))
        mock.defaultDelay = 600
        let server = try await mock.startServer(admin: true)
        defer { Task { await server.stop() } }
        let base = server.baseURL.absoluteString
        let order = SharedBox<[String]>([])
        // curl without a time limit of its own: the server's stop at the end ends it.
        let slow = Task {
            let answer = try await runCommand("/usr/bin/curl", ["-s", base + "/slow"], timeout: 3600)
            order.withLock { $0.append("slow \(answer.output)") }
        }
        _ = try await mock.waitForRequest(to: "/slow", timeout: 30)
        let delay = try await curlAnswer(["-X", "PUT", base + "/_admin/delay/0"])
        order.withLock { $0.append("delay \(delay.statusLine.prefix(12))") }
        #expect(delay.body.contains("The delay is 0 s."), "\(delay)")
        // Answered while the earlier request still waits the delay it started under.
        #expect(order.withLock { $0 } == ["delay HTTP/1.1 200"])
        #expect(mock.defaultDelay == 0)
        #expect(try await curlAnswer([base + "/slow"]).body == "slow")  // a new request: no delay
        #expect(order.withLock { $0 } == ["delay HTTP/1.1 200"])
        await server.stop()
        _ = await slow.result
    }
}
#endif

#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import InMemoryLogging
import Logging
import Testing

/// A `Logger` of the test's own whose messages the test reads back: a handler per test, given
/// to the instance (`LoggingSystem.bootstrap` runs once per process, so it cannot be per test).
struct CapturedLog: Sendable {
    let handler = InMemoryLogHandler()

    /// A logger that writes to ``handler`` from `level` up.
    func logger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "ServerLoggerTests") { [handler] _ in handler }
        logger.logLevel = level
        return logger
    }

    var entries: [(level: Logger.Level, message: String)] { handler.entries.map { ($0.level, $0.message.description) } }

    /// The first entry that satisfies `isWanted`, waiting for it at most 10 s; `nil` if none came.
    func first(where isWanted: ((level: Logger.Level, message: String)) -> Bool) async throws -> (level: Logger.Level, message: String)? {
        for _ in 0..<500 {
            if let entry = entries.first(where: isWanted) { return entry }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return nil
    }
}

@Suite("HTTPMock.serverLogger: the server's messages through swift-log", .timeLimit(.minutes(1)))
struct ServerLoggerTests {
    /// What ``ServerChildProcess`` runs for these tests, by name.
    static let childScenarios: [String: @Sendable () async throws -> Void] = {
        #if JavaScript
        ["serverLoggerDefault": defaultScenario]
        #else
        [:]
        #endif
    }()

    @Test("startServer(logger:) sets the instance's serverLogger; a start without one keeps it; nil brings back standard error")
    func startServerSetsTheLogger() async throws {
        let mock = HTTPMock()
        #expect(mock.serverLogger == nil)
        let log = CapturedLog()
        let first = try await mock.startServer(logger: log.logger(level: .info))
        #expect(mock.serverLogger?.label == "ServerLoggerTests")
        let second = try await mock.startServer()
        #expect(mock.serverLogger?.label == "ServerLoggerTests")
        await first.stop()
        await second.stop()
        mock.serverLogger = nil
        #expect(mock.serverLogger == nil)
    }

    @Test(
        "--log-level: an unknown level is refused with the message it always had; warning (any case) prints misses, not exchanges nor the stop line"
    )
    func cliLogLevel() async throws {
        let folder = try makeMocksFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let refused = try RunningCLI(["serve", folder.path, "--log-level", "LOUD"], directory: folder)
        #expect(try await refused.waitForExit() != 0)
        #expect(
            refused.text.contains(#"--log-level must be one of TRACE, DEBUG, INFO, NOTICE, WARNING, ERROR, CRITICAL, got "LOUD"."#),
            "\(refused.text)")

        let cli = try RunningCLI(["serve", folder.path, "--port", "0", "--log-level", "warning"], directory: folder)
        let started = try await cli.waitFor("serving on http://")
        let line = try #require(started.split(separator: "\n").first { $0.contains("serving on http://") })
        let base = try #require(URL(string: String(line[line.range(of: "http://")!.lowerBound...])))
        let session = makePlainSession()
        let (_, hit) = try await session.data(from: base.appendingPathComponent("ping"))
        #expect((hit as? HTTPURLResponse)?.statusCode == 200)
        let (_, miss) = try await session.data(from: base.appendingPathComponent("nothing"))
        #expect((miss as? HTTPURLResponse)?.statusCode == 404)
        let text = try await cli.waitFor("No mock for GET")  // the miss's near-miss report
        #expect(!text.contains("GET /ping 200") && !text.contains("GET /nothing 404"), "\(text)")
        #expect(try await cli.stop() == 0)
        #expect(!cli.text.contains("httpmock: stopped"), "\(cli.text)")
    }

    #if JavaScript
    static let scripts = """
        - http:
            api: get /hello
          javascript: |
            function response(request, cache) {
              console.log("hello, logger");
              return Response.ok(Body.text("hi"));
            }
        - http:
            api: get /fail
          javascript: |
            function response(request, cache) { throw new Error("boom"); }
        """

    static func get(_ path: String, port: Int) async throws -> String {
        try await rawExchange(port: port, "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n", timeout: 30)
    }

    @Test(
        "a Voodoo script's console.log reaches the Logger given to startServer at info, a failing script at error; a warning threshold keeps the failure alone"
    )
    func voodooScriptMessages() async throws {
        let folder = try makeVoodooFolder(["a.yml": Self.scripts])
        defer { try? FileManager.default.removeItem(at: folder) }
        let mock = HTTPMock()
        try mock.loadVoodoo(from: folder)
        let log = CapturedLog()
        let server = try await mock.startServer(logger: log.logger(level: .info))
        let hello = try await Self.get("/hello", port: server.port)
        #expect(hello.hasPrefix("HTTP/1.1 200") && hello.hasSuffix("hi"), "\(hello)")
        let said = try await log.first { $0.message.hasSuffix("hello, logger") }
        #expect(said?.level == .info)
        #expect(said?.message == "console.log (a.yml): hello, logger")  // no `httpmock: `: the label says where

        // A higher threshold: the script still runs and answers, its line is not written; the
        // failure (an error) still is.
        mock.serverLogger = log.logger(level: .warning)
        let again = try await Self.get("/hello", port: server.port)
        #expect(again.hasPrefix("HTTP/1.1 200") && again.hasSuffix("hi"), "\(again)")
        let failed = try await Self.get("/fail", port: server.port)
        #expect(failed.hasPrefix("HTTP/1.1 500") && failed.contains("boom"), "\(failed)")
        let failure = try await log.first { $0.message.contains("the script failed") }
        #expect(failure?.level == .error)
        #expect(failure?.message.contains("a.yml") == true && failure?.message.contains("boom") == true, "\(String(describing: failure))")
        #expect(log.entries.filter { $0.message.hasSuffix("hello, logger") }.count == 1, "\(log.entries)")
        await server.stop()
    }

    @Test(
        "without a serverLogger a script's line goes to standard error as before, `httpmock: MESSAGE`, and nowhere while logHandler is nil",
        .enabled(if: ServerChildProcess.isAvailable))
    func defaultIsStandardError() async throws {
        let outcome = try await ServerChildProcess.run("serverLoggerDefault")
        #expect(outcome.passed, "\(outcome)")
        #expect(outcome.output.contains("httpmock: console.log (a.yml): hello, logger\n"), "\(outcome)")
        #expect(outcome.output.components(separatedBy: "hello, logger").count == 2, "one line, not two: \(outcome)")
    }

    /// The child of ``defaultIsStandardError()``: one request logged with the defaults, one after
    /// `logHandler = nil`.
    static func defaultScenario() async throws {
        let folder = try makeVoodooFolder(["a.yml": scripts])
        defer { try? FileManager.default.removeItem(at: folder) }
        let mock = HTTPMock()
        try mock.loadVoodoo(from: folder)
        let server = try await mock.startServer()
        #expect(try await get("/hello", port: server.port).hasSuffix("hi"))
        mock.logHandler = nil
        #expect(try await get("/hello", port: server.port).hasSuffix("hi"))
        await server.stop()
    }

    @Test("the CLI writes the server's messages (a script's console.log) to standard error, `httpmock: MESSAGE`, at every --log-level")
    func cliWritesServerMessages() async throws {
        let folder = try makeVoodooFolder(["a.yml": Self.scripts])
        defer { try? FileManager.default.removeItem(at: folder) }
        let cli = try RunningCLI(
            ["serve", "--config", folder.path, "--port", "0", "--log-level", "CRITICAL"], directory: folder, separateStandardError: true)
        let started = try await cli.waitFor("serving on http://")
        let line = try #require(started.split(separator: "\n").first { $0.contains("serving on http://") })
        let base = String(line[line.range(of: "http://")!.lowerBound...])
        #expect(try await curl([base + "/hello"]) == "hi")
        for _ in 0..<500 where !cli.standardError.contains("hello, logger") { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(cli.standardError.contains("httpmock: console.log (a.yml): hello, logger\n"), "\(cli.standardError)")
        #expect(!cli.standardOutput.contains("GET /hello"), "CRITICAL prints no exchange: \(cli.standardOutput)")
        #expect(try await cli.stop() == 0)
    }
    #endif
}
#endif

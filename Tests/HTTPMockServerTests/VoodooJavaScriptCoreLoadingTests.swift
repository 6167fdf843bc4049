#if Server && JavaScript && os(Linux)
import Foundation
import Testing

/// On Linux, JavaScriptCore is opened when the first script loads, not linked (SPEC §23): a CLI
/// whose configuration has no script never maps the library, and one that cannot open it still
/// serves, answering 500 naming the library at each script endpoint only.
@Suite("JavaScriptCore is loaded on first use (Linux), through the spawned CLI", .serialized, .timeLimit(.minutes(1)))
struct VoodooJavaScriptCoreLoadingTests {
    static let staticEndpoint = "- http:\n    api: get /hello\n  response:\n    status: 200\n    body:\n      text: Hello world\n"
    static let scriptEndpoint =
        "- http:\n    api: get /scripted\n  javascript: |\n    function response(request, cache) { return Response.ok(Body.text(\"from the script\")); }\n"

    /// `httpmock serve --config` on a folder of `files`, and its base URL.
    func serve(_ files: [String: String], environment: [String: String] = [:]) async throws -> (RunningCLI, String, URL) {
        let folder = try makeVoodooFolder(files)
        let cli = try RunningCLI(["serve", "--config", folder.path, "--port", "0"], directory: folder, environment: environment)
        let started = try await cli.waitFor("serving on http://")
        let port = try #require(VoodooCLITests.port(in: started))
        return (cli, "http://127.0.0.1:\(port)", folder)
    }

    /// Whether the process has JavaScriptCore's library mapped (`/proc/PID/maps`).
    func mapsJavaScriptCore(_ cli: RunningCLI) throws -> Bool {
        // Read to end of file: /proc reports a size of 0, which a sized read would believe.
        let path = "/proc/\(cli.process.processIdentifier)/maps"
        let file = try #require(FileHandle(forReadingAtPath: path), "cannot open \(path)")
        defer { try? file.close() }
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        try #require(maps.contains("/httpmock"), "\(path) does not list the executable")
        return maps.contains("libjavascriptcoregtk")
    }

    func stop(_ cli: RunningCLI, _ folder: URL) async throws {
        #expect(try await cli.stop() == 0)
        try? FileManager.default.removeItem(at: folder)
    }

    @Test("a configuration without scripts never loads the library; one with a script loads it and runs it")
    func loadedOnFirstUse() async throws {
        let (idle, idleBase, idleFolder) = try await serve(["static.yml": Self.staticEndpoint])
        #expect(try await curl([idleBase + "/hello"]) == "Hello world")
        #expect(try !mapsJavaScriptCore(idle))
        try await stop(idle, idleFolder)

        let (scripted, base, folder) = try await serve(["static.yml": Self.staticEndpoint, "script.yml": Self.scriptEndpoint])
        #expect(try await curl([base + "/scripted"]) == "from the script")
        #expect(try mapsJavaScriptCore(scripted))
        try await stop(scripted, folder)
    }

    @Test("HTTPMOCK_JAVASCRIPTCORE_LIBRARY naming no library: a load warning, 500 naming it at the script endpoint, the rest served")
    func missingLibrary() async throws {
        let library = "/nonexistent/httpmock-test/libjavascriptcoregtk-missing.so.0"
        let (cli, base, folder) = try await serve(
            ["static.yml": Self.staticEndpoint, "script.yml": Self.scriptEndpoint],
            environment: ["HTTPMOCK_JAVASCRIPTCORE_LIBRARY": library])
        #expect(try await curl([base + "/hello"]) == "Hello world")
        let answer = try await curl(["-w", "\n%{http_code}", base + "/scripted"])
        #expect(answer.hasSuffix("\n500"))
        #expect(answer.contains(library) && answer.contains("libjavascriptcoregtk-4.1-0") && answer.contains("script.yml"))
        #expect(cli.text.contains("warning") && cli.text.contains(library))
        #expect(try !mapsJavaScriptCore(cli))
        try await stop(cli, folder)
    }
}
#endif

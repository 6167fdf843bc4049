#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Runs curl on a thread of its own (never blocking Swift's cooperative pool); returns its
/// standard output (`-w` appends what it is asked for).
func curl(_ arguments: [String]) async throws -> String {
    try await blocking {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-s", "--max-time", "10"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

#if JavaScript
/// The fixtures folder, scripts included.
let voodooCLIConfig = "config"
#else
/// One file, no scripts (a build without the JavaScript trait refuses them).
let voodooCLIConfig = "config/endpoints.yml"
#endif

@Suite("httpmock serve/run --config: Voodoo files through the spawned CLI and curl", .serialized, .timeLimit(.minutes(1)))
struct VoodooCLITests {
    func start(_ subcommand: String, extra: [String] = []) async throws -> (RunningCLI, String) {
        let arguments =
            [
                subcommand, "--config", voodooFixtures.appendingPathComponent(voodooCLIConfig).path,
                "--template-dir", voodooFixtures.appendingPathComponent("templates").path,
                "--file-dir", voodooFixtures.appendingPathComponent("files").path,
            ] + extra + (extra.contains("--port-range") ? [] : ["--port", "0"])  // 8080-8090 is VoodooShopCLITests'
        let cli = try RunningCLI(arguments, directory: voodooFixtures)
        let started = try await cli.waitFor("serving on http://")
        let line = try #require(started.split(separator: "\n").first { $0.contains("serving on http://") })
        let base = String(line[line.range(of: "http://")!.lowerBound...]).trimmingCharacters(in: .whitespaces)
        return (cli, base.hasSuffix("/") ? String(base.dropLast()) : base)
    }

    @Test("run --config answers curl from YAML files: text, template, file, include, scripts, GraphQL; POST /_admin/shutdown exits 0")
    func runAnswersCurl() async throws {
        let (cli, base) = try await start("run")
        #expect(try await curl([base + "/hello"]) == "Hello world")
        #expect(try await curl([base + "/profile/9"]) == #"{"id":"9","role":"admin","team":""}"#)
        #expect(try await curl([base + "/data"]).contains(#""items": [1, 2, 3]"#))
        #expect(try await curl(["-X", "DELETE", "-o", "/dev/null", "-w", "%{http_code}", base + "/included"]) == "204")
        #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", base + "/old"]).hasPrefix("301 "))
        let graphQL = try await curl([
            "-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"query":"query Hero { hero { name friends { name } } }"}"#,
            base + "/graphql",
        ])
        #expect(graphQL.contains("R2-D2"))
        let operations = try await curl([
            "-G", "--data-urlencode", "query=query Heroes { heroes { name } } query Villains { villains { name } }", base + "/graphql",
        ])
        #expect(operations.contains("Vader"))
        #if JavaScript
        let echoed = try await curl(["-X", "POST", "-d", #"{"name":"Lin"}"#, base + "/echo?tag=t"])
        #expect(echoed.contains(#""name":"Lin""#) && echoed.contains(#""count":1"#))
        #expect(try await curl([base + "/greet/Bo"]) == "Hello Bo (0 visits)")
        #endif
        #expect(try await curl(["-X", "POST", base + "/_admin/shutdown"]).contains("Shutting down"))
        #expect(try await cli.waitForExit() == 0)
    }

    @Test("serve --port-range binds the first free port of the range")
    func portRange() async throws {
        let blocker = try RunningCLI(
            ["serve", "--config", voodooFixtures.appendingPathComponent("config/more").path, "--port-range", "41731-41760"],
            directory: voodooFixtures)
        let blocked = try await blocker.waitFor("serving on http://")
        let blockedPort = try #require(Self.port(in: blocked))
        #expect((41731...41760).contains(blockedPort))
        let (cli, base) = try await start("serve", extra: ["--port-range", "41731-41760"])
        let port = try #require(Self.port(in: base))
        #expect(port > blockedPort && port <= 41760)
        #expect(try await curl([base + "/hello"]) == "Hello world")
        kill(cli.process.processIdentifier, SIGTERM)
        kill(blocker.process.processIdentifier, SIGTERM)
        #expect(try await cli.waitForExit() == 0)
        #expect(try await blocker.waitForExit() == 0)
    }

    static func port(in text: String) -> Int? {
        guard let range = text.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else { return nil }
        return Int(text[range].split(separator: ":").last ?? "")
    }

    @Test("a bad config stops the CLI with the file, line and key")
    func badConfig() async throws {
        let folder = try makeVoodooFolder(["bad.yml": "- http:\n    api: get\n  response:\n    status: 200\n"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let cli = try RunningCLI(["serve", "--config", folder.path], directory: folder)
        #expect(try await cli.waitForExit() != 0)
        #expect(cli.text.contains("bad.yml:2") && cli.text.contains("api"))
    }
}
#endif

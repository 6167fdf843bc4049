#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The built `httpmock` executable, next to the test bundle.
func httpmockExecutable() throws -> URL {
    var candidates: [URL] = []
    if let executable = Bundle.main.executableURL {
        candidates.append(executable.deletingLastPathComponent())
    }
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
    for directory in candidates {
        var url = directory
        for _ in 0..<4 {
            let candidate = url.appendingPathComponent("httpmock")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            url = url.deletingLastPathComponent()
        }
    }
    throw CLITestError("httpmock not found near \(candidates.map(\.path)); build with swift build --build-tests --traits Server")
}

struct CLITestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A spawned `httpmock`, its output collected as it comes: standard output and standard error
/// together in ``text``, or apart (``standardOutput``, ``standardError``) with
/// `separateStandardError`.
final class RunningCLI: @unchecked Sendable {
    // @unchecked: `output`, `errors` and `openPipes` are guarded by `lock`; `process` is used by one test.
    let process = Process()
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()
    /// The pipes not yet at end of file: at 0, everything the process wrote is collected.
    private var openPipes: Int
    /// Reads the readability handlers have begun and not yet appended.
    private var readsInProgress = 0
    /// The pipes' read ends, to see whether anything written is still unread.
    private var readEnds: [FileHandle] = []

    /// Starts `httpmock arguments` in `directory`, with `environment` added to the test's.
    init(_ arguments: [String], directory: URL, environment: [String: String] = [:], separateStandardError: Bool = false) throws {
        process.executableURL = try httpmockExecutable()
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        process.currentDirectoryURL = directory
        let out = Pipe()
        let err = separateStandardError ? Pipe() : out
        openPipes = separateStandardError ? 2 : 1
        process.standardOutput = out
        process.standardError = err
        readEnds = separateStandardError ? [out.fileHandleForReading, err.fileHandleForReading] : [out.fileHandleForReading]
        collect(out) { $0.output.append($1) }
        if separateStandardError { collect(err) { $0.errors.append($1) } }
        try process.run()
    }

    /// Appends what `pipe` delivers with `append`, under the lock, until its end of file.
    private func collect(_ pipe: Pipe, _ append: @escaping @Sendable (RunningCLI, Data) -> Void) {
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            self?.lock.withLock { self?.readsInProgress += 1 }
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }  // end of file
            guard let self else { return }
            self.lock.withLock {
                if data.isEmpty { self.openPipes -= 1 } else { append(self, data) }
                self.readsInProgress -= 1
            }
        }
    }

    /// Standard output (with standard error unless kept apart).
    var standardOutput: String { text }
    /// Standard error, when kept apart (`separateStandardError`).
    var standardError: String { lock.withLock { String(decoding: errors, as: UTF8.self) } }

    /// The first line of standard output, once there is one.
    func firstLine(timeout: TimeInterval = 20) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = standardOutput
            if let end = text.firstIndex(of: "\n") { return String(text[..<end]) }
            if !process.isRunning {
                try await Task.sleep(nanoseconds: 200_000_000)
                throw CLITestError("httpmock exited (\(process.terminationStatus)) without a line: \(standardOutput) \(standardError)")
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        throw CLITestError("httpmock printed no line within \(timeout) s: \(standardError)")
    }

    var text: String { lock.withLock { String(decoding: output, as: UTF8.self) } }

    /// Waits until the output holds `needle`, at most `timeout` seconds.
    func waitFor(_ needle: String, timeout: TimeInterval = 20) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if text.contains(needle) { return text }
            if !process.isRunning, !text.contains(needle) {
                try await Task.sleep(nanoseconds: 100_000_000)
                if text.contains(needle) { return text }
                throw CLITestError("httpmock exited (\(process.terminationStatus)) without printing \(needle): \(text)")
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        throw CLITestError("httpmock did not print \(needle) within \(timeout) s: \(text)")
    }

    /// Sends SIGTERM and waits for the exit (``waitForExit(timeout:)``); returns the status.
    func stop() async throws -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        return try await waitForExit()
    }

    /// Waits for the process to exit, killing it after `timeout` seconds; returns its status.
    func waitForExit(timeout: TimeInterval = 20) async throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        if process.isRunning {
            process.terminate()
            kill(process.processIdentifier, SIGKILL)
            throw CLITestError("httpmock did not exit within \(timeout) s: \(text) \(standardError)")
        }
        // The process has exited, so everything it wrote is in the pipes: collected once they
        // are at end of file, or, since another process spawned meanwhile can hold a pipe's
        // write end open (and so delay its end of file), once nothing is left unread in them and
        // no read is on its way to the output. (A fixed 5 s wait for end of file once cut
        // `serve --help` short in a full parallel run.) The bound only guards against a hang.
        // In this order: an empty pipe first, then no read in progress. A handler counts its
        // read before it empties the pipe, so once the pipe is seen empty, a read that emptied
        // it is either counted or appended. The other way round, a handler could empty the pipe
        // between the two checks and its bytes be missing (`serve --help` cut after its first
        // 4 KB stdio buffer, seen in a server-suite run).
        let drained = Date().addingTimeInterval(60)
        while Date() < drained {
            if readEnds.allSatisfy({ Self.unreadBytes($0) == 0 }), lock.withLock({ openPipes == 0 || readsInProgress == 0 }) {
                break
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        return process.terminationStatus
    }

    /// The bytes waiting to be read from `handle` (`FIONREAD`); 0 once it is closed.
    private static func unreadBytes(_ handle: FileHandle) -> Int32 {
        var count: Int32 = 0
        return ioctl(handle.fileDescriptor, UInt(FIONREAD), &count) == 0 ? count : 0
    }
}

/// A mocks folder: GET /ping → "pong" (eternal), POST /users → 201.
func makeMocksFolder() throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-cli-\(UUID().uuidString)")
    let ping = root.appendingPathComponent("ping/GET")
    let users = root.appendingPathComponent("users/POST")
    try FileManager.default.createDirectory(at: ping, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: users, withIntermediateDirectories: true)
    try Data(#"{"status_code": 200, "response_file": "pong.txt", "lifetime": "eternal"}"#.utf8)
        .write(to: ping.appendingPathComponent("configuration.json"))
    try Data("pong".utf8).write(to: ping.appendingPathComponent("pong.txt"))
    try Data(#"{"status_code": 201}"#.utf8).write(to: users.appendingPathComponent("configuration.json"))
    return root
}

@Suite("httpmock CLI, spawned as a real process", .serialized, .timeLimit(.minutes(1)))
struct CLITests {
    @Test("serve prints its URL, answers over loopback, logs each exchange and exits 0 on SIGTERM")
    func serveAndTerminate() async throws {
        let folder = try makeMocksFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cli = try RunningCLI(["serve", folder.path, "--port", "0"], directory: folder)
        let started = try await cli.waitFor("serving on http://")
        let line = try #require(started.split(separator: "\n").first { $0.contains("serving on http://") })
        let base = try #require(URL(string: String(line[line.range(of: "http://")!.lowerBound...])))

        let session = makePlainSession()
        let (data, response) = try await session.data(from: base.appendingPathComponent("ping"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "pong")
        let (_, missing) = try await session.data(from: base.appendingPathComponent("nothing"))
        #expect((missing as? HTTPURLResponse)?.statusCode == 404)

        let log = try await cli.waitFor("GET /nothing 404")
        #expect(log.contains("GET /ping 200"))
        #expect(log.contains("No mock for GET"))  // the near-miss report of the miss
        #expect(try await cli.stop() == 0)
    }

    @Test("configuration.json sets the delay; a flag wins over it; SIGINT exits 0")
    func configurationFile() async throws {
        let folder = try makeMocksFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // ./configuration.json of the working directory, which is not the mocks folder.
        let workingDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-cwd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workingDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workingDirectory) }
        try Data(#"{"hostname": "127.0.0.1", "port": 0, "delay": 0.4, "log_level": "INFO"}"#.utf8)
            .write(to: workingDirectory.appendingPathComponent("configuration.json"))
        let cli = try RunningCLI(["serve", folder.path, "--log-level", "CRITICAL"], directory: workingDirectory)
        let started = try await cli.waitFor("serving on http://")
        let line = try #require(started.split(separator: "\n").first { $0.contains("serving on http://") })
        let base = try #require(URL(string: String(line[line.range(of: "http://")!.lowerBound...])))
        let start = Date()
        let (data, _) = try await makePlainSession().data(from: base.appendingPathComponent("ping"))
        #expect(String(decoding: data, as: UTF8.self) == "pong")
        #expect(Date().timeIntervalSince(start) >= 0.4)
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(!cli.text.contains("GET /ping"))  // CRITICAL from the flag, not INFO from the file
        kill(cli.process.processIdentifier, SIGINT)
        #expect(try await cli.waitForExit() == 0)
    }

    @Test("routes and its alias endpoints list the folder's routes; bad input is a clear error")
    func routes() async throws {
        let folder = try makeMocksFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for command in ["routes", "endpoints"] {
            let cli = try RunningCLI([command, folder.path], directory: folder)
            #expect(try await cli.waitForExit() == 0)
            #expect(cli.text.contains("GET"))
            #expect(cli.text.contains("/ping"))
            #expect(cli.text.contains("POST"))
        }
        let missing = try RunningCLI(["serve", folder.appendingPathComponent("absent").path], directory: folder)
        #expect(try await missing.waitForExit() != 0)
        #expect(missing.text.contains("absent"))
        let har = try RunningCLI(["serve", folder.path, "--har", "x.har"], directory: folder)
        #expect(try await har.waitForExit() != 0)
        #expect(har.text.contains("Could not load the HAR archive x.har"))
    }

    @Test("serve --har replays an archive in recorded order and --file-dir serves static files")
    func serveHARAndFiles() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-cli-har-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = folder.appendingPathComponent("static")
        try FileManager.default.createDirectory(at: files.appendingPathComponent("css"), withIntermediateDirectories: true)
        try Data("body { }".utf8).write(to: files.appendingPathComponent("css/site.css"))
        let archive = folder.appendingPathComponent("session.har")
        try writeHAR(to: archive, host: "api.example.com", bodies: ["first", "second"])

        let cli = try RunningCLI(
            ["serve", "--har", archive.path, "--file-dir", files.path, "--impersonate", "api.example.com"],
            directory: folder)
        let started = try await cli.waitFor("serving on http://")
        let line = try #require(started.split(separator: "\n").first { $0.contains("serving on http://") })
        let base = try #require(URL(string: String(line[line.range(of: "http://")!.lowerBound...])))
        let session = makePlainSession()
        var bodies: [String] = []
        for _ in 0..<3 {
            let (data, _) = try await session.data(from: base.appendingPathComponent("poll"))
            bodies.append(String(decoding: data, as: UTF8.self))
        }
        #expect(bodies == ["first", "second", "second"])  // recorded order, the last one eternal
        let (css, response) = try await session.data(from: base.appendingPathComponent("css/site.css"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: css, as: UTF8.self) == "body { }")
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/css") == true)
        let (_, traversal) = try await session.data(from: URL(string: base.absoluteString + "/%2E%2E/session.har")!)
        #expect((traversal as? HTTPURLResponse).map { (400..<500).contains($0.statusCode) } == true)
        #expect(try await cli.stop() == 0)
    }
}
#endif

#if Server
import ArgumentParser
import Foundation
import HTTPMock
import HTTPMockServer

/// `httpmock`: serves a mocks folder over HTTP (SPEC §13), Espresso-Martini-compatible.
@main
struct HTTPMockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "httpmock",
        abstract: "Serve HTTPMock mocks over HTTP/1.1.",
        subcommands: [Serve.self, Routes.self],
        defaultSubcommand: Serve.self
    )
}

/// Where the mocks are: the positional folder, else `--requests-folder`, else the current folder.
private func mocksFolder(_ folder: String?, requestsFolder: String?) throws -> URL {
    if folder != nil, requestsFolder != nil, folder != requestsFolder {
        throw ValidationError("Give the mocks folder once: FOLDER (\(folder!)) and --requests-folder (\(requestsFolder!)) differ.")
    }
    let path = folder ?? requestsFolder ?? "."
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw ValidationError("The mocks folder \(path) does not exist or is not a folder.")
    }
    return URL(fileURLWithPath: path, isDirectory: true)
}

private func loadedMock(from folder: URL?, har: [String] = [], fileDirectories: [String] = []) throws -> HTTPMock {
    let mock = HTTPMock()
    func message(_ error: any Error) -> String { (error as? HTTPMockError)?.message ?? "\(error)" }
    if let folder {
        do {
            try mock.loadMocks(from: folder)
        } catch {
            throw ValidationError("Could not load the mocks in \(folder.path): \(message(error))")
        }
    }
    for path in har {
        do {
            try mock.loadHAR(from: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("Could not load the HAR archive \(path): \(message(error))")
        }
    }
    if !fileDirectories.isEmpty {
        do {
            // One call for every directory: the first that holds a file answers. Mock routes are
            // more specific than `/**` and win.
            try mock.serveFiles(from: fileDirectories.map { URL(fileURLWithPath: $0, isDirectory: true) }, at: "/", host: "**")
        } catch {
            throw ValidationError("Could not serve the files of \(fileDirectories.joined(separator: ", ")): \(message(error))")
        }
    }
    return mock
}

/// Writes a line to standard output at once (standard output is a pipe under a test).
private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve a mocks folder until SIGINT or SIGTERM.", aliases: ["run"])

    @Argument(
        help: "The mocks folder (Espresso-Martini layout, see Docs/HTTPMock.docc/MockFiles.md). Default: the current folder.")
    var folder: String?

    @Option(help: "The address to bind. Default: 127.0.0.1 (configuration.json: hostname).")
    var host: String?

    @Option(help: "The port; 0 picks a free one. Default: 0 (configuration.json: port).")
    var port: Int?

    @Option(help: "An Espresso-Martini configuration.json. Default: ./configuration.json when present.")
    var configuration: String?

    @Option(help: "The mocks folder, as Espresso-Martini names it (same as FOLDER).")
    var requestsFolder: String?

    @Option(help: "Seconds every response waits before it starts (configuration.json: delay).")
    var delay: Double?

    @Option(help: "TRACE, DEBUG, INFO (the default) print every exchange; NOTICE, WARNING, ERROR only misses; CRITICAL nothing.")
    var logLevel: String?

    @Option(help: "The host that requests naming the server are matched as.")
    var impersonate: String?

    @Flag(help: "Bind every interface (0.0.0.0) instead of loopback.")
    var useAnyAddr = false

    @Option(help: "A HAR 1.2 archive to replay (repeatable): every entry a route, identical requests in recorded order.")
    var har: [String] = []

    @Option(help: "A directory of static files served by path for GET (repeatable; the first that holds the file answers).")
    var fileDir: [String] = []

    @OptionGroup(title: "Voodoo") var voodoo: VoodooOptions

    func run() async throws {
        let file = try ServerConfiguration.load(explicitPath: configuration)
        let levelName = (logLevel ?? file.logLevel ?? "INFO").uppercased()
        guard let level = LogLevel(rawValue: levelName) else {
            throw ValidationError(
                "Unknown log level \(levelName): use one of \(LogLevel.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        let host = useAnyAddr ? "0.0.0.0" : (self.host ?? file.hostname ?? "127.0.0.1")
        let port = try voodoo.port(host: host, otherwise: self.port ?? file.port ?? 0)
        let delay = self.delay ?? file.delay ?? 0
        guard delay >= 0, delay.isFinite else { throw ValidationError("--delay must be a number of seconds ≥ 0, got \(delay).") }

        // The current folder is read as a mocks folder only when nothing else is given to serve.
        let servesFolder = folder != nil || requestsFolder != nil || (har.isEmpty && fileDir.isEmpty && voodoo.config == nil)
        let mock = try loadedMock(
            from: servesFolder ? try mocksFolder(folder, requestsFolder: requestsFolder) : nil,
            har: har, fileDirectories: fileDir)
        try voodoo.load(into: mock, fileDirectories: fileDir)
        mock.defaultDelay = delay
        mock.logHandler = { event in
            if !event.isMatched, level.printsMisses { say(event.nearMissReport ?? "\(event)") }
        }
        let server = try await mock.startServer(host: host, port: port, impersonating: impersonate, idleTimeout: 60) { record in
            guard level.printsExchanges else { return }
            let status = record.statusCode.map(String.init) ?? "---"
            say(
                String(
                    format: "%@ %@ %@ %.1f ms%@", record.method, record.target, status, record.duration * 1000,
                    record.statusCode == nil ? " (\(record.outcome))" : ""))
        }
        say("httpmock: serving on \(server.baseURL.absoluteString)")
        let signal = await Signals.waitForTermination()
        await server.stop()
        if level.printsExchanges { say("httpmock: stopped (\(signal))") }
    }
}

struct Routes: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the routes of a mocks folder.", aliases: ["endpoints"])

    @Argument(help: "The mocks folder. Default: the current folder.")
    var folder: String?

    @Option(help: "The mocks folder, as Espresso-Martini names it (same as FOLDER).")
    var requestsFolder: String?

    func run() throws {
        let mock = try loadedMock(from: try mocksFolder(folder, requestsFolder: requestsFolder))
        let routes = mock.describeRoutes()
        say(routes.isEmpty ? "No routes." : routes)
    }
}

/// Espresso-Martini's log levels.
enum LogLevel: String, CaseIterable {
    case trace = "TRACE"
    case debug = "DEBUG"
    case info = "INFO"
    case notice = "NOTICE"
    case warning = "WARNING"
    case error = "ERROR"
    case critical = "CRITICAL"

    var printsExchanges: Bool { [.trace, .debug, .info].contains(self) }
    var printsMisses: Bool { self != .critical }
}

/// Espresso-Martini's `configuration.json`: `hostname`, `port`, `delay` (seconds), `log_level`.
struct ServerConfiguration: Decodable {
    var hostname: String?
    var port: Int?
    var delay: Double?
    var logLevel: String?

    enum CodingKeys: String, CodingKey {
        case hostname, port, delay
        case logLevel = "log_level"
    }

    /// Reads `explicitPath`, else `./configuration.json` when present, else nothing.
    static func load(explicitPath: String?) throws -> ServerConfiguration {
        let path: String
        if let explicitPath {
            path = explicitPath
        } else if FileManager.default.fileExists(atPath: "configuration.json") {
            path = "configuration.json"
        } else {
            return ServerConfiguration()
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("Could not read the configuration file \(path): \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(ServerConfiguration.self, from: data)
        } catch let DecodingError.typeMismatch(type, context), let DecodingError.valueNotFound(type, context) {
            let key = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw ValidationError("\(path): \(key) must be a \(type).")
        } catch {
            throw ValidationError("\(path) is not a valid configuration.json: \(error)")
        }
    }
}

/// SIGINT and SIGTERM, turned into an awaitable event.
enum Signals {
    static func waitForTermination() async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let resumed = ResumeOnce(continuation)
            for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { resumed.resume(name) }
                source.resume()
                resumed.keep(source)
            }
        }
    }

    private final class ResumeOnce: @unchecked Sendable {
        // @unchecked: every field is guarded by `lock`.
        private let lock = NSLock()
        private var continuation: CheckedContinuation<String, Never>?
        private var sources: [any DispatchSourceSignal] = []

        init(_ continuation: CheckedContinuation<String, Never>) { self.continuation = continuation }

        func keep(_ source: any DispatchSourceSignal) { lock.withLock { sources.append(source) } }

        func resume(_ name: String) {
            let continuation = lock.withLock { () -> CheckedContinuation<String, Never>? in
                defer { self.continuation = nil }
                return self.continuation
            }
            continuation?.resume(returning: name)
        }
    }
}
#else
import Foundation

/// Without the `Server` trait the CLI has nothing to serve with.
@main
enum HTTPMockCommand {
    static func main() {
        FileHandle.standardError.write(Data("httpmock needs the Server trait: swift build --traits Server --product httpmock\n".utf8))
        exit(1)
    }
}
#endif

#if Server
import ArgumentParser
import Foundation
import HTTPMock
import HTTPMockServer

/// `httpmock serve`: loads the mocks and serves them until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve a mocks folder until SIGINT or SIGTERM.")

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

    func run() async throws {
        let file = try ServerConfiguration.load(explicitPath: configuration)
        let levelName = (logLevel ?? file.logLevel ?? "INFO").uppercased()
        guard let level = LogLevel(rawValue: levelName) else {
            throw ValidationError(
                "Unknown log level \(levelName): use one of \(LogLevel.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        let host = useAnyAddr ? "0.0.0.0" : (self.host ?? file.hostname ?? "127.0.0.1")
        let port = self.port ?? file.port ?? 0
        let delay = self.delay ?? file.delay ?? 0
        guard delay >= 0, delay.isFinite else { throw ValidationError("--delay must be a number of seconds ≥ 0, got \(delay).") }

        // The current folder is read as a mocks folder only when nothing else is given to serve.
        let servesFolder = folder != nil || requestsFolder != nil || (har.isEmpty && fileDir.isEmpty)
        let mock = try loadedMock(
            from: servesFolder ? try mocksFolder(folder, requestsFolder: requestsFolder) : nil,
            har: har, fileDirectories: fileDir)
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
#endif

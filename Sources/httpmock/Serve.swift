#if Server
import ArgumentParser
import Foundation
import HTTPMock
import HTTPMockServer
import Logging

/// `httpmock serve`: loads the mocks and serves them until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve a mocks folder (httpmock serve ./mocks), or nothing, until SIGINT or SIGTERM.",
        discussion:
            "Without a source (FOLDER, --har, --file-dir, --wiremock-root, --config) no folder is read: "
            + "an empty instance is served, and stubs are added through the admin API (/__admin/mappings) "
            + "or the dashboard (/__admin/).")

    @OptionGroup var options: ServeOptions

    func run() async throws { try await options.serve(as: .serve) }
}

/// Everything `serve` takes, shared with Voodoo's `run` (``Run``). Options, not a command: a
/// command used as another's option group made ArgumentParser name `run` `httpmock serve run`
/// in its usage.
struct ServeOptions: ParsableArguments {
    /// The CLI's log line of one exchange, at `info` on `log`: method, target (secrets masked
    /// unless revealed), status, duration, and the outcome when nothing was sent.
    static func exchangeLine(revealSecrets: Bool, log: Logger) -> @Sendable (ServedExchangeRecord) -> Void {
        { record in
            let status = record.statusCode.map(String.init) ?? "---"
            let target = revealSecrets ? record.target : SecretMasking.url(record.target)
            let line = String(
                format: "%@ %@ %@ %.1f ms%@", record.method, target, status, record.duration * 1000,
                record.statusCode == nil ? " (\(record.outcome))" : "")
            log.info("\(line)")
        }
    }

    @OptionGroup var source: SourceOptions

    @OptionGroup(title: "Live control (WireMock admin API, dashboard, forwarding)")
    var wireMock: WireMockOptions

    @OptionGroup(title: "Voodoo") var voodoo: VoodooOptions

    @OptionGroup(title: "HTTPS and HTTP/2") var tls: TLSOptions

    @Option(
        help:
            "The one address to bind. Default: loopback, 127.0.0.1 and ::1 on the same port, so localhost works over IPv4 and IPv6 (configuration.json: hostname)."
    )
    var host: String?

    @Option(help: "WireMock's name for --host: the one address to bind.")
    var bindAddress: String?

    // `.unconditional`: `--port -1` reads -1 as the value (and refuses it), not as an option.
    @Option(parsing: .unconditional, help: "The port; 0 picks a free one. Default: 0 (configuration.json: port).")
    var port: Int?

    @Option(help: "An Espresso-Martini configuration.json. Default: ./configuration.json, else the one in the mocks folder.")
    var configuration: String?

    @Option(
        parsing: .unconditional,
        help: "Seconds every response waits before it starts, 0 to 86400 (configuration.json: delay).")
    var delay: Double?

    @Option(help: "TRACE, DEBUG, INFO (the default) print every exchange; NOTICE, WARNING, ERROR only misses; CRITICAL nothing.")
    var logLevel: String?

    @Option(
        help:
            "The host that requests naming the server are matched as. Default: the one host every loaded route names, else the default domain."
    )
    var impersonate: String?

    @Flag(help: "Bind every interface (0.0.0.0) instead of loopback.")
    var useAnyAddr = false

    static let defaultJournalLimit = 10_000

    @Option(
        help:
            "The most requests the journal keeps (the oldest are forgotten), so a long run stays bounded. Default: 10000 (WireMock's --max-request-journal-entries)."
    )
    var journalLimit = Self.defaultJournalLimit

    @Option(help: "Request bodies larger than this many bytes are journaled as their size only. Default: 1048576 (1 MB).")
    var journalBodyLimit = 1024 * 1024

    @Option(
        help:
            "The most bytes the journal's bodies and reports hold together; past it the oldest requests are forgotten. Default: 268435456 (256 MB)."
    )
    var journalBytesLimit = 256 * 1024 * 1024
    @Flag(
        help:
            "Show secrets as sent in the log, near-miss reports and the dashboard (Authorization, Cookie, tokens, passwords: masked as REDACTED by default)."
    )
    var revealSecrets = false

    func validate() throws {
        if let host, let bindAddress, host != bindAddress {
            throw ValidationError(
                "--host \(host) and --bind-address \(bindAddress) name two addresses; give one (both name the address to bind).")
        }
        if useAnyAddr, let address = host ?? bindAddress {
            throw ValidationError("--use-any-addr binds every interface, and --host/--bind-address names \(address); give one.")
        }
        if let maximum = wireMock.maxRequestJournalEntries, maximum != journalLimit, journalLimit != Self.defaultJournalLimit {
            throw ValidationError(
                "--journal-limit \(journalLimit) and --max-request-journal-entries \(maximum) name two limits; give one (they are the same setting)."
            )
        }
        if let port, !(0...65_535).contains(port) {
            throw ValidationError("--port must be a number from 0 to 65535 (0 picks a free port), got \(port).")
        }
        if let delay, !(0...ServerSettings.maximumDelay).contains(delay) {
            throw ValidationError(
                "--delay must be a number of seconds from 0 to \(Int(ServerSettings.maximumDelay)), got \(CLIConfiguration.formatted(delay))."
            )
        }
        if let logLevel, Logger.Level(cliName: logLevel) == nil {
            throw ValidationError(
                "--log-level must be one of \(Logger.Level.allCases.map(\.cliName).joined(separator: ", ")), got \"\(logLevel)\".")
        }
        if wireMock.forwardUnmatched != nil, !source.fileDir.isEmpty {
            throw ValidationError(
                "--forward-unmatched and --file-dir both answer the requests no route matches; give one of them.")
        }
        if journalLimit < 0 { throw ValidationError("--journal-limit must be a number of requests ≥ 0, got \(journalLimit).") }
        if journalBodyLimit < 0 { throw ValidationError("--journal-body-limit must be a number of bytes ≥ 0, got \(journalBodyLimit).") }
        if journalBytesLimit < 0 {
            throw ValidationError("--journal-bytes-limit must be a number of bytes ≥ 0, got \(journalBytesLimit).")
        }
        if let impersonate, let problem = CLIConfiguration.impersonationProblem(impersonate) {
            throw ValidationError("--impersonate \"\(impersonate)\" is not a host: \(problem).")
        }
    }

    /// Serves until SIGINT or SIGTERM; `mode` `.run` is Voodoo's `run` (see ``Run``).
    func serve(as mode: ServeMode) async throws {
        voodoo.prepareOutput(for: mode)
        let folder = try source.mocksFolder()
        let settingsPath = CLIConfiguration.path(explicitPath: configuration, mocksFolder: folder)
        let file = try CLIConfiguration.load(settingsPath)
        if let note = CLIConfiguration.unusedSettingsFile(in: folder, using: settingsPath) { say(note) }
        // The exchange log `--log-level` filters: each exchange and the stop line at `info` (so
        // TRACE, DEBUG, INFO print them), misses at `error` (all but CRITICAL). The level is
        // checked by `validate()` and `ServerSettings`, so the fallback never applies.
        let log = Logger.cli(.output, level: Logger.Level(cliName: logLevel ?? file.logLevel ?? "INFO") ?? .info)
        // What the server library reports (Voodoo scripts' lines and failures, dropped webhooks,
        // scripts that do not load): `httpmock: MESSAGE` on standard error at every level.
        let serverLog = Logger.cli(.standardError, prefix: "httpmock: ")
        // `nil`: loopback in both families (127.0.0.1 and ::1, the same port).
        let host = useAnyAddr ? "0.0.0.0" : (self.host ?? bindAddress ?? file.hostname)
        let hostName = host ?? "127.0.0.1"
        let ports = try voodoo.ports(port: self.port ?? file.port, mode: mode)

        let mock = HTTPMock()
        mock.serverLogger = serverLog
        mock.defaultDelay = delay ?? file.delay ?? 0
        mock.journalLimit = wireMock.noRequestJournal ? 0 : (wireMock.maxRequestJournalEntries ?? journalLimit)
        mock.journalBodyLimit = journalBodyLimit
        mock.journalBytesLimit = journalBytesLimit
        mock.revealSecrets = revealSecrets
        let termination = Termination()
        let filesAnswer = try source.load(into: mock, mocksFolder: folder)
        try voodoo.load(into: mock, fileDirectories: source.fileDir, log: serverLog) {
            termination.stop(because: "admin shutdown: POST /_admin/shutdown")
        }
        let admin = try wireMock.apply(to: mock, host: hostName)
        if wireMock.recordMappings, admin == nil {
            throw ValidationError(
                "--record-mappings records through the admin API's recorder, which is off on \(hostName) (not a loopback address): give --admin-token TOKEN too."
            )
        }
        voodoo.listRoutes(of: mock)
        // Caught from here on, before the start-up line below tells anyone the server is up.
        termination.catchSignals()
        admin?.setShutdownHandler { termination.stop(because: "admin shutdown: POST /__admin/shutdown") }
        // A HAR recorded against one API: requests naming the server are that API's.
        let inferredHost = impersonate == nil ? mock.singleRouteHost : nil
        mock.setMissLogHandler { event in
            guard !event.isMatched, log.logLevel <= .error, filesAnswer?(event.request) != true else { return }
            log.error("\(event.nearMissReport ?? "\(event)")")
        }
        // No exchange line at this level: no record is made or handed to a queue per request (a
        // measured ~15% of a small answer's CPU, issue 46).
        let onExchange = log.logLevel <= .info ? Self.exchangeLine(revealSecrets: revealSecrets, log: log) : nil
        let upstreamCertificates = tls.upstreamCertificates
        let server = try await voodoo.bind(ports, host: hostName) { port in
            try await mock.startServer(
                host: host, port: port, impersonating: impersonate ?? inferredHost, idleTimeout: 60,
                admin: admin, trustedUpstreamCertificates: upstreamCertificates, onExchange: onExchange)
        }
        // WireMock's --https-port: a second listener on the same instance, TLS (HTTP/2 by ALPN).
        var secureServer: HTTPMockServer?
        if let httpsPort = tls.httpsPort, let configuration = tls.tls {
            do {
                secureServer = try await mock.startServer(
                    host: host, port: httpsPort, impersonating: impersonate ?? inferredHost, idleTimeout: 60,
                    admin: admin, tls: configuration, trustedUpstreamCertificates: upstreamCertificates, onExchange: onExchange)
            } catch {
                await server.stop()
                throw ValidationError("--https-port \(httpsPort): \((error as? HTTPMockError)?.message ?? "\(error)")")
            }
        }
        voodoo.announce(server.baseURL, mode: mode)
        if !source.namesASource, wireMock.wiremockRoot == nil, voodoo.config == nil {
            let adminNote =
                admin == nil
                ? ""
                : " add stubs at \(server.baseURL.absoluteString)/__admin/mappings or on the dashboard, \(server.baseURL.absoluteString)/__admin/, or"
            say("httpmock: no mocks folder given, so no routes:\(adminNote) name a folder: httpmock serve ./mocks")
        }
        if host == nil, !server.listeningAddresses.contains("::1") {
            say("httpmock: ::1 cannot be bound on this machine (no IPv6 loopback): listening on 127.0.0.1 only")
        }
        if wireMock.recordMappings, let admin, let target = wireMock.forwardUnmatched.flatMap(URL.init(string:)) {
            do {
                try admin.startRecordingAtLaunch(forwardingTo: target)
            } catch {
                await server.stop()
                throw ValidationError((error as? HTTPMockError)?.message ?? "\(error)")
            }
            say("httpmock: recording what \(target.absoluteString) answers; the mappings are written when the server stops")
        }
        if let secureServer {
            say("httpmock: serving https on \(secureServer.baseURL.absoluteString) (HTTP/2 and HTTP/1.1; \(tls.certificateNote))")
        }
        let matchedAs = inferredHost.map { "matching requests as \($0) (the one host of the loaded routes), " } ?? ""
        say("httpmock: \(matchedAs)serving on \(server.baseURL.absoluteString)")
        let signal = await termination.wait()
        await secureServer?.stop()
        await server.stop()
        if wireMock.recordMappings, let admin, let root = wireMock.wiremockRoot {
            do {
                let count = try admin.stopRecordingAtExit()
                say("httpmock: recorded \(count) mapping\(count == 1 ? "" : "s") into \(root)/mappings")
            } catch {
                complain("httpmock: \((error as? HTTPMockError)?.message ?? "\(error)")")
            }
        }
        log.info("httpmock: stopped (\(signal))")
    }
}
#endif

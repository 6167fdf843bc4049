#if Server
import Logging

/// The CLI's swift-log handler: each message as it is, one line, queued on ``Output`` (so
/// logging never holds up serving), after ``prefix``. The level decides whether a line is
/// written (the `Logger`'s `logLevel`), not how it reads: the lines are the ones the CLI has
/// always printed. Metadata is not printed (the CLI's messages carry none).
struct OutputLogHandler: LogHandler {
    /// Where the lines go.
    enum Destination: Sendable {
        /// Standard output; standard error under `httpmock run` (``say(_:)``).
        case output
        /// Standard error (``complain(_:)``).
        case standardError
    }

    let destination: Destination
    /// Written before each message: `httpmock: ` for the server library's messages
    /// (`HTTPMock.serverLogger`), which come without it.
    let prefix: String
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let line = prefix + event.message.description
        switch destination {
        case .output: say(line)
        case .standardError: complain(line)
        }
    }
}

extension Logger {
    /// A logger of the CLI's that writes through ``OutputLogHandler`` to `destination`, each
    /// message after `prefix`, from `level` up.
    static func cli(_ destination: OutputLogHandler.Destination, prefix: String = "", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "httpmock") { _ in OutputLogHandler(destination: destination, prefix: prefix) }
        logger.logLevel = level
        return logger
    }
}

extension Logger.Level {
    /// The level `--log-level` or `configuration.json`'s `log_level` names (Espresso-Martini's
    /// `TRACE` … `CRITICAL`, any case); `nil` for another word.
    init?(cliName: String) {
        self.init(rawValue: cliName.lowercased())
    }

    /// The level as `--log-level` spells it: `TRACE` … `CRITICAL`.
    var cliName: String { rawValue.uppercased() }
}
#endif

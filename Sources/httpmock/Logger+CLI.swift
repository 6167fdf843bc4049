#if Server
import HTTPMockServer
import Logging

/// Where the CLI's log lines go: each through ``Output``, queued (so logging never holds up
/// serving), by the server's ``LineLogHandler``.
enum OutputDestination: Sendable {
    /// Standard output; standard error under `httpmock run` (``say(_:)``).
    case output
    /// Standard error (``complain(_:)``).
    case standardError
}

extension Logger {
    /// A logger of the CLI's that writes to `destination` (through ``Output``), each message
    /// after `prefix` (`httpmock: ` for the server library's messages, which come without it),
    /// from `level` up.
    static func cli(_ destination: OutputDestination, prefix: String = "", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "httpmock") { _ in
            LineLogHandler(prefix: prefix) { line in
                switch destination {
                case .output: say(line)
                case .standardError: complain(line)
                }
            }
        }
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

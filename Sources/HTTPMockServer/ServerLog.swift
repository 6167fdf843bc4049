#if Server
import Foundation
import HTTPMock
import Logging
import NIOConcurrencyHelpers

/// Where one instance's server-side messages go (``HTTPMock/HTTPMock/serverLogger``): the
/// `Logger` set on the instance, else standard error as before swift-log. Kept by the instance
/// (a front-end state), read when a message is written, so a logger set after loading takes
/// the messages of what was loaded before.
final class ServerLog: Sendable {
    private let configured = NIOLockedValueBox<Logger?>(nil)

    /// The log of `mock`, made on first use and kept by it.
    static func of(_ mock: HTTPMock) -> ServerLog {
        mock.frontEndState(ServerLog.self) { ServerLog() }
    }

    /// The logger set on the instance; `nil`: ``standardError``.
    var logger: Logger? {
        get { configured.withLockedValue { $0 } }
        set { configured.withLockedValue { $0 = newValue } }
    }

    /// The logger a message goes to now.
    var current: Logger { logger ?? Self.standardError }

    /// The default: each message on standard error as `httpmock: MESSAGE`, every level, as the
    /// server wrote them before it logged through swift-log. Not `LoggingSystem`'s handler, whose
    /// lines (timestamp, level, label) would change what an unconfigured process prints.
    static let standardError = Logger(label: "httpmock") { _ in
        LineLogHandler(prefix: "httpmock: ") { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }
}

/// A swift-log handler that writes each message as one line, after `prefix`, through `write`:
/// the message alone, as HTTPMock's server and CLI have always printed them (the level decides
/// whether a line is written, the `Logger`'s `logLevel`, not how it reads). Metadata is not
/// printed (these messages carry none). The server's default log (standard error) and the CLI's
/// (its non-blocking writer) are both this handler.
package struct LineLogHandler: LogHandler {
    let prefix: String
    let write: @Sendable (String) -> Void
    package var logLevel: Logger.Level = .trace
    package var metadata: Logger.Metadata = [:]

    package init(prefix: String, write: @escaping @Sendable (String) -> Void) {
        self.prefix = prefix
        self.write = write
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        write(prefix + event.message.description)
    }
}
#endif

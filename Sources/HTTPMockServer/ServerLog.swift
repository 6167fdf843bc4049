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
    static let standardError = Logger(label: "httpmock", factory: { _ in StandardErrorLogHandler() })
}

/// ``ServerLog/standardError``'s handler: the message alone, after `httpmock: `, one line on
/// standard error, written at once. Metadata is not printed (the server's messages carry none).
struct StandardErrorLogHandler: LogHandler {
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        FileHandle.standardError.write(Data("httpmock: \(event.message)\n".utf8))
    }
}
#endif

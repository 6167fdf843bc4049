import Foundation

/// bstien/HTTPMock's process-wide log switch, kept so that code setting it (often in every test
/// suite's `init`) compiles. HTTPMock logs per instance instead, through
/// ``HTTPMock/logHandler``.
///
/// Setting ``isEnabled`` or ``level`` sets ``HTTPMock/shared``'s `logHandler`: disabled or
/// `.error` is silent (`nil`); `.warning` and `.info` write unmatched requests to standard
/// error (``HTTPMock/standardErrorMissLogger``, the default); `.debug` and `.trace` write every
/// request, matched or not. Instances you make yourself keep their own `logHandler`.
///
/// ```swift
/// HTTPMockLog.isEnabled = false        // HTTPMock.shared.logHandler = nil
/// HTTPMockLog.level = .trace           // every event of HTTPMock.shared to standard error
/// ```
@available(*, deprecated, message: "set logHandler on the HTTPMock instance: mock.logHandler = nil silences it")
public enum HTTPMockLog {
    /// Upstream's levels, most severe first.
    public enum Level: Int, Sendable, Comparable {
        /// Errors only: HTTPMock.shared is silent.
        case error = 0
        /// Warnings: unmatched requests.
        case warning
        /// Information: unmatched requests.
        case info
        /// Debugging: every request.
        case debug
        /// Everything: every request.
        case trace

        /// Orders levels from `.error` (least) to `.trace` (most).
        ///
        /// - Parameters:
        ///   - lhs: A level.
        ///   - rhs: Another level.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        var label: String { ["ERROR", "WARNING", "INFO", "DEBUG", "TRACE"][rawValue] }
    }

    private static let state = Locked((isEnabled: true, level: Level.trace))

    /// Whether anything is logged; `false` silences ``HTTPMock/shared``.
    ///
    /// ```swift
    /// HTTPMockLog.isEnabled = false
    /// ```
    public static var isEnabled: Bool {
        get { state.withLock { $0.isEnabled } }
        set {
            state.withLock { $0.isEnabled = newValue }
            apply()
        }
    }

    /// The most detailed level logged (`.trace` by default, as upstream).
    ///
    /// ```swift
    /// HTTPMockLog.level = .warning   // HTTPMock.shared: unmatched requests only
    /// ```
    public static var level: Level {
        get { state.withLock { $0.level } }
        set {
            state.withLock { $0.level = newValue }
            apply()
        }
    }

    /// Writes `message` to standard error as an error, when enabled.
    ///
    /// ```swift
    /// HTTPMockLog.error("the fixture is missing")
    /// ```
    ///
    /// - Parameters:
    ///   - message: The message, only evaluated when it is written.
    public static func error(_ message: @autoclosure () -> String) { write(message, at: .error) }

    /// Writes `message` to standard error as a warning, when the level is `.warning` or above.
    ///
    /// ```swift
    /// HTTPMockLog.warning("falling back to the default host")
    /// ```
    ///
    /// - Parameters:
    ///   - message: The message, only evaluated when it is written.
    public static func warning(_ message: @autoclosure () -> String) { write(message, at: .warning) }

    /// Writes `message` to standard error, when the level is `.info` or above.
    ///
    /// ```swift
    /// HTTPMockLog.info("mocks registered")
    /// ```
    ///
    /// - Parameters:
    ///   - message: The message, only evaluated when it is written.
    public static func info(_ message: @autoclosure () -> String) { write(message, at: .info) }

    /// Writes `message` to standard error, when the level is `.debug` or above.
    ///
    /// ```swift
    /// HTTPMockLog.debug("request sent")
    /// ```
    ///
    /// - Parameters:
    ///   - message: The message, only evaluated when it is written.
    public static func debug(_ message: @autoclosure () -> String) { write(message, at: .debug) }

    /// Writes `message` to standard error, when the level is `.trace`.
    ///
    /// ```swift
    /// HTTPMockLog.trace("response body: \(body)")
    /// ```
    ///
    /// - Parameters:
    ///   - message: The message, only evaluated when it is written.
    public static func trace(_ message: @autoclosure () -> String) { write(message, at: .trace) }

    private static func write(_ message: () -> String, at messageLevel: Level) {
        let (enabled, current) = state.withLock { ($0.isEnabled, $0.level) }
        guard enabled, messageLevel <= current else { return }
        FileHandle.standardError.write(Data("[HTTPMock][\(messageLevel.label)] \(message())\n".utf8))
    }

    /// Sets HTTPMock.shared's log handler from the switch and the level.
    private static func apply() {
        let (enabled, current) = state.withLock { ($0.isEnabled, $0.level) }
        if !enabled || current == .error {
            HTTPMock.shared.logHandler = nil
        } else if current >= .debug {
            HTTPMock.shared.logHandler = { event in FileHandle.standardError.write(Data((event.description + "\n").utf8)) }
        } else {
            HTTPMock.shared.logHandler = HTTPMock.standardErrorMissLogger
        }
    }
}

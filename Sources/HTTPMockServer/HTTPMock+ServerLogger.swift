#if Server
import HTTPMock
import Logging

extension HTTPMock {
    /// The swift-log `Logger` this instance's server-side features write their messages to:
    /// a Voodoo script's `console.log` lines (`info`), a Voodoo script that fails while it
    /// answers (`error`), and a WireMock webhook dropped because too many are being sent
    /// (`warning`).
    ///
    /// `nil` (the default) leaves them where they have always gone: standard error, one line
    /// each, `httpmock: MESSAGE` (a script's, only while the instance's `logHandler` is set). A `Logger` of yours takes them all instead, filtered by its own `logLevel` and
    /// written by its own handler; its messages carry no `httpmock: ` prefix (the label says
    /// where they come from). Read when a message is written: set it before or after loading,
    /// or give it to `startServer(logger:)`.
    ///
    /// ```swift
    /// var logger = Logger(label: "mock-server")
    /// logger.logLevel = .warning  // failures and dropped webhooks, not console.log
    /// mock.serverLogger = logger
    /// ```
    ///
    /// Requests, matched or not, are not among these messages: the instance's `logHandler`
    /// reports them, as without the server.
    public var serverLogger: Logger? {
        get { ServerLog.of(self).logger }
        set { ServerLog.of(self).logger = newValue }
    }
}
#endif

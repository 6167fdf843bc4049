/// Where a user called into HTTPMock, captured from `#fileID`/`#filePath`/`#line`/`#column`
/// defaults and forwarded untouched to the test runner.
struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    var fileID: String
    var filePath: String
    var line: Int
    var column: Int

    /// `file:line`; without the line when there is none (0: a mapping posted to the admin API).
    var description: String { line > 0 ? "\(fileID):\(line)" : fileID }
}

/// Where a user called into HTTPMock, captured from `#fileID`/`#filePath`/`#line`/`#column`
/// defaults and forwarded untouched to the test runner.
struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    var fileID: String
    var filePath: String
    var line: Int
    var column: Int

    /// `file:line`, or the file alone for a location that has no line (0: a mapping posted to
    /// the admin API, a link in a mock tree), rather than a line number that is not one.
    var description: String { line > 0 ? "\(fileID):\(line)" : fileID }
}

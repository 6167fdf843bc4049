/// Where a user called into HTTPMock, captured from `#fileID`/`#filePath`/`#line`/`#column`
/// defaults and forwarded untouched to the test runner.
struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    var fileID: String
    var filePath: String
    var line: Int
    var column: Int

    var description: String { "\(fileID):\(line)" }
}

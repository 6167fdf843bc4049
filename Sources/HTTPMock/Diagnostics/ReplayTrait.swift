import Foundation

#if canImport(Testing)
import Testing
#endif

extension Reporter {
    /// What `swift test --filter` needs to run the current test: the running Swift Testing
    /// test's function name, else the file's name (XCTest's class, by convention).
    static func currentTestFilter(fileID: String) -> String {
        #if canImport(Testing)
        if let test = Test.current {
            return String(test.name.prefix { $0 != "(" })
        }
        #endif
        let file = fileID.split(separator: "/").last.map(String.init) ?? fileID
        return file.hasSuffix(".swift") ? String(file.dropLast(6)) : file
    }
}

#if canImport(Testing) && compiler(>=6.1)
/// Replays, or records, a HAR archive for one test. See ``withHTTPMock(replaying:in:matching:redacting:fileID:filePath:line:column:_:)``.
///
/// ```swift
/// @Test(.httpMock(replaying: "fetchUser")) func fetchUser() async throws {
///     let client = UserClient(session: HTTPMock.current.urlSession)
///     #expect(try await client.user(id: 1).name == "Ada")
/// }
/// ```
public struct HTTPMockReplayTrait: TestTrait, TestScoping {
    let name: String
    let directory: URL?
    let matching: HARMatching
    let redaction: Redaction

    /// Runs the test with ``HTTPMock/HTTPMock/current`` set to an instance that replays the archive
    /// (or records it, as `HTTPMOCK_RECORD` says); when the test ends, writes the archive or
    /// reports the requests it lacks.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let location = SourceLocation(
            fileID: test.sourceLocation.fileID, filePath: test.sourceLocation.filePath,
            line: test.sourceLocation.line, column: test.sourceLocation.column)
        try await ReplayScope.run(
            name: name, directory: directory, matching: matching, redaction: redaction,
            location: location, testFilter: String(test.name.prefix { $0 != "(" })
        ) { _ in
            try await function()
        }
    }
}

extension Trait where Self == HTTPMockReplayTrait {
    /// A fresh ``HTTPMock`` as ``HTTPMock/current`` that replays `Replays/<name>.har` beside the
    /// test's file (or `<in>/<name>.har`), or records it as `HTTPMOCK_RECORD` says.
    ///
    /// - Parameters:
    ///   - name: The archive's name, without `.har`.
    ///   - directory: The folder holding the archive; `nil` is `Replays` beside the test file.
    ///   - matching: How requests match archived ones; see ``HARMatching``.
    ///   - redaction: What recording removes; see ``Redaction``.
    public static func httpMock(
        replaying name: String, in directory: URL? = nil, matching: HARMatching = [], redacting redaction: Redaction = .default
    ) -> HTTPMockReplayTrait {
        HTTPMockReplayTrait(name: name, directory: directory, matching: matching, redaction: redaction)
    }
}
#endif

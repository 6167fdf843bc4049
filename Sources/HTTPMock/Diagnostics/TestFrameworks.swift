import Foundation

#if canImport(Testing)
import Testing
#endif

// Reporting into Swift Testing or XCTest, and the `.httpMock` trait. Following XCTest's running
// test case is in XCTestTracker.swift, reaching a Swift Testing test from URL loading's threads
// in MissInbox.swift.

/// Reports failures and warnings to whichever test runner is running.
///
/// A failure goes to Swift Testing when a test is running on the current task
/// (`Test.current`), otherwise to the XCTest test case that is running, otherwise to standard
/// error as `file:line: error: message` (the format compilers and IDEs understand).
enum Reporter {
    enum Severity: Sendable {
        case error
        case warning
    }

    static func fail(_ message: String, at location: SourceLocation) {
        report(message, severity: .error, at: location)
    }

    static func warn(_ message: String, at location: SourceLocation) {
        report(message, severity: .warning, at: location)
    }

    static func report(_ message: String, severity: Severity, at location: SourceLocation) {
        #if canImport(Testing)
        if Test.current != nil {
            recordInSwiftTesting(message, severity: severity, at: location)
            return
        }
        #endif
        #if canImport(XCTest)
        if severity == .error, XCTestTracker.recordFailure(message, at: location) {
            return
        }
        #endif
        writeToStandardError(message, severity: severity, at: location)
    }

    /// Reports an unmatched request under `.failTest` at once when an XCTest test case is
    /// running (XCTest attributes it to that test even from URL loading's thread). Swift Testing
    /// cannot attribute it from there: its misses go through ``MissInbox``.
    /// - Returns: whether it was reported.
    static func reportMissNow(_ message: String, at location: SourceLocation) -> Bool {
        #if canImport(XCTest)
        return XCTestTracker.recordMiss(message, at: location)
        #else
        return false
        #endif
    }

    /// Whether an XCTest test case is known to be running (it takes failures from any thread).
    static var xcTestCaseIsRunning: Bool {
        #if canImport(XCTest)
        return XCTestTracker.hasRunningTestCase
        #else
        return false
        #endif
    }

    /// Starts following XCTest's test cases so failures can be attributed to the running one.
    /// Called when the first `HTTPMock` is made.
    static func prepare() {
        #if canImport(XCTest)
        XCTestTracker.install()
        #endif
    }

    #if canImport(Testing)
    private static func recordInSwiftTesting(_ message: String, severity: Severity, at location: SourceLocation) {
        // Swift Testing needs a line and column from 1 (line 0 is a location without a line) and
        // a file ID of the form `Module/File` (it traps otherwise): a front end's place such as
        // "the admin API" or "Voodoo admin" gets a module.
        let fileID = location.fileID.utf8.contains(UInt8(ascii: "/")) ? location.fileID : "HTTPMock/" + location.fileID
        let sourceLocation = Testing.SourceLocation(
            fileID: fileID, filePath: location.filePath, line: max(1, location.line), column: max(1, location.column))
        #if compiler(>=6.3)
        Issue.record(Comment(rawValue: message), severity: severity == .error ? .error : .warning, sourceLocation: sourceLocation)
        #else
        if severity == .error {
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        } else {
            writeToStandardError(message, severity: severity, at: location)
        }
        #endif
    }
    #endif

    private static func writeToStandardError(_ message: String, severity: Severity, at location: SourceLocation) {
        let place = location.line > 0 ? "\(location.filePath):\(location.line)" : location.filePath
        let line = "\(place): \(severity == .error ? "error" : "warning"): \(message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}

#if canImport(Testing) && compiler(>=6.1)
/// Gives each test a fresh ``HTTPMock`` as ``HTTPMock/current`` and verifies it when the test
/// ends. Use it as `@Test(.httpMock)` or on a suite (`@Suite(.httpMock)`), where every test gets
/// its own instance.
///
/// ```swift
/// @Test(.httpMock) func loadsProfile() async throws {
///     HTTPMock.current.addResponses(forPath: "/profile", responses: [.encodable(profile)])
///     let client = ProfileClient(session: HTTPMock.current.urlSession)
///     #expect(try await client.load() == profile)
/// }   // an unmatched request or an unrequested response fails the test here
/// ```
public struct HTTPMockTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applied to a suite, the trait reaches every test in it.
    public var isRecursive: Bool { true }

    /// Runs each test with ``HTTPMock/HTTPMock/current`` set to a fresh instance, then verifies it.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope is not a test: its tests each get theirs.
        guard !test.isSuite else { return try await function() }
        let mock = HTTPMock()
        mock.registry.isVerifiedAtScopeEnd.withLock { $0 = true }
        let location = SourceLocation(
            fileID: test.sourceLocation.fileID, filePath: test.sourceLocation.filePath,
            line: test.sourceLocation.line, column: test.sourceLocation.column)
        do {
            try await HTTPMock.$scoped.withValue(mock) { try await function() }
            mock.verify(at: location)
        } catch {
            mock.verify(at: location)
            throw error
        }
    }
}

extension Trait where Self == HTTPMockTrait {
    /// A fresh ``HTTPMock`` per test as ``HTTPMock/current``, verified when the test ends.
    public static var httpMock: HTTPMockTrait { HTTPMockTrait() }
}
#endif

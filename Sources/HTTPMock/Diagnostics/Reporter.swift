import Foundation
#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

/// The one place that talks to test runners.
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

    /// Starts following XCTest's test cases so failures can be attributed to the running one.
    /// Called when the first `HTTPMock` is made.
    static func prepare() {
        #if canImport(XCTest)
        XCTestTracker.install()
        #endif
    }

    #if canImport(Testing)
    private static func recordInSwiftTesting(_ message: String, severity: Severity, at location: SourceLocation) {
        let sourceLocation = Testing.SourceLocation(
            fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column)
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
        let line = "\(location.filePath):\(location.line): \(severity == .error ? "error" : "warning"): \(message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}

#if canImport(XCTest)
/// Follows XCTest's running test case through `XCTestObservationCenter`.
///
/// `XCTFail` takes its file as `StaticString`, which a user's `#filePath` captured as `String`
/// cannot become, so failures are recorded on the test case itself with the user's location.
/// The test that was already running when the observer was installed is not known to it;
/// for that one `XCTFail` (which attributes to the running test, or does nothing outside one)
/// carries the location in its message, and the failure is also written to standard error.
final class XCTestTracker: NSObject, XCTestObservation, @unchecked Sendable {
    // @unchecked: `current` is only touched inside `withLock`.
    private static let shared = XCTestTracker()
    private static let installed = Locked(false)
    private let current = Locked<XCTestCase?>(nil)

    static func install() {
        let shouldInstall = installed.withLock { installed -> Bool in
            defer { installed = true }
            return !installed
        }
        guard shouldInstall else { return }
        let observer = shared
        if Thread.isMainThread {
            MainActor.assumeIsolated { XCTestObservationCenter.shared.addTestObserver(observer) }
        } else {
            DispatchQueue.main.async { XCTestObservationCenter.shared.addTestObserver(observer) }
        }
    }

    func testCaseWillStart(_ testCase: XCTestCase) {
        current.withLock { $0 = testCase }
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        current.withLock { $0 = nil }
    }

    /// - Returns: whether an XCTest test case took the failure for certain.
    static func recordFailure(_ message: String, at location: SourceLocation) -> Bool {
        if let testCase = shared.current.withLock({ $0 }) {
            testCase.recordFailure(withDescription: message, inFile: location.filePath, atLine: location.line, expected: true)
            return true
        }
        XCTFail("\(location.fileID):\(location.line): \(message)")
        return false
    }
}
#endif

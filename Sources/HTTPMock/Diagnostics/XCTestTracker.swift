#if canImport(XCTest)
import Foundation
import XCTest

/// Follows XCTest's running test case through `XCTestObservationCenter`.
///
/// `XCTFail` takes its file as `StaticString`, which a user's `#filePath` captured as `String`
/// cannot become, so failures are recorded on the test case itself with the user's location.
///
/// The test that was already running when the observer was installed (the first test of a
/// process that makes an `HTTPMock`, or a test run alone) never announced itself. For that one,
/// `XCTFail` (which XCTest attributes to its running test from any thread) carries the failure,
/// at the user's file and line (``StaticFilePath``); the observer hears of the failure with the
/// test case and follows that test case from then on.
final class XCTestTracker: NSObject, XCTestObservation, @unchecked Sendable {
    // @unchecked: `current` and `sawTestBoundary` are only touched inside `withLock`.
    private static let shared = XCTestTracker()
    private static let installed = Locked(false)
    private let current = Locked<XCTestCase?>(nil)
    /// Whether a test case was seen to start or finish: from then on `current` is exact.
    private let sawTestBoundary = Locked(false)

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
        sawTestBoundary.withLock { $0 = true }
        current.withLock { $0 = testCase }
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        sawTestBoundary.withLock { $0 = true }
        current.withLock { $0 = nil }
    }

    func testCase(_ testCase: XCTestCase, didFailWithDescription description: String, inFile filePath: String?, atLine lineNumber: Int) {
        // The first test announces itself by failing: follow it until it finishes.
        guard !sawTestBoundary.withLock({ $0 }) else { return }
        current.withLock { current in
            if current == nil { current = testCase }
        }
    }

    /// The running XCTest test as `swift test --filter` selects it (`Class/testMethod`), if known.
    static var runningTestFilter: String? {
        guard let name = shared.current.withLock({ $0?.name }) else { return nil }
        // "-[Class testMethod]" on Apple platforms, "Class.testMethod" elsewhere.
        let parts = name.trimmingCharacters(in: CharacterSet(charactersIn: "-[]")).split(whereSeparator: { $0 == " " || $0 == "." })
        return parts.count == 2 ? "\(parts[0])/\(parts[1])" : nil
    }

    /// Whether a test case is known to be running now.
    static var hasRunningTestCase: Bool {
        guard let testCase = shared.current.withLock({ $0 }), let run = testCase.testRun else { return false }
        return run.startDate != nil && run.stopDate == nil
    }

    /// Records `message` on the running XCTest test case, if one is known; never falls back.
    static func recordOnRunningTestCase(_ message: String, at location: SourceLocation) -> Bool {
        // XCTest `fatalError`s on a failure recorded for a run that has stopped, and a run stops
        // just before observers hear that the test finished: check the run itself.
        guard let testCase = shared.current.withLock({ $0 }), let run = testCase.testRun,
            run.startDate != nil, run.stopDate == nil
        else { return false }
        testCase.recordFailure(withDescription: message, inFile: location.filePath, atLine: location.line, expected: true)
        return true
    }

    /// Records a `.failTest` miss on the running test case, including the first test of the
    /// process, which the observer did not see start. - Returns: whether a test case took it.
    static func recordMiss(_ message: String, at location: SourceLocation) -> Bool {
        if recordOnRunningTestCase(message, at: location) { return true }
        // Once a test was seen to start or finish, `current` is exact: no test runs now.
        guard !shared.sawTestBoundary.withLock({ $0 }) else { return false }
        return failInUnannouncedTest(message, at: location)
    }

    /// - Returns: whether an XCTest test case took the failure for certain.
    static func recordFailure(_ message: String, at location: SourceLocation) -> Bool {
        if let testCase = shared.current.withLock({ $0 }) {
            testCase.recordFailure(withDescription: message, inFile: location.filePath, atLine: location.line, expected: true)
            return true
        }
        return failInUnannouncedTest(message, at: location)
    }

    /// `XCTFail` at the user's location: XCTest records it on its running test case (and does
    /// nothing when none runs). - Returns: whether the observer saw a test case take it.
    private static func failInUnannouncedTest(_ message: String, at location: SourceLocation) -> Bool {
        if let file = StaticFilePath.make(location.filePath) {
            XCTFail(message, file: file, line: UInt(max(location.line, 0)))
        } else {
            XCTFail("\(location.fileID):\(location.line): \(message)")
        }
        return shared.current.withLock { $0 != nil }
    }
}

/// A `StaticString` for a file path known only at run time, so `XCTFail` can report at the
/// user's `#filePath` rather than at HTTPMock's own source.
///
/// `StaticString` is a frozen struct (its layout is part of the standard library's ABI): a
/// start address, a UTF-8 length and flags (bit 0 clear: the address points at the text; bit 1
/// set: the text is ASCII). The layout is checked against a real literal before use; if it
/// ever differs, `make` returns `nil` and the caller names the location in the message instead.
/// Each distinct path's bytes are kept for the life of the process (a test suite has few files).
enum StaticFilePath {
    private typealias Layout = (address: UInt, count: UInt, flags: UInt8)
    private static let made = Locked<[String: StaticString]>([:])

    /// Whether `StaticString` has the layout described above, checked on a literal.
    private static let layoutHolds: Bool = {
        guard MemoryLayout<StaticString>.size == MemoryLayout<Layout>.size else { return false }
        let literal: StaticString = "HTTPMock"
        let layout = unsafeBitCast(literal, to: Layout.self)
        return layout.count == 8 && layout.flags == 0b10 && layout.address == UInt(bitPattern: literal.utf8Start)
    }()

    static func make(_ path: String) -> StaticString? {
        guard layoutHolds else { return nil }
        return made.withLock { made in
            if let existing = made[path] { return existing }
            let bytes = Array(path.utf8)
            let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count + 1)
            storage.initialize(from: bytes, count: bytes.count)
            storage[bytes.count] = 0
            let isASCII = bytes.allSatisfy { $0 < 0x80 }
            let layout: Layout = (UInt(bitPattern: storage), UInt(bytes.count), isASCII ? 0b10 : 0)
            let string = unsafeBitCast(layout, to: StaticString.self)
            guard string.utf8CodeUnitCount == bytes.count, string.hasPointerRepresentation else { return nil }
            made[path] = string
            return string
        }
    }
}
#endif

import Foundation
import HTTPMock
import Testing

#if canImport(XCTest)
import XCTest
#endif

// SPEC §11.9: `.failTest` fails the running test without the trait, `verify()` or
// `withHTTPMock`, even when the client swallows the error, in a test run alone (the first and
// only test of its process). Each case runs in a child process, and the child must FAIL: the
// parent reads where its failure was reported and how often the miss was printed.

@Suite("A policy named for failing fails (.failTest)", .serialized)
struct FailTestPolicyTests {
    /// What the scenarios print so the parent knows where the failure must be reported.
    static let locationMarker = "HTTPMOCK-EXPECTED-LOCATION "

    private func expectChildFails(
        _ scenario: String, testingLibrary: String = "swift-testing", filter: String = "ChildScenarioHost",
        reportedAt expectedLocation: ((_ filePath: String, _ line: String) -> String)? = nil, printedOnce: Bool = false,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws {
        let outcome = try await ChildProcess.run(scenario, testingLibrary: testingLibrary, filter: filter, timeout: 60)
        #expect(!outcome.timedOut && outcome.exitedNormally && outcome.status != 0, "\(outcome)", sourceLocation: sourceLocation)
        let miss = "No mock for GET https://example.com/swallowed"
        #expect(outcome.output.contains(miss), "\(outcome)", sourceLocation: sourceLocation)
        if printedOnce {
            #expect(outcome.output.components(separatedBy: miss).count == 2, "printed once: \(outcome)", sourceLocation: sourceLocation)
        }
        if let expectedLocation {
            let marked = outcome.output.components(separatedBy: "\n").first { $0.hasPrefix(Self.locationMarker) }
            let location = try #require(marked.map { String($0.dropFirst(Self.locationMarker.count)) }, "\(outcome)")
            let filePath = String(location[..<(location.lastIndex(of: ":") ?? location.endIndex)])
            let line = String(location[location.index(after: location.lastIndex(of: ":") ?? location.startIndex)...])
            let expected = expectedLocation(filePath, line)
            #expect(outcome.output.contains(expected), "reported at \(expected): \(outcome)", sourceLocation: sourceLocation)
        }
    }

    @Test(
        "Swift Testing: a miss the client swallows (try?) fails the test at the instance's line, printed once; no trait or verify()",
        .enabled(if: ChildProcess.isAvailable))
    func swiftTestingSwallowed() async throws {
        try await expectChildFails(
            "failTestSwallowed", reportedAt: { filePath, line in "\(URL(fileURLWithPath: filePath).lastPathComponent):\(line):" },
            printedOnce: true)
    }

    @Test(
        "Swift Testing: a miss made where no test runs is reported when its instance is deinitialised",
        .enabled(if: ChildProcess.isAvailable))
    func swiftTestingReportedAtDeinit() async throws {
        try await expectChildFails("failTestReportedAtDeinit")
    }

    @Test(
        "Swift Testing: a miss made where no test runs is reported when a test next touches the instance",
        .enabled(if: ChildProcess.isAvailable))
    func swiftTestingReportedInNextTest() async throws {
        try await expectChildFails("failTestReportedInNextTest")
    }

    #if canImport(XCTest)
    @Test(
        "XCTest: the first (and only) test of a process fails on a swallowed miss, at the test's line, printed once",
        .enabled(if: ChildProcess.isAvailable))
    func xcTestFirstTestSwallowed() async throws {
        try await expectChildFails(
            "failTestSwallowed", testingLibrary: "xctest", filter: "HTTPMockTests.FailTestXCTestChild/testSwallowedMissFailsTheFirstTest",
            reportedAt: { filePath, line in "\(filePath):\(line): error:" }, printedOnce: true)
    }

    @Test(
        "XCTest: a miss made in class setUp (no test running) fails the next test that touches the instance",
        .enabled(if: ChildProcess.isAvailable))
    func xcTestMissBeforeTheTest() async throws {
        try await expectChildFails(
            "failTestInClassSetUp", testingLibrary: "xctest", filter: "HTTPMockTests.FailTestXCTestSetUpChild")
    }

    @Test(
        "XCTest: a registration mistake in the first test of a process is reported at the test's line, not in HTTPMock's source",
        .enabled(if: ChildProcess.isAvailable))
    func xcTestFirstTestRegistrationMistake() async throws {
        let outcome = try await ChildProcess.run(
            "firstXCTestRegistrationMistake", testingLibrary: "xctest",
            filter: "HTTPMockTests.FailTestXCTestChild/testRegistrationMistakeInTheFirstTest", timeout: 60)
        #expect(!outcome.timedOut && outcome.exitedNormally && outcome.status != 0, "\(outcome)")
        let marked = outcome.output.components(separatedBy: "\n").first { $0.hasPrefix(Self.locationMarker) }
        let location = try #require(marked.map { String($0.dropFirst(Self.locationMarker.count)) }, "\(outcome)")
        #expect(outcome.output.contains("\(location): error:"), "\(outcome)")
        #expect(outcome.output.contains("no file at /missing/user.json"), "\(outcome)")
        #expect(!outcome.output.contains("Sources/HTTPMock/"), "no failure points into HTTPMock's source: \(outcome)")
    }
    #endif

    @Test(
        "a miss inside withHTTPMock (the default policy and logger) is printed once: by the failure, not first by the log",
        .enabled(if: ChildProcess.isAvailable))
    func scopedMissPrintedOnce() async throws {
        try await expectChildFails("scopedMissPrintedOnce", printedOnce: true)
    }

    @Test("the control: the same scenario under .notFound passes", .enabled(if: ChildProcess.isAvailable))
    func control() async throws {
        let outcome = try await ChildProcess.run("failTestControl", timeout: 60)
        #expect(outcome.passed, "\(outcome)")
    }
}

extension ChildScenarios {
    static func failTestSwallowed() async throws {
        let line = #line + 1
        let mock = HTTPMock()
        print(FailTestPolicyTests.locationMarker + "\(#filePath):\(line)")
        mock.unmockedPolicy = .failTest  // the default logHandler stays: the miss must be printed once
        _ = try? await mock.urlSession.reply("https://example.com/swallowed")
    }

    static func scopedMissPrintedOnce() async throws {
        try await withHTTPMock { mock in
            _ = try await mock.urlSession.reply("https://example.com/swallowed")  // 404, reported when the scope ends
        }
    }

    static func failTestControl() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        _ = try? await mock.urlSession.reply("https://example.com/swallowed")
    }

    /// An instance whose policy, session and request were all used off the test's task: no
    /// test context was ever seen when the miss happened.
    private static func missedOffTest() async -> Box<HTTPMock?> {
        let holder = Box<HTTPMock?>(nil)
        await Task.detached {
            let mock = HTTPMock()
            mock.logHandler = nil
            mock.unmockedPolicy = .failTest
            _ = try? await mock.urlSession.reply("https://example.com/swallowed")
            holder.value = mock
        }.value
        return holder
    }

    static func failTestReportedAtDeinit() async throws {
        let holder = await missedOffTest()
        weak let released = holder.value
        holder.value = nil  // deinitialised on the test's task: the miss is reported here
        #expect(released == nil, "the instance must be deinitialised here")
    }

    static func failTestReportedInNextTest() async throws {
        let holder = await missedOffTest()
        _ = holder.value?.urlSession  // the test touches the instance: the miss is reported here
        // Kept alive past the test: only the report above can fail it.
        ChildScenarios.keptAlive.value = holder.value
    }

    static let keptAlive = Box<HTTPMock?>(nil)

    static func firstXCTestRegistrationMistake() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        let line = #line + 1
        mock.addResponses(forPath: "/user", responses: [.file(url: URL(fileURLWithPath: "/missing/user.json"))])
        print(FailTestPolicyTests.locationMarker + "\(#filePath):\(line)")
    }
}

#if canImport(XCTest)
/// Runs only in a child started by ``FailTestPolicyTests`` (a no-op otherwise).
final class FailTestXCTestChild: XCTestCase {
    func testSwallowedMissFailsTheFirstTest() async throws {
        guard ProcessInfo.processInfo.environment[ChildProcess.environmentKey] == "failTestSwallowed" else { return }
        try await ChildScenarios.failTestSwallowed()
    }

    func testRegistrationMistakeInTheFirstTest() async throws {
        guard ProcessInfo.processInfo.environment[ChildProcess.environmentKey] == "firstXCTestRegistrationMistake" else { return }
        try await ChildScenarios.firstXCTestRegistrationMistake()
    }
}

/// Runs only in a child started by ``FailTestPolicyTests``: its class `setUp` makes a miss
/// while no test runs; the test then touches the instance.
final class FailTestXCTestSetUpChild: XCTestCase {
    nonisolated(unsafe) private static var mock: HTTPMock?

    override class func setUp() {
        super.setUp()
        guard ProcessInfo.processInfo.environment[ChildProcess.environmentKey] == "failTestInClassSetUp" else { return }
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.unmockedPolicy = .failTest
        let done = DispatchSemaphore(value: 0)
        let task = mock.urlSession.dataTask(with: URLRequest(url: URL(string: "https://example.com/swallowed")!)) { _, _, _ in
            done.signal()
        }
        task.resume()
        _ = done.wait(timeout: .now() + 30)
        Self.mock = mock
    }

    func testTouchesTheInstance() {
        _ = Self.mock?.urlSession
    }
}
#endif

import Foundation
import HTTPMockTestSupport
import Testing

/// Runs one scenario of ``ChildScenarios`` in a fresh copy of this test process, for what must
/// not take the test run down with it: a regression that crashes (FoundationNetworking's
/// `fatalError`s), deadlocks or hangs the work queue every session shares, and what needs a
/// process whose first `URLSession` is still to be made (`interceptSharedSession()`).
///
/// The child is this very test binary, run with `--filter ChildScenarioHost` and the scenario's
/// name in ``environmentKey``; its exit status says whether every expectation held.
enum ChildProcess {
    static let environmentKey = "HTTPMOCK_CHILD_SCENARIO"

    typealias Outcome = ChildTestProcess.Outcome

    /// Whether children can be started (``ChildTestProcess/isAvailable``).
    static var isAvailable: Bool { ChildTestProcess.isAvailable }

    /// Runs `scenario` in a child and waits at most `timeout` seconds for it.
    /// `testingLibrary` and `filter` choose another test to run in the child (an XCTest case).
    static func run(
        _ scenario: String, testingLibrary: String = "swift-testing", filter: String = "ChildScenarioHost", timeout: TimeInterval = 60
    ) async throws -> Outcome {
        try await ChildTestProcess.run(
            filter: filter, testingLibrary: testingLibrary, environment: [environmentKey: scenario], timeout: timeout)
    }
}

/// A mutable value shared between threads; every access holds `lock`.
final class Box<Value>: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// The test a child runs: the scenario named in its environment, nothing in a normal run.
@Suite("Child scenario host")
struct ChildScenarioHost {
    @Test("runs the scenario a parent test started this process for (no-op otherwise)")
    func run() async throws {
        guard let name = ProcessInfo.processInfo.environment[ChildProcess.environmentKey] else { return }
        guard let scenario = ChildScenarios.all[name] else {
            Issue.record("no child scenario named \(name)")
            return
        }
        try await scenario()
    }
}

import Foundation
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

    /// Whether children can be started: the running binary is found through `/proc/self/exe`.
    static var isAvailable: Bool {
        #if os(Linux)
        FileManager.default.fileExists(atPath: "/proc/self/exe")
        #else
        false
        #endif
    }

    struct Outcome: CustomStringConvertible {
        var status: Int32
        var exitedNormally: Bool
        var timedOut: Bool
        var output: String

        /// Exited with status 0 within its time, and its one test passed.
        var passed: Bool { !timedOut && exitedNormally && status == 0 && output.contains("passed") }

        var description: String {
            let how = timedOut ? "timed out (killed)" : exitedNormally ? "exited with status \(status)" : "killed by signal \(status)"
            return "child \(how); output:\n\(output.suffix(4000))"
        }
    }

    /// Runs `scenario` in a child and waits at most `timeout` seconds for it.
    /// `testingLibrary` and `filter` choose another test to run in the child (an XCTest case).
    static func run(
        _ scenario: String, testingLibrary: String = "swift-testing", filter: String = "ChildScenarioHost", timeout: TimeInterval = 60
    ) async throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        // XCTest takes its filter as a positional `Module.Class/method` argument.
        process.arguments =
            testingLibrary == "xctest"
            ? ["--testing-library", testingLibrary, filter] : ["--testing-library", testingLibrary, "--filter", filter]
        var environment = ProcessInfo.processInfo.environment
        environment[environmentKey] = scenario
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let output = Box<Data>(Data())
        let readDone = DispatchSemaphore(value: 0)
        try process.run()
        Thread.detachNewThread {
            output.value = (try? pipe.fileHandleForReading.readToEnd()) ?? Data()
            readDone.signal()
        }
        let finished = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(timeout)
                while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
                continuation.resume(returning: !process.isRunning)
            }
        }
        if !finished {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        _ = readDone.wait(timeout: .now() + 5)
        return Outcome(
            status: process.terminationStatus, exitedNormally: process.terminationReason == .exit,
            timedOut: !finished, output: String(decoding: output.value, as: UTF8.self))
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

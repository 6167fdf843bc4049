import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs one test of this very test binary in a child process, for what must not take the test
/// run down with it when it regresses (a trap, a deadlock, a hang), and what needs a fresh
/// process. The parent names the test by `filter` and tells the child what to do through
/// `environment`; the child's exit status says whether every expectation held.
///
/// Shared by the test targets (`HTTPMockTests`' `ChildProcess`, `HTTPMockServerTests`'
/// `ServerChildProcess`); tests only.
package enum ChildTestProcess {
    /// Whether children can be started: the running binary is found through `/proc/self/exe`.
    package static var isAvailable: Bool {
        #if os(Linux)
        FileManager.default.fileExists(atPath: "/proc/self/exe")
        #else
        false
        #endif
    }

    /// How a child ended, and what it printed.
    package struct Outcome: CustomStringConvertible, Sendable {
        package var status: Int32
        package var exitedNormally: Bool
        package var timedOut: Bool
        package var output: String

        /// Exited with status 0 within its time, and its one test passed.
        package var passed: Bool { !timedOut && exitedNormally && status == 0 && output.contains("passed") }

        package var description: String {
            let how = timedOut ? "timed out (killed)" : exitedNormally ? "exited with status \(status)" : "killed by signal \(status)"
            return "child \(how); output:\n\(output.suffix(4000))"
        }
    }

    /// Runs the test `filter` of `testingLibrary` (`swift-testing` or `xctest`, whose filter is
    /// a positional `Module.Class/method`) in a child with `environment` added to this
    /// process's, and waits at most `timeout` seconds for it (then kills it).
    package static func run(
        filter: String, testingLibrary: String = "swift-testing", environment: [String: String], timeout: TimeInterval
    ) async throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments =
            testingLibrary == "xctest"
            ? ["--testing-library", testingLibrary, filter] : ["--testing-library", testingLibrary, "--filter", filter]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let output = OutputBox()
        let readDone = DispatchSemaphore(value: 0)
        try process.run()
        Thread.detachNewThread {
            output.set((try? pipe.fileHandleForReading.readToEnd()) ?? Data())
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
            timedOut: !finished, output: String(decoding: output.get(), as: UTF8.self))
    }
}

/// The child's output, written by the reading thread and read once it is done.
private final class OutputBox: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var data = Data()
    func set(_ value: Data) { lock.withLock { data = value } }
    func get() -> Data { lock.withLock { data } }
}

#if Server
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs one of ``ServerChildScenarios`` in a fresh copy of this test process, for what must not
/// take the test run down with it when it regresses: a server that traps (a conversion of a
/// huge time, an overflow, a NIO assertion) kills only the child, and the parent reports it.
///
/// The child is this very test binary, run with `--filter ServerChildScenarioHost` and the
/// scenario's name in ``environmentKey``; its exit status says whether every expectation held.
/// As `Tests/HTTPMockTests/Support/ChildProcess.swift`, for this target.
enum ServerChildProcess {
    static let environmentKey = "HTTPMOCK_SERVER_CHILD_SCENARIO"

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
    static func run(_ scenario: String, timeout: TimeInterval = 60) async throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--testing-library", "swift-testing", "--filter", "ServerChildScenarioHost"]
        var environment = ProcessInfo.processInfo.environment
        environment[environmentKey] = scenario
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let output = ServerChildOutput()
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
private final class ServerChildOutput: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var data = Data()
    func set(_ value: Data) { lock.withLock { data = value } }
    func get() -> Data { lock.withLock { data } }
}

/// The test a child runs: the scenario named in its environment, nothing in a normal run.
@Suite("Server child scenario host")
struct ServerChildScenarioHost {
    @Test("runs the server scenario a parent test started this process for (no-op otherwise)")
    func run() async throws {
        guard let name = ProcessInfo.processInfo.environment[ServerChildProcess.environmentKey] else { return }
        guard let scenario = ServerChildScenarios.all[name] ?? VoodooChildScenarios.all[name] else {
            Issue.record("no server child scenario named \(name)")
            return
        }
        try await scenario()
    }
}

/// Whether this process runs under ThreadSanitizer (`swift test --sanitize=thread`); the CLI
/// the suite spawns is then built with it too.
let isThreadSanitized = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
#endif

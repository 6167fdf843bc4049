#if Server
import Foundation
import HTTPMockTestSupport
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
/// As `Tests/HTTPMockTests/Support/ChildProcess.swift`, for this target; both run children with
/// `Tests/TestSupport/ChildTestProcess.swift`.
enum ServerChildProcess {
    static let environmentKey = "HTTPMOCK_SERVER_CHILD_SCENARIO"

    typealias Outcome = ChildTestProcess.Outcome

    /// Whether children can be started (``ChildTestProcess/isAvailable``).
    static var isAvailable: Bool { ChildTestProcess.isAvailable }

    /// Runs `scenario` in a child and waits at most `timeout` seconds for it.
    static func run(_ scenario: String, timeout: TimeInterval = 60) async throws -> Outcome {
        try await ChildTestProcess.run(filter: "ServerChildScenarioHost", environment: [environmentKey: scenario], timeout: timeout)
    }
}

/// The test a child runs: the scenario named in its environment, nothing in a normal run.
@Suite("Server child scenario host")
struct ServerChildScenarioHost {
    @Test("runs the server scenario a parent test started this process for (no-op otherwise)")
    func run() async throws {
        guard let name = ProcessInfo.processInfo.environment[ServerChildProcess.environmentKey] else { return }
        guard let scenario = ServerChildScenarios.all[name] ?? VoodooChildScenarios.all[name] ?? ServerLoggerTests.childScenarios[name]
        else {
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

import Foundation

#if canImport(Testing)
import Testing
#endif

// A `.failTest` miss fails the running test even when nobody calls `verify()`.
// Swift Testing attributes an issue through task-local values (`Test.current`, a
// `withKnownIssue` scope), and URL loading calls the protocol on a thread that has none. A task
// started from the test's own task inherits them, so an issue it records belongs to the test.
// The inbox is such a task, started when the test's code touches the instance with the policy
// set (setting the policy, taking `urlSession`, registering); a miss is handed to it and the
// request waits, off the work queue, until it is recorded.

/// A task in the running Swift Testing test's context that records the misses handed to it.
final class MissInbox: Sendable {
    struct Letter: Sendable {
        let message: String
        let location: SourceLocation
        let recorded: DispatchSemaphore
    }

    private let letters: AsyncStream<Letter>.Continuation

    private init(letters: AsyncStream<Letter>.Continuation) {
        self.letters = letters
    }

    deinit { letters.finish() }

    /// An inbox in the context of the Swift Testing test running on the current task, or `nil`
    /// when none runs here.
    static func inRunningTest() -> MissInbox? {
        #if canImport(Testing)
        guard Test.current != nil else { return nil }
        let (stream, continuation) = AsyncStream.makeStream(of: Letter.self)
        // Unstructured, so it inherits this task's task-local values; it ends when the inbox
        // is replaced or its instance goes away (the stream finishes). It runs on its own
        // thread: the cooperative pool may be busy (tests that block it), and the request
        // waits until its miss is recorded.
        Task(executorPreference: InboxExecutor.shared) {
            for await letter in stream {
                Reporter.fail(letter.message, at: letter.location)
                letter.recorded.signal()
            }
        }
        return MissInbox(letters: continuation)
        #else
        return nil
        #endif
    }

    /// Hands `message` to the test's task and waits (30 s at most) until it is
    /// recorded. Called on the instance's log queue, never on URL loading's work queue (which
    /// every session shares); the recording task runs on ``InboxExecutor``'s queue, so a busy
    /// cooperative pool does not hold it up.
    /// - Returns: whether it was.
    func deliver(_ message: String, at location: SourceLocation) -> Bool {
        let recorded = DispatchSemaphore(value: 0)
        guard case .enqueued = letters.yield(Letter(message: message, location: location, recorded: recorded)) else { return false }
        return recorded.wait(timeout: .now() + 30) == .success
    }
}

/// Runs the inboxes' tasks on one serial dispatch queue instead of the cooperative pool.
final class InboxExecutor: TaskExecutor {
    static let shared = InboxExecutor()
    private let queue = DispatchQueue(label: "HTTPMock.missInbox")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

extension Registry {
    /// Starts a ``MissInbox`` in the running Swift Testing test, if one runs on this task and
    /// the policy is `.failTest`. Called where a test's own code touches the instance.
    /// Misses made while no test could take them are reported here, in the test that touches
    /// the instance next.
    func followRunningTest() {
        guard case .failTest = settings.unmockedPolicy.kind else { return }
        if let inbox = MissInbox.inRunningTest() {
            // The replaced inbox is released outside the lock.
            let replaced = missInbox.withLock { current -> MissInbox? in
                defer { current = inbox }
                return current
            }
            _ = replaced
        } else {
            // An XCTest test case takes failures from any thread; none runs: keep them.
            guard Reporter.xcTestCaseIsRunning else { return }
        }
        for miss in takeUnreportedMisses() {
            Reporter.fail(
                Self.message(for: miss) + "\n(unmockedPolicy is .failTest; the request was made while no test was running)",
                at: creationLocation)
        }
    }

    /// Reports the `.failTest` misses nobody reported yet, when the instance goes away.
    func reportUnreportedMisses() {
        missInbox.withLock { $0 = nil }
        let misses = takeUnreportedMisses()
        for miss in misses {
            Reporter.fail(
                Self.message(for: miss) + "\n(unmockedPolicy is .failTest; reported when the HTTPMock instance was deinitialised)",
                at: creationLocation)
        }
    }

    private static func message(for miss: RecordedRequest) -> String {
        miss.nearMissReport ?? "No mock for \(miss.request.method) \(miss.request.url.absoluteString)"
    }
}

import Foundation

/// Threads of HTTPMock's own for work that may take long (matching a large body, a user
/// predicate, a backtracking expression, a near-miss report), so that it never holds a thread
/// of Swift's cooperative pool: on Linux that pool is Dispatch's global pool itself
/// (<doc:LinuxNotes>), and a concurrent `DispatchQueue` runs there, so two slow matches on one
/// stalled every other body-matched route, every miss and the admin API (issue 43).
///
/// A job runs on an idle thread, else on a new one while fewer than ``limit`` exist, else it
/// waits for the first thread to come free. Threads that have been idle for a while end, so an
/// idle server keeps none. With more threads than cores, a slow job shares the cores with the
/// others instead of making them queue behind it.
package final class WorkerThreads: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var threads = 0
        var idle = 0
    }

    private let state = Locked(State())
    private let wake = NSCondition()
    /// The most threads at once.
    package let limit: Int
    /// How long an idle thread waits for a job before it ends.
    private let linger: TimeInterval

    package init(limit: Int, linger: TimeInterval = 10) {
        self.limit = max(1, limit)
        self.linger = linger
    }

    /// The pool the server's matching runs on: 32 threads at most.
    package static let matching = WorkerThreads(limit: 32)

    /// Runs `job` on one of the pool's threads.
    package func run(_ job: @escaping @Sendable () -> Void) {
        wake.lock()
        let spawn = state.withLock { state -> Bool in
            state.jobs.append(job)
            // More jobs waiting than idle threads to take them: one more thread, so that a job
            // never waits behind a slow one while the pool may grow.
            guard state.jobs.count - state.head > state.idle, state.threads < limit else { return false }
            state.threads += 1
            return true
        }
        wake.signal()
        wake.unlock()
        if spawn {
            let thread = Thread { [self] in work() }
            thread.name = "HTTPMock.matching"
            thread.start()
        }
    }

    /// The number of threads alive now (for tests).
    package var threadCount: Int { state.withLock { $0.threads } }

    private func next() -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard state.head < state.jobs.count else { return nil }
            let job = state.jobs[state.head]
            state.head += 1
            if state.head > 64, state.head * 2 > state.jobs.count {
                state.jobs.removeFirst(state.head)
                state.head = 0
            }
            return job
        }
    }

    private func work() {
        while true {
            if let job = next() {
                job()
                continue
            }
            wake.lock()
            var job = next()
            if job == nil {
                state.withLock { $0.idle += 1 }
                let deadline = Date(timeIntervalSinceNow: linger)
                while job == nil {
                    job = next()
                    if job != nil { break }
                    if !wake.wait(until: deadline) {
                        job = next()
                        break
                    }
                }
                state.withLock { $0.idle -= 1 }
            }
            if job == nil {
                state.withLock { $0.threads -= 1 }
                wake.unlock()
                return
            }
            wake.unlock()
            job?()
        }
    }
}

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
final class WorkerThreads: @unchecked Sendable {
    // @unchecked: every stored `var` is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    /// The first job not yet taken.
    private var head = 0
    private var threads = 0
    private var idle = 0
    /// The most threads at once.
    let limit: Int
    /// How long an idle thread waits for a job before it ends.
    private let linger: TimeInterval

    init(limit: Int, linger: TimeInterval = 10) {
        self.limit = max(1, limit)
        self.linger = linger
    }

    /// The pool the server's matching runs on: 32 threads at most.
    static let matching = WorkerThreads(limit: 32)

    /// Runs `job` on one of the pool's threads.
    package func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        // More jobs waiting than idle threads to take them: one more thread, so that a job
        // never waits behind a slow one while the pool may grow.
        let spawn = jobs.count - head > idle && threads < limit
        if spawn { threads += 1 }
        condition.signal()
        condition.unlock()
        guard spawn else { return }
        let thread = Thread { [self] in work() }
        thread.name = "HTTPMock.matching"
        thread.start()
    }

    /// The next job, taken; `nil` when none waits. Called with `condition` locked.
    private func take() -> (@Sendable () -> Void)? {
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        head += 1
        if head > 64, head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }

    private func work() {
        condition.lock()
        while true {
            if let job = take() {
                condition.unlock()
                job()
                condition.lock()
                continue
            }
            idle += 1
            let woken = condition.wait(until: Date(timeIntervalSinceNow: linger))
            idle -= 1
            if !woken, head == jobs.count {
                threads -= 1
                condition.unlock()
                return
            }
        }
    }
}

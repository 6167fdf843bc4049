import Foundation

/// Facts about the process the tests run in.
enum TestEnvironment {
    /// Whether this process runs under ThreadSanitizer (`swift test --sanitize=thread`).
    static let isThreadSanitized = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil

    /// How much slower than a plain debug build code runs here: ThreadSanitizer instruments every
    /// memory access (5–15× on the matching code). Cost bounds are multiplied by it, so they stay
    /// far below what an exponential regression takes and far above what a sanitized run needs.
    static let slowdown: Double = isThreadSanitized ? 15 : 1

    /// How long a test waits for something that happens at once on an idle machine (a request
    /// reaching the mock). Parallel suites share FoundationNetworking's one serial callback queue,
    /// so on a loaded machine an arrival can take seconds; the wait ends as soon as it happens, so
    /// a generous bound costs a passing test nothing.
    static let arrivalTimeout: TimeInterval = 30

    /// CPU time the calling thread spends in `body`. A cost bound on it holds on a busy machine:
    /// unlike wall-clock time, it does not grow while other processes hold the cores (SPEC §23).
    static func threadCPUTime<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
        let start = threadCPUNow()
        let result = try body()
        return (result, threadCPUNow() - start)
    }

    /// The calling thread's CPU clock.
    static func threadCPUNow() -> Duration {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }
}

/// Runs CPU-bound work (a budget burnt on purpose) on a thread of its own. On Swift's cooperative
/// pool (two threads on a two-core machine) a few seconds of it, slowed by a busy machine, starve
/// every other suite's tasks — in-process dynamic handlers then time out (SPEC §23).
func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
        Thread.detachNewThread { done.resume(with: Result { try body() }) }
    }
}

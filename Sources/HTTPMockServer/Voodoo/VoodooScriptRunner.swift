#if Server && JavaScript
import Foundation

#if canImport(CJavaScriptCore)
import CJavaScriptCore
#else
import JavaScriptCore
#endif

/// Runs the scripts of one Voodoo configuration: one JavaScriptCore virtual machine (a context
/// group) and one thread, so scripts never run on the event loop, never two at once (a script's
/// `cache` is read and written back within its turn: racing scripts never lose an update), and
/// every run is watched:
/// - every ``tick`` of the script's CPU time the watchdog asks whether to stop it: its request
///   ended (the client left, or the request timed out: a request whose client has gone never
///   starts its script, and one running is cut at the next tick), it passed its deadline (the
///   instance timeout), the process grew by more than ``memoryLimit`` bytes while it ran, or it
///   has run ``preemptionTicks`` ticks while another script request waits — so one runaway
///   never holds up the other script endpoints, and N abandoned ones never queue N × timeout;
/// - a stopped run reports why, and the caller rebuilds its context and collects its garbage.
final class VoodooScriptRunner: @unchecked Sendable {
    // @unchecked: `waiting` and `running` are guarded by `lock`; `group` is used through
    // JavaScriptCore's API, which takes the machine's lock, and on `queue`.
    static let tick: TimeInterval = 0.01
    static let memoryLimit = 256 << 20
    static let preemptionTicks = 10

    let group: JSContextGroupRef
    private let queue = DispatchQueue(label: "HTTPMock.Voodoo.scripts")
    private let lock = NSLock()
    private var waiting: [Job] = []
    private var running: Job?

    /// One run: what to do when it starts (on the queue) or is dropped unstarted.
    final class Job: @unchecked Sendable {
        // @unchecked: `state` and `cancelled` are guarded by the runner's lock; `ticks`,
        // `startResident` and `stopReason` are used only on the runner's queue.
        enum State { case new, queued, running, done, cancelledEarly }
        let deadline: Date
        let timeout: TimeInterval
        var start: (Job) -> Void = { _ in }
        var skip: () -> Void = {}
        var state = State.new
        var cancelled = false
        var ticks = 0
        var startResident: Int?
        /// Why the watchdog stopped the run, if it did.
        var stopReason: String?

        /// A run may take `timeout` × ``deadlineShare``: it is stopped, and its request answered
        /// 500 naming the limit, before the request itself times out.
        static let deadlineShare = 0.8

        init(timeout: TimeInterval) {
            self.timeout = min(max(timeout, 0.001), 1e9) * Self.deadlineShare
            deadline = Date(timeIntervalSinceNow: self.timeout)
        }
    }

    /// A runner, or `nil` when JavaScriptCore cannot be loaded (``VoodooJavaScriptCore/loadProblem``).
    init?() {
        guard VoodooJavaScriptCore.loadProblem == nil else { return nil }
        group = JSContextGroupCreate()
    }

    deinit { JSContextGroupRelease(group) }

    /// Runs `body` on the runner's thread within `timeout`; `ifCancelled` when the calling task
    /// is cancelled before it starts (its request ended: no script runs for it).
    func run<Value: Sendable>(
        timeout: TimeInterval, ifCancelled: Value, _ body: @escaping @Sendable (Job) -> Value
    ) async -> Value {
        let job = Job(timeout: timeout)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                job.start = { job in continuation.resume(returning: body(job)) }
                job.skip = { continuation.resume(returning: ifCancelled) }
                enqueue(job)
            }
        } onCancel: {
            cancel(job)
        }
    }

    /// Runs `body` on the runner's thread within `timeout` and waits for it (loading);
    /// `fallback` only if `body` could not run.
    func runAndWait<Value: Sendable>(timeout: TimeInterval, fallback: Value, _ body: @escaping (Job) -> Value) -> Value {
        let job = Job(timeout: timeout)
        let done = DispatchSemaphore(value: 0)
        let result = VoodooBox<Value>()
        job.start = { job in
            result.value = body(job)
            done.signal()
        }
        enqueue(job)
        done.wait()
        // Set on the queue before `signal()`, read after `wait()`.
        return result.value ?? fallback
    }

    private func enqueue(_ job: Job) {
        let skipNow = lock.withLock { () -> Bool in
            if job.state == .cancelledEarly { return true }
            job.state = .queued
            waiting.append(job)
            return false
        }
        if skipNow {
            job.skip()
            return
        }
        queue.async { self.runNext() }
    }

    private func cancel(_ job: Job) {
        let skipNow = lock.withLock { () -> Bool in
            switch job.state {
            case .new:
                job.state = .cancelledEarly
            case .queued:
                waiting.removeAll { $0 === job }
                job.state = .done
                return true
            case .running:
                job.cancelled = true
            case .done, .cancelledEarly:
                break
            }
            return false
        }
        if skipNow { job.skip() }
    }

    private func runNext() {
        let next = lock.withLock { () -> Job? in
            guard !waiting.isEmpty else { return nil }
            let job = waiting.removeFirst()
            job.state = .running
            running = job
            return job
        }
        guard let job = next else { return }
        job.startResident = VoodooJavaScriptCore.residentBytes()
        arm()
        job.start(job)
        lock.withLock {
            running = nil
            job.state = .done
        }
    }

    /// Asks the watchdog to call ``shouldStop()`` after the next ``tick`` of CPU time.
    private func arm() {
        JSContextGroupSetExecutionTimeLimit(group, Self.tick, voodooWatchdog, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called by JavaScriptCore on the runner's thread while a script runs, every ``tick``.
    fileprivate func shouldStop() -> Bool {
        let (job, cancelled, othersWait) = lock.withLock { (running, running?.cancelled ?? false, !waiting.isEmpty) }
        guard let job else { return true }
        job.ticks += 1
        if cancelled {
            job.stopReason = "its request ended first (the client left or the request timed out), so the script was stopped"
        } else if Date() >= job.deadline {
            job.stopReason =
                "the script ran past its time limit (\(job.timeout) s, \(Int(Job.deadlineShare * 100)) % of the instance timeout) and was stopped"
        } else if let start = job.startResident, let now = VoodooJavaScriptCore.residentBytes(), now - start > Self.memoryLimit {
            job.stopReason =
                "the script was stopped: memory grew by more than \(Self.memoryLimit >> 20) MB while it ran (\((now - start) >> 20) MB)"
        } else if othersWait, job.ticks >= Self.preemptionTicks {
            job.stopReason =
                "the script was stopped after \(Int(Double(job.ticks) * Self.tick * 1000)) ms of CPU time because other script requests were waiting"
        }
        if job.stopReason != nil { return true }
        arm()
        return false
    }
}

/// The watchdog callback: `info` is the runner.
private func voodooWatchdog(_ context: JSContextRef?, _ info: UnsafeMutableRawPointer?) -> Bool {
    guard let info else { return true }
    return Unmanaged<VoodooScriptRunner>.fromOpaque(info).takeUnretainedValue().shouldStop()
}

/// A value handed from the runner's thread to a waiting one.
final class VoodooBox<Value>: @unchecked Sendable {
    // @unchecked: written before a semaphore is signalled, read after it is waited on.
    var value: Value?
}
#endif

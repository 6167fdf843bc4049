import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Exchange's timing: delays, timers and the request and resource timeouts.

extension Exchange {
    // MARK: - Timing

    /// Runs `body` on the work queue after `seconds` (at once when 0); never when `nil`.
    func after(_ seconds: TimeInterval?, _ body: @escaping @Sendable (Exchange) -> Void) {
        guard !isClosed else { return }
        guard let seconds else {
            armDeadlines()  // `.never`: only a timeout or a cancellation ends it
            return
        }
        guard seconds > 0 else {
            body(self)
            return
        }
        guard let workQueue else {
            fail(
                HTTPMockError(
                    .unsupportedTask,
                    "HTTPMock could not reach the task's work queue to delay the response; see Docs/HTTPMock.docc/LinuxNotes.md"
                ))
            return
        }
        armDeadlines()
        startTimer(
            after: seconds, on: workQueue,
            register: { state, timer in
                state.timers.append(timer)
                return true
            },
            fired: { exchange, timer in
                exchange.state.withLock { state in state.timers.removeAll { ($0 as AnyObject) === (timer as AnyObject) } }
                body(exchange)
            })
    }

    /// Makes a one-shot timer on `queue`, registers it with `register` under the state lock
    /// (refused once the exchange is closed), and starts it. A refused timer is started and
    /// cancelled at once: libdispatch traps when a source that was never activated is released.
    private func startTimer(
        after seconds: TimeInterval, on queue: DispatchQueue,
        register: (inout State, DispatchSourceTimer) -> Bool,
        fired: @escaping @Sendable (Exchange, DispatchSourceTimer) -> Void
    ) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + seconds)
        // The handler holds its timer; cancelling a source releases its handler, and every timer
        // is cancelled when it fires or when the exchange closes, so the cycle always breaks.
        timer.setEventHandler { [weak self] in
            timer.cancel()
            guard let self, !self.isClosed else { return }
            fired(self, timer)
        }
        let registered = state.withLock { state in !state.isClosed && register(&state, timer) }
        timer.resume()
        if !registered { timer.cancel() }
    }

    /// Emulates the timeouts FoundationNetworking never fires for a custom protocol: the
    /// request timeout (request's `timeoutInterval`, session's `timeoutIntervalForRequest`) as
    /// the longest wait for the next thing to reach the client, and the instance's `timeout`
    /// (and the session's `timeoutIntervalForResource`) for the whole request.
    func armDeadlines() {
        let alreadyArmed = state.withLock { state -> Bool in
            defer { state.deadlinesArmed = true }
            return state.deadlinesArmed || state.isClosed
        }
        guard !alreadyArmed, let workQueue else { return }
        let configuration = session?.configuration
        let total = [settings.timeout, configuration?.timeoutIntervalForResource].compactMap { $0 }.filter { $0 > 0 }.min()
        if let total {
            startTimer(
                after: total, on: workQueue,
                register: { state, timer in
                    state.timers.append(timer)
                    return true
                }, fired: { exchange, _ in exchange.timeOut(after: total, what: "HTTPMock's timeout") })
        }
        resetIdleTimer()
    }

    private var requestTimeout: TimeInterval? {
        [urlProtocol.request.timeoutInterval, session?.configuration.timeoutIntervalForRequest].compactMap { $0 }.filter { $0 > 0 }.min()
    }

    func resetIdleTimer() {
        guard let limit = requestTimeout, let workQueue else { return }
        var previous: DispatchSourceTimer?
        startTimer(
            after: limit, on: workQueue,
            register: { state, timer in
                guard state.deadlinesArmed else { return false }
                previous = state.idleTimer
                state.idleTimer = timer
                return true
            }, fired: { exchange, _ in exchange.timeOut(after: limit, what: "the request's timeout") })
        previous?.cancel()
    }

    /// Stops the request timeout until the next `resetIdleTimer()`.
    func pauseIdleTimer() {
        let paused = state.withLock { state -> DispatchSourceTimer? in
            defer { state.idleTimer = nil }
            return state.idleTimer
        }
        paused?.cancel()
    }

    private func timeOut(after seconds: TimeInterval, what: String) {
        guard !isClosed else { return }
        fail(
            URLError(
                .timedOut,
                userInfo: [
                    NSLocalizedDescriptionKey: "The request timed out: no answer within \(seconds) s (\(what)).",
                    NSURLErrorFailingURLErrorKey: urlProtocol.request.url ?? URL(fileURLWithPath: "/"),
                ]))
    }
}

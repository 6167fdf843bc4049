import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request's life inside HTTPMock: resolve, wait, follow redirects, compute, relay, deliver,
/// time out or be cancelled.
///
/// Everything that touches the `URLProtocolClient` runs on the task's serial work queue
/// (`startLoading` is called there; timers, dynamic handlers and passthrough answers hop back to
/// it), because FoundationNetworking crashes on client calls from other queues. The gate
/// (`State.isClosed`) guarantees nothing reaches the client after the request finished, failed,
/// timed out or was stopped: FoundationNetworking `fatalError`s on that too.
final class Exchange: @unchecked Sendable {
    // @unchecked: `state` is a `Locked`; the other stored properties are immutable, and the
    // protocol and client (not Sendable) are only used on the task's work queue.
    let urlProtocol: MockURLProtocol
    private let client: any URLProtocolClient
    let task: URLSessionTask?
    let registry: Registry
    let state = Locked(State())

    struct State {
        var isClosed = false
        /// Settings read with the first lookup; later hops use the same.
        var settings = SettingsSnapshot.placeholder
        var journalID = 0
        /// Whether the journal entry must be updated with what the client receives.
        var outcomePending = false
        var timers: [DispatchSourceTimer] = []
        var idleTimer: DispatchSourceTimer?
        var deadlinesArmed = false
        var file: FileHandle?
        /// The queue `file` is read on; it is closed there too, never under a read.
        var readQueue: DispatchQueue?
        var dynamicTask: Task<Void, Never>?
        var networkTask: URLSessionTask?
        /// Event-stream bytes kept for a task that must get its body in one `didLoad`.
        var bufferedEvents = Data()
        /// The gate this response waits at (`.held`), and its place there.
        var heldAt: (gate: ResponseGate, token: Int)?
        /// Resolved lazily by reflection, only when something is not delivered synchronously.
        var workQueue: DispatchQueue??
        var session: URLSession??
    }

    /// Maximum redirects followed before failing with `.httpTooManyRedirects`.
    static let maximumRedirects = 16

    init(urlProtocol: MockURLProtocol, client: any URLProtocolClient, task: URLSessionTask?, registry: Registry) {
        self.urlProtocol = urlProtocol
        self.client = client
        self.task = task
        self.registry = registry
    }

    // MARK: - Entry points (on the work queue)

    /// Serves the first lookup's resolution (``MockURLProtocol`` resolves before it knows
    /// whether the answer needs an exchange).
    func start(_ resolution: Resolution) {
        serve(resolution, hop: 0)
    }

    /// Serves `response` without a lookup or a journal entry (probes, stopped bridges).
    func serveUnrecorded(_ response: MockResponse, to request: MockRequest? = nil) {
        let request = request ?? RequestReader.mockRequest(from: urlProtocol.request, task: task)
        let settings = registry.settingsSnapshot
        state.withLock { $0.settings = settings }
        serve(response, to: request, hop: 0, inherited: nil)
    }

    /// `stopLoading`: the task was cancelled.
    func stop() {
        let wasOpen = state.withLock { !$0.isClosed }
        if wasOpen {
            recordOutcome(statusCode: nil, error: URLError(.cancelled))
        }
        close()
    }

    // MARK: - Resolution

    func resolveAndServe(_ request: MockRequest, hop: Int) {
        // Each redirect hop is a new request to the "server": its request timeout starts afresh
        // (the instance's `timeout` still bounds the whole chain).
        if hop > 0, state.withLock({ $0.deadlinesArmed }) { resetIdleTimer() }
        serve(registry.resolve(request), hop: hop)
    }

    private func serve(_ resolution: Resolution, hop: Int) {
        state.withLock { state in
            state.journalID = resolution.journalID
            if hop == 0 { state.settings = resolution.settings }
        }
        guard let (handler, event) = registry.report(resolution) else {
            serve(resolution.response, to: resolution.request, hop: hop, inherited: nil)
            return
        }
        // The log handler runs on the instance's own queue, never on the work queue (shared by
        // every session of the process); the request goes on once it returns, within its timeout.
        guard let workQueue else {
            registry.logQueue.async { handler.handle(event) }
            serve(resolution.response, to: resolution.request, hop: hop, inherited: nil)
            return
        }
        armDeadlines()
        registry.logQueue.async {
            handler.handle(event)
            workQueue.async {
                guard !self.isClosed else { return }
                self.serve(resolution.response, to: resolution.request, hop: hop, inherited: nil)
            }
        }
    }

    var settings: InstanceSettings { state.withLock { $0.settings }.value }

    /// Serves `response` by executing its plan (``ResponsePlan``). `inherited` is the delivery
    /// of a dynamic response whose handler produced this one.
    func serve(_ response: MockResponse, to request: MockRequest, hop: Int, inherited: Delivery?) {
        let defaultDelay = state.withLock { $0.settings.value.instantDelay }
        switch ResponsePlan.first(response, to: request, inherited: inherited, defaultDelay: defaultDelay) {
        case .refuse(let error):
            fail(error)
        case .runHandler(let handler, let delivery):
            runDynamic(handler, for: request, hop: hop, delivery: delivery)
        case .start(.now, .http(let http), let rate):
            // Most responses start now: no closure to allocate for that.
            respond(http, to: request, hop: hop, rate: rate)
        case .start(let start, let action, let rate):
            begin(start) { exchange in
                switch action {
                case .fail(let error): exchange.fail(error)
                case .passthrough: exchange.runPassthrough(request, rate: rate)
                case .http(let http): exchange.respond(http, to: request, hop: hop, rate: rate)
                case .fault(let fault, let head): exchange.deliverFault(fault, head: head, to: request)
                }
            }
        }
    }

    /// Runs `body` on the work queue when the response starts: after its delay, when its gate
    /// is released, or never.
    private func begin(_ start: ResponsePlan.Start, _ body: @escaping @Sendable (Exchange) -> Void) {
        let gate: ResponseGate
        switch start {
        case .now: return after(0, body)
        case .after(let seconds): return after(seconds, body)
        case .never: return after(nil, body)
        case .gate(let held): gate = held
        }
        guard !isClosed else { return }
        if gate.isReleased {
            body(self)
            return
        }
        guard let workQueue else {
            fail(
                HTTPMockError(
                    .unsupportedTask,
                    "HTTPMock could not reach the task's work queue to hold the response; see Docs/HTTPMock.docc/LinuxNotes.md")
            )
            return
        }
        armDeadlines()
        // The gate holds the exchange weakly: a gate that is never released must not keep the
        // protocol, its client and its task alive; `close()` also takes it off the gate.
        let weakSelf = WeakExchange(self)
        let token = gate.whenReleased {
            workQueue.async {
                guard let exchange = weakSelf.value, !exchange.isClosed else { return }  // timed out or cancelled
                exchange.state.withLock { $0.heldAt = nil }
                body(exchange)
            }
        }
        guard let token else { return }
        let closed = state.withLock { state -> Bool in
            if !state.isClosed { state.heldAt = (gate, token) }
            return state.isClosed
        }
        if closed { gate.cancelWaiting(token) }
    }

    // MARK: - Client access and the gate

    var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Calls `body` with the client unless the exchange is closed; restarts the idle timeout.
    /// Runs on the work queue, where `stopLoading` also runs, so the check and the call cannot
    /// interleave with a cancellation.
    @discardableResult
    func send(_ body: (any URLProtocolClient, URLProtocol) -> Void) -> Bool {
        let (closed, armed) = state.withLock { ($0.isClosed, $0.deadlinesArmed) }
        guard !closed else { return false }
        body(client, urlProtocol)
        if armed { resetIdleTimer() }
        return true
    }

    func fail(_ error: any Error) {
        recordOutcome(statusCode: nil, error: error)
        send { client, urlProtocol in client.urlProtocol(urlProtocol, didFailWithError: error) }
        close()
    }

    private func recordOutcome(statusCode: Int?, error: (any Error)?) {
        let id = state.withLock { $0.journalID }
        registry.recordOutcome(journalID: id, statusCode: statusCode, error: error)
    }

    /// Keeps on the journal entry the response the client receives and, if still pending, its
    /// status: one critical section of the exchange's lock and one of the registry's.
    func recordServed(_ served: ServedResponse) {
        let (id, pending) = state.withLock { state -> (Int, Bool) in
            defer { state.outcomePending = false }
            return (state.journalID, state.outcomePending)
        }
        ResponsePlan.journal(served, journalID: id, outcomePending: pending, in: registry)
    }

    /// Closes the gate: nothing reaches the client after this; timers, handlers, network
    /// requests and files are released.
    func close() {
        var released: Released?
        let wasOpen = state.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            state.isClosed = true
            // An instant response holds nothing to release: no copy out of the lock.
            if state.timers.isEmpty, state.idleTimer == nil, state.file == nil, state.dynamicTask == nil,
                state.networkTask == nil, state.heldAt == nil
            {
                return true
            }
            released = Released(
                timers: state.timers, idleTimer: state.idleTimer, file: state.file, readQueue: state.readQueue,
                dynamicTask: state.dynamicTask, networkTask: state.networkTask, heldAt: state.heldAt)
            state.timers = []
            state.idleTimer = nil
            state.file = nil
            state.dynamicTask = nil
            state.networkTask = nil
            state.heldAt = nil
            return true
        }
        guard wasOpen else { return }
        defer { urlProtocol.exchangeDidClose() }
        guard let released else { return }
        if let (gate, token) = released.heldAt { gate.cancelWaiting(token) }
        for timer in released.timers { timer.cancel() }
        released.idleTimer?.cancel()
        released.dynamicTask?.cancel()
        if let networkTask = released.networkTask {
            DispatchQueue.global().async { networkTask.cancel() }  // not on the work queue, see runPassthrough
        }
        if let file = released.file {
            if let readQueue = released.readQueue {
                readQueue.async { try? file.close() }
            } else {
                try? file.close()
            }
        }
    }

    /// What `close()` takes out of the state to release outside the lock.
    private struct Released {
        var timers: [DispatchSourceTimer]
        var idleTimer: DispatchSourceTimer?
        var file: FileHandle?
        var readQueue: DispatchQueue?
        var dynamicTask: Task<Void, Never>?
        var networkTask: URLSessionTask?
        var heldAt: (gate: ResponseGate, token: Int)?
    }
}

/// Carries a non-Sendable value through a `@Sendable` closure between the delegate queue and
/// the task's work queue. `@unchecked`: the value is only used on one queue at a time.
struct Carried<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A weak reference to an exchange that a `@Sendable` closure can carry.
final class WeakExchange: @unchecked Sendable {
    // @unchecked: a weak reference is read and cleared atomically by the Swift runtime.
    weak var value: Exchange?
    init(_ value: Exchange) { self.value = value }
}

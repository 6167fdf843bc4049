import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The HTTP server's executor of the response plan: resolve through the same registry,
// report, then execute `ResponsePlan`'s steps with async waits and hand back what to put on the
// wire (`ServedAnswer`), which `HTTPMockServer`'s `ResponseWriter` turns into NIO writes.
// In two phases: `startServing` computes, without waiting or running user code, what needs
// neither (the usual case: a route matched by host, path and plain matchers, whose response
// starts now), and the server writes that from its event loop; `ServedContinuation` does the
// rest in a task.
//
// Written once, in `ResponsePlan*.swift`, for both transports: resolution and the miss report
// (`Registry.resolve`, `Registry.report`); the choice of delivery (a dynamic result inherits its
// handler's), delivery, status and payload validation; the start (delay, `defaultDelay` for
// `.instant`, a gate, never); running a dynamic handler; the head (`Content-Length`, no body for
// HEAD/1xx/204/304, none for event streams); the request sent upstream and the header fields
// relayed from it; the chunk size and the pace of a paced body; an event's framing (and the error for one
// that cannot be framed); journaling what was sent and a late outcome.
//
// Still each transport's own, on purpose: the executors (URLProtocol client calls and
// DispatchSource timers in `Transport/Exchange*`; NIO writes and tasks here and in
// `ResponseWriter`); the instance timeout's reach (in process it bounds the whole request, as
// URLSession's timeouts do, so the handler step gets no timeout of its own there; over the server
// it bounds the handler); who frames the body (the server's `Content-Length` is the body's size);
// redirect following, cookie storage and URLSession's own timeouts, which only the in-process
// transport does (the server passes 3xx and `Set-Cookie` to its client).
//
// Still written twice: nothing.

/// What a transport must do with one request.
package enum ServedAnswer: Sendable {
    /// Send this response.
    case respond(WireResponse)
    /// Close the connection without a response: a `.failure` response, the `.fail` and
    /// `.failTest` policies, an invalid response, a failing or timed-out dynamic handler.
    case close(reason: String)
    /// Never answer (`.never`): hold the connection until the client or the transport ends it.
    case hold
    /// Send the head and the first `afterBytes` bytes of the body, then close the connection
    /// (`.fault(.connectionLost(afterBytes:))`).
    case cut(WireResponse, afterBytes: Int)
    /// Write bytes that are not HTTP, then close (`.fault(.malformedResponse)`).
    case garbage
    /// Reset the connection without a response: a TCP `RST`, not an orderly close
    /// (`.fault(.connectionReset)`, WireMock's `CONNECTION_RESET_BY_PEER`).
    case reset(reason: String)
    /// Send the head (chunked), then each event as its own chunk when its time comes
    /// (`.eventStream`); `request` is what a dynamic stream is computed from.
    case events(WireResponse, MockResponse.EventSource, request: MockRequest)
    /// Send the request on and stream the answer back (``ServedForward``).
    case forward(ServedForward)
}

/// A response ready for the wire: status, header fields (with `Content-Length` when the
/// status allows a body), the body and its pace.
package struct WireResponse: Sendable {
    package let statusCode: Int
    /// The reason phrase to send instead of the standard one (WireMock's `statusMessage`).
    package var reasonPhrase: String? = nil
    package let headers: [(name: String, value: String)]
    package let body: ServedBody
    /// Whether the body goes on the wire (not for `HEAD`, 1xx, 204, 304).
    package let sendsBody: Bool
    /// Throttled delivery: the body is paced at this many bytes per second.
    package let bytesPerSecond: Int?
    /// The registered response this was prepared from (``ImmediateAnswer``), if any. Its status
    /// and header fields were checked at registration (``MockResponse/sendingProblems``), and it
    /// never changes: a transport may keep what it built from it to send it again.
    package var preparedFrom: ImmediateAnswer? = nil
    /// What the server runs once it has written the response (``MockResponse/afterServed``).
    package var afterSend: (@Sendable () -> Void)? = nil
    /// Whether registration checked the status and header fields (``preparedFrom``): the
    /// transport need not check them again.
    package var isCheckedAtRegistration: Bool { preparedFrom != nil }
    /// The size of the chunks a streamed body is written in (``ResponsePlan/chunkSize(bytesPerSecond:)``).
    package var chunkSize: Int { ResponsePlan.chunkSize(bytesPerSecond: bytesPerSecond) }
    /// Nanoseconds after the body started when `sent` bytes of it are due; `nil` when not paced
    /// (``ResponsePlan/due(afterSending:bytesPerSecond:)``).
    package func dueNanoseconds(afterSending sent: Int) -> UInt64? {
        bytesPerSecond.map { WaitTime.nanoseconds(ResponsePlan.due(afterSending: sent, bytesPerSecond: $0)) }
    }
}

/// How a request that arrived over the server starts (``HTTPMock/startServing(method:target:headers:body:clientAddress:)``).
package enum ServedStart: Sendable {
    /// The most usual case: a response prepared at registration, complete the moment it was
    /// resolved (``ImmediateAnswer``), already journaled as served, sent in answer to a request
    /// with this method. The server writes the parts it kept from the last time it sent the same
    /// answer, or builds them (``WireResponse/init(_:to:)``), without leaving its event loop.
    case prepared(ImmediateAnswer, to: HTTPMethod)
    /// What to send, computed at once: the request matched a route without running user code,
    /// and its response starts now (nothing to wait for, no handler to run, nothing to fetch).
    /// The server writes it without leaving its event loop.
    case ready(ServedAnswer)
    /// The rest must be awaited off the event loop: ``ServedContinuation/answer()``.
    case later(ServedContinuation)
}

/// The part of serving one request that waits: resolving it when matching runs user code or
/// nothing matched (the near-miss report), reporting it to the log handler, waiting for its
/// delay or gate, running its handler, fetching a passthrough.
package struct ServedContinuation: Sendable {
    fileprivate enum Phase: Sendable {
        case unresolved(MockRequest)
        case resolved(Resolution, report: (LogHandler, HTTPMockEvent)?)
    }

    fileprivate let registry: Registry
    fileprivate let phase: Phase

    /// What to send. Cancelling the calling task (the connection closed) abandons the wait.
    package func answer() async -> ServedAnswer {
        let resolution: Resolution
        let report: (LogHandler, HTTPMockEvent)?
        switch phase {
        case .unresolved(let request):
            // Matching that runs user code, parses a body, backtracks through a regular
            // expression or writes a near-miss report runs on threads of its own: never on the
            // event loop, never holding a thread of the cooperative pool the server's tasks (the
            // admin API among them) share, and never queued behind another slow match.
            let registry = self.registry
            resolution = await withCheckedContinuation { continuation in
                WorkerThreads.matching.run { continuation.resume(returning: registry.resolve(request)) }
            }
            report = registry.report(resolution)
        case .resolved(let resolved, let reported):
            (resolution, report) = (resolved, reported)
        }
        if let (handler, event) = report {
            // On the instance's own log queue (events stay in order), and the request goes on
            // once its event was handled, as for in-process requests.
            let logQueue = registry.logQueue
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                logQueue.async {
                    handler.handle(event)
                    done.resume()
                }
            }
        }
        let served = ServedRun(registry: registry, journalID: resolution.journalID, settings: resolution.settings.value)
        let answer = await served.answer(resolution.response, to: resolution.request, inherited: nil, outcomePending: false)
        return answer.runningAfterSend(resolution.response.afterServed, for: resolution.request)
    }
}

extension ServedAnswer {
    /// What the server runs once it has written this answer, if anything.
    package var afterSend: (@Sendable () -> Void)? {
        switch self {
        case .respond(let response), .cut(let response, _): return response.afterSend
        default: return nil
        }
    }

    /// `self`, with `action` run once the server has written it (a response's
    /// ``MockResponse/afterServed``). Only answers that reach the client carry it.
    func runningAfterSend(_ action: (@Sendable (MockRequest) -> Void)?, for request: MockRequest) -> ServedAnswer {
        guard let action else { return self }
        switch self {
        case .respond(var response):
            response.afterSend = { action(request) }
            return .respond(response)
        case .cut(var response, let afterBytes):
            response.afterSend = { action(request) }
            return .cut(response, afterBytes: afterBytes)
        default:
            return self
        }
    }
}

extension HTTPMock {
    /// Starts serving one request that arrived over another transport, against this instance's
    /// registry (journal, queues, near misses, the log handler and test reporting as for
    /// in-process requests): the answer at once when it needs no waiting, else what to await.
    ///
    /// Never blocks and runs no user code (no predicate, body matcher, handler or log handler):
    /// the server calls it on its event loop. What could is left to ``ServedContinuation``.
    package func startServing(
        method: String, target: MockRequest.Target, headers: HTTPHeaders, body: Data?, clientAddress: String? = nil
    ) -> ServedStart {
        let request = MockRequest(method: HTTPMethod(method), target: target, headers: headers, body: body, clientAddress: clientAddress)
        guard let resolution = registry.resolveWithoutUserCode(request) else {
            return .later(ServedContinuation(registry: registry, phase: .unresolved(request)))
        }
        if let complete = resolution.completeAnswer {
            // Prepared at registration and journaled as served by the lookup; no log handler
            // sees matches (else it would not be complete at once).
            return .prepared(complete, to: request.method)
        }
        // A matched request: the report has no side effects, only the event to log.
        let report = registry.report(resolution)
        if report == nil {
            let served = ServedRun(registry: registry, journalID: resolution.journalID, settings: resolution.settings.value)
            if let answer = served.answerAtOnce(resolution.response, to: resolution.request) {
                return .ready(answer.runningAfterSend(resolution.response.afterServed, for: resolution.request))
            }
        }
        return .later(ServedContinuation(registry: registry, phase: .resolved(resolution, report: report)))
    }
}

extension MockResponse.Body {
    /// Whether the body is read from a file.
    fileprivate var isFile: Bool {
        if case .file = self { return true }
        return false
    }
}

extension WireResponse {
    /// A response prepared at registration, sent in answer to `method`.
    package init(_ complete: ImmediateAnswer, to method: HTTPMethod) {
        let body = complete.body(to: method)
        self.init(
            statusCode: complete.status.code, reasonPhrase: complete.status.reasonPhrase, headers: complete.wireHeaders,
            body: ServedBody(body.map { .data($0) } ?? .none, size: complete.body?.count ?? 0), sendsBody: body != nil,
            bytesPerSecond: nil, preparedFrom: complete)
    }
}

/// One request's answer, computed off any queue with async waits.
private struct ServedRun: Sendable {
    let registry: Registry
    let journalID: Int
    let settings: InstanceSettings

    /// Executes `response`'s plan (``ResponsePlan``) with async waits.
    func answer(_ response: MockResponse, to request: MockRequest, inherited: Delivery?, outcomePending: Bool) async -> ServedAnswer {
        let rate: Int?
        let action: ResponsePlan.Action
        switch ResponsePlan.first(response, to: request, inherited: inherited, defaultDelay: settings.instantDelay) {
        case .refuse(let error):
            return unsendable(error, to: request)
        case .runHandler(let handler, let delivery):
            if let base = handler.forwardBase,
                let forward = ServedForward(
                    handler.forwardAdjust?(request) ?? request, base: base, registry: registry, journalID: journalID,
                    timeout: settings.forwardTimeout)
            {
                // Streamed by the server once its start has come (a delay, a gate).
                return await started(ResponsePlan.start(of: delivery, defaultDelay: settings.defaultDelay)) ?? .forward(forward)
            }
            switch await ResponsePlan.runHandler(handler, for: request, timeout: settings.timeout) {
            case .success(let produced):
                return await answer(produced, to: request, inherited: delivery, outcomePending: true)
            case .failure(let error) where handler.forwardBase != nil:
                // A forward the server could not stream itself (no upstream URL could be made of
                // the request) whose handler failed: a 502 naming the upstream.
                let url = handler.forwardBase.flatMap { Forwarding.target(for: request, base: $0) }?.absoluteString ?? "?"
                let http = MockResponse.HTTPPayload(
                    status: HTTPStatus(502), headers: HTTPHeaders(["Content-Type": "text/plain; charset=utf-8"]),
                    body: .data(
                        Data("HTTPMock: forwarding \(request.method.rawValue) to \(url) failed: \(error.localizedDescription).\n".utf8)),
                    defaultContentType: nil, preparedHeaderFields: nil)
                return respond(http, to: request, rate: nil, outcomePending: true)
            case .failure(let error):
                return fail(error)
            }
        case .start(let start, let next, let bytesPerSecond):
            if let instead = await started(start) { return instead }
            rate = bytesPerSecond
            action = next
        }
        if let answer = act(action, to: request, rate: rate, outcomePending: outcomePending) { return answer }
        return await passthrough(request, rate: rate)
    }

    /// Waits for `start`; `nil` once it has come, else what to answer instead (`.never`: hold;
    /// the wait was cancelled: fail).
    private func started(_ start: ResponsePlan.Start) async -> ServedAnswer? {
        switch start {
        case .now:
            return nil
        case .never:
            return .hold
        case .gate(let gate):
            return await Self.waitForRelease(of: gate) ? nil : fail(URLError(.cancelled))
        case .after(let delay):
            do {
                try await WaitTime.sleep(delay)
                return nil
            } catch {
                return fail(URLError(.cancelled))
            }
        }
    }

    /// ``answer(_:to:inherited:outcomePending:)`` when nothing in it waits: the response is
    /// refused, or starts now and is neither a passthrough nor a file (whose size is read from
    /// the disk). `nil` otherwise.
    func answerAtOnce(_ response: MockResponse, to request: MockRequest) -> ServedAnswer? {
        switch ResponsePlan.first(response, to: request, inherited: nil, defaultDelay: settings.instantDelay) {
        case .refuse(let error):
            return unsendable(error, to: request)
        case .runHandler, .start(.never, _, _), .start(.gate, _, _), .start(.after, _, _):
            return nil
        case .start(.now, let action, let rate):
            switch action {
            case .http(let http) where http.body.isFile, .fault(_, let http) where http.body.isFile:
                return nil
            default:
                return act(action, to: request, rate: rate, outcomePending: false)
            }
        }
    }

    /// What the plan's action sends once its start has come; `nil` for `.passthrough`, which
    /// waits for the network (``passthrough(_:rate:)``).
    private func act(_ action: ResponsePlan.Action, to request: MockRequest, rate: Int?, outcomePending: Bool) -> ServedAnswer? {
        switch action {
        case .fail(let error):
            if outcomePending { registry.recordOutcome(journalID: journalID, statusCode: nil, error: error) }
            return .close(reason: "\(error)")
        case .passthrough:
            return nil
        case .http(let http):
            return respond(http, to: request, rate: rate, outcomePending: outcomePending)
        case .fault(let fault, let head):
            switch fault.kind {
            case .emptyResponse:
                return .close(reason: "\(fault)")
            case .connectionReset:
                return .reset(reason: "\(fault)")
            case .malformedResponse:
                return .garbage
            case .connectionLost(let afterBytes):
                guard case .respond(let response) = respond(head, to: request, rate: rate, outcomePending: outcomePending) else {
                    return .close(reason: "\(fault)")
                }
                return .cut(response, afterBytes: afterBytes)
            }
        }
    }

    /// Waits until `gate` is released; `false` when the calling task was cancelled first
    /// (the connection closed), and the gate forgets the waiter.
    static func waitForRelease(of gate: ResponseGate) async -> Bool {
        let race = FirstResult<Bool>()
        let token = Locked<Int?>(nil)
        return await withTaskCancellationHandler {
            let waiting = gate.whenReleased { race.finish(true) }
            token.withLock { $0 = waiting }
            return await withCheckedContinuation { race.wait($0) }
        } onCancel: {
            race.finish(false)
            if let waiting = token.withLock({ $0 }) { gate.cancelWaiting(waiting) }
        }
    }

    private func respond(
        _ http: MockResponse.HTTPPayload, to request: MockRequest, rate: Int?, outcomePending: Bool
    ) -> ServedAnswer {
        let head: ResponsePlan.Head
        do {
            head = try ResponsePlan.head(of: http, to: request.method, framing: .bodySize)
        } catch {
            return fail(error)
        }
        ResponsePlan.journal(head.served(http.body), journalID: journalID, outcomePending: outcomePending, in: registry)
        if case .events(let source) = http.body {
            return .events(
                WireResponse(
                    statusCode: head.status.code, headers: head.headers.map { ($0.name, $0.value) },
                    body: ServedBody(.none, size: 0), sendsBody: head.allowsBody, bytesPerSecond: nil),
                source, request: request)
        }
        return .respond(
            WireResponse(
                statusCode: head.status.code, reasonPhrase: head.status.reasonPhrase, headers: head.headers.map { ($0.name, $0.value) },
                body: ServedBody(http.body, size: head.body.size), sendsBody: head.sendsBody, bytesPerSecond: rate))
    }

    private func fail(_ error: any Error) -> ServedAnswer {
        registry.recordOutcome(journalID: journalID, statusCode: nil, error: error)
        return .close(reason: "\(error)")
    }

    /// A 500 naming why the response cannot be sent (a CR/LF in a templated header value, a
    /// header name that is not a token, a 1xx final status): the client gets an answer and
    /// the connection, with any request pipelined behind, goes on (Guarantees.md).
    private func unsendable(_ error: any Error, to request: MockRequest) -> ServedAnswer {
        registry.recordOutcome(journalID: journalID, statusCode: 500, error: error)
        let problem = (error as? HTTPMockError)?.message ?? "\(error)"
        return .direct(
            status: 500, headers: [("Content-Type", "text/plain; charset=utf-8")],
            body: Data(ServedAnswer.unsendableText("\(request.method.rawValue) \(request.url.path)", problem: problem).utf8),
            method: request.method.rawValue)
    }

    /// Sends `request` through the instance's passthrough session and relays the answer.
    private func passthrough(_ request: MockRequest, rate: Int?) async -> ServedAnswer {
        let session = registry.passthroughSession
        let outgoing = ResponsePlan.upstreamRequest(for: request)
        let relayed: (Data?, URLResponse?, (any Error)?) = await withCheckedContinuation { continuation in
            let box = Locked(Optional(continuation))
            let resume: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, response, error in
                box.withLock { $0.take() }?.resume(returning: (data, response, error))
            }
            DispatchQueue.global().async {
                session.dataTask(with: outgoing) { data, response, error in resume(data, response, error) }.resume()
            }
        }
        if let error = relayed.2 { return fail(error) }
        guard let real = relayed.1 as? HTTPURLResponse else { return fail(URLError(.badServerResponse)) }
        let http = MockResponse.HTTPPayload(
            status: HTTPStatus(real.statusCode), headers: ResponsePlan.relayedHeaders(of: real), body: .data(relayed.0 ?? Data()),
            defaultContentType: nil, preparedHeaderFields: nil)
        return respond(http, to: request, rate: rate, outcomePending: true)
    }
}

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The transport-neutral part of serving one request, for transports other than the
// URLProtocol (the HTTP server, SPEC §13): resolve through the same registry, report, wait
// the delay, run a dynamic handler under the instance's timeout, pass through, and hand back
// what to put on the wire.
//
// Shared with `Transport/Exchange*.swift`: resolution (`Registry.resolve`) and the miss report
// with its log event (`Registry.report`). Still written twice until the in-process transport
// uses this file too (it does the same on the task's work queue with DispatchSource timers): the
// choice of delivery (a dynamic result inherits its handler's), delivery and status validation,
// the start delay (`defaultDelay` for `.instant`, none for `.never`), the dynamic handler and
// its deadline (`runDynamic` + `armDeadlines`' instance timeout), passthrough through the
// instance's session with `Content-Encoding`/`Content-Length` dropped, `Content-Length` and
// no body for HEAD/1xx/204/304 (`deliver`), and journaling a late outcome. Not shared: redirect
// following, cookie storage and URLSession's own timeouts, which only the in-process transport
// does (the server passes 3xx and `Set-Cookie` to its client).

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
    /// Send the head (chunked), then each event as its own chunk when its time comes
    /// (`.eventStream`); `request` is what a dynamic stream is computed from.
    case events(WireResponse, MockResponse.EventSource, request: MockRequest)
}

/// A response ready for the wire: status, header fields (with `Content-Length` when the
/// status allows a body), the body and its pace.
package struct WireResponse: Sendable {
    package let statusCode: Int
    package let headers: [(name: String, value: String)]
    package let body: ServedBody
    /// Whether the body goes on the wire (not for `HEAD`, 1xx, 204, 304).
    package let sendsBody: Bool
    /// Throttled delivery: the body is paced at this many bytes per second.
    package let bytesPerSecond: Int?
}

/// A response body from memory or from a file, read in chunks when sent.
package struct ServedBody: Sendable {
    private let source: MockResponse.Body
    package let size: Int

    init(_ source: MockResponse.Body, size: Int) {
        self.source = source
        self.size = size
    }

    /// The whole body when it is in memory, `nil` for a file (stream it with ``reader()``).
    package var data: Data? {
        switch source {
        case .none, .events: return Data()  // events are written one by one (`ServedAnswer.events`)
        case .data(let data): return data
        case .file: return nil
        }
    }

    /// A reader that yields the body chunk by chunk; a file is read from disk as it goes.
    package func reader() throws -> ServedBodyReader {
        ServedBodyReader(try BodySource(source).reader())
    }
}

/// Reads a ``ServedBody`` chunk by chunk. Not Sendable across concurrent use: one reader per
/// response, used by one task at a time.
package struct ServedBodyReader: @unchecked Sendable {
    // @unchecked: wraps a FileHandle, used by the one task that sends the body.
    private var reader: BodyReader
    init(_ reader: BodyReader) { self.reader = reader }

    /// The next chunk of at most `count` bytes; empty at the end.
    package mutating func next(_ count: Int) throws -> Data { try reader.next(count) }

    /// Closes the file, if any.
    package func close() { try? reader.file?.close() }
}

extension HTTPMock {
    /// Resolves one request that arrived over another transport against this instance's
    /// registry (journal, queues, near misses, the log handler and test reporting as for
    /// in-process requests) and computes what to send: waits the delay, runs a dynamic handler
    /// under ``timeout``, passes a `.passthrough` through ``passthroughSession``.
    ///
    /// Cancelling the calling task (the connection closed) abandons the wait.
    package func serve(method: String, url: URL, headers: [(String, String)], body: Data?) async -> ServedAnswer {
        var fields = HTTPHeaders()
        for (name, value) in headers {
            if let existing = fields[name] {
                fields[name] = existing + ", " + value
            } else {
                fields[name] = value
            }
        }
        let request = MockRequest(method: HTTPMethod(method), url: url, headers: fields, body: body)
        let resolution = registry.resolve(request)
        await report(resolution)
        let served = ServedRun(registry: registry, journalID: resolution.journalID, settings: resolution.settings.value)
        return await served.answer(resolution.response, to: resolution.request, inherited: nil, outcomePending: false)
    }

    /// Tells the log handler, and XCTest at once for a `.failTest` miss, as for in-process
    /// requests: on the instance's own log queue (events stay in order), and the request goes on
    /// once its event was handled.
    private func report(_ resolution: Resolution) async {
        guard let (handler, event) = registry.report(resolution) else { return }
        let logQueue = registry.logQueue
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            logQueue.async {
                handler.handle(event)
                done.resume()
            }
        }
    }
}

/// The first of several results (a handler's answer, its deadline, a cancellation; a gate's
/// release or a cancellation), handed to one waiter whether it arrives before or after the waiter.
private final class FirstResult<Value: Sendable>: Sendable {
    private struct State {
        var result: Value?
        var waiter: CheckedContinuation<Value, Never>?
    }
    private let state = Locked(State())

    func finish(_ result: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    func wait(_ continuation: CheckedContinuation<Value, Never>) {
        let ready = state.withLock { state -> Value? in
            if state.result == nil { state.waiter = continuation }
            return state.result
        }
        if let ready { continuation.resume(returning: ready) }
    }
}

/// One request's answer, computed off any queue with async waits.
private struct ServedRun: Sendable {
    let registry: Registry
    let journalID: Int
    let settings: InstanceSettings

    func answer(_ response: MockResponse, to request: MockRequest, inherited: Delivery?, outcomePending: Bool) async -> ServedAnswer {
        let delivery = response.delivery == .instant ? (inherited ?? .instant) : response.delivery
        if let problem = delivery.problem {
            return fail(HTTPMockError(.invalidRegistration, "\(request): \(problem)"))
        }
        if let problem = response.sendingProblems.first {
            return fail(HTTPMockError(.invalidRegistration, "\(request): \(problem)"))
        }
        if case .dynamic(let handler) = response.payload {
            switch await Self.run(handler, for: request, timeout: settings.timeout) {
            case .success(let produced):
                return await answer(produced, to: request, inherited: delivery, outcomePending: true)
            case .failure(let error):
                return fail(error)
            }
        }
        if case .never = delivery.kind { return .hold }
        if case .held(let gate) = delivery.kind, !(await Self.waitForRelease(of: gate)) {
            return fail(URLError(.cancelled))
        }
        let delay = delivery.startDelay ?? settings.defaultDelay
        if delay > 0 {
            do {
                try await WaitTime.sleep(delay)
            } catch {
                return fail(URLError(.cancelled))
            }
        }
        let rate: Int? = if case .throttled(let bytesPerSecond, _) = delivery.kind { bytesPerSecond } else { nil }
        switch response.payload {
        case .invalid(let message, _):
            return fail(HTTPMockError(.invalidRegistration, message))
        case .failure(let error):
            if outcomePending { registry.recordOutcome(journalID: journalID, statusCode: nil, error: error) }
            return .close(reason: "\(error)")
        case .dynamic:
            return fail(HTTPMockError(.invalidRegistration, "\(request): a dynamic response returned another dynamic response"))
        case .passthrough:
            return await passthrough(request, rate: rate)
        case .http(let http):
            let headers = http.preparedHeaderFields.map { HTTPHeaders($0) } ?? http.effectiveHeaders
            if case .events(let source) = http.body {
                var fields = headers
                fields["Content-Length"] = nil
                if outcomePending { registry.recordOutcome(journalID: journalID, statusCode: http.status.code, error: nil) }
                record(statusCode: http.status.code, headers: fields, body: http.body)
                return .events(
                    WireResponse(
                        statusCode: http.status.code, headers: fields.map { ($0.name, $0.value) },
                        body: ServedBody(.none, size: 0), sendsBody: http.status.sendsBody(to: request.method),
                        bytesPerSecond: nil),
                    source, request: request)
            }
            return respond(status: http.status, headers: headers, body: http.body, to: request, rate: rate, outcomePending: outcomePending)
        case .fault(let fault, let head):
            switch fault.kind {
            case .emptyResponse:
                return .close(reason: "\(fault)")
            case .malformedResponse:
                return .garbage
            case .connectionLost(let afterBytes):
                let headers = head.preparedHeaderFields.map { HTTPHeaders($0) } ?? head.effectiveHeaders
                guard
                    case .respond(let response) = respond(
                        status: head.status, headers: headers, body: head.body, to: request,
                        rate: rate, outcomePending: outcomePending)
                else {
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

    /// Keeps what the client is sent in the journal, for `exportHAR`.
    private func record(statusCode: Int, headers: HTTPHeaders, body: MockResponse.Body) {
        registry.recordServed(
            journalID: journalID,
            ServedResponse(
                statusCode: statusCode, headerFields: headers.dictionary, body: body, date: Date()))
    }

    private func respond(
        status: HTTPStatus, headers: HTTPHeaders, body: MockResponse.Body, to request: MockRequest,
        rate: Int?, outcomePending: Bool
    ) -> ServedAnswer {
        let source: BodySource
        do {
            source = try BodySource(body)
        } catch {
            return fail(error)
        }
        var fields = headers
        if !status.forbidsBody {
            fields["Content-Length"] = String(source.size)
        }
        if outcomePending { registry.recordOutcome(journalID: journalID, statusCode: status.code, error: nil) }
        record(statusCode: status.code, headers: fields, body: body)
        return .respond(
            WireResponse(
                statusCode: status.code, headers: fields.map { ($0.name, $0.value) }, body: ServedBody(body, size: source.size),
                sendsBody: status.sendsBody(to: request.method) && source.size > 0, bytesPerSecond: rate))
    }

    private func fail(_ error: any Error) -> ServedAnswer {
        registry.recordOutcome(journalID: journalID, statusCode: nil, error: error)
        return .close(reason: "\(error)")
    }

    /// Runs a dynamic handler; gives up after `timeout` seconds (the handler's task is
    /// cancelled, and its late answer dropped). As `Exchange.runDynamic` with its deadline.
    static func run(_ handler: DynamicHandler, for request: MockRequest, timeout: TimeInterval) async -> Result<MockResponse, any Error> {
        let race = FirstResult<Result<MockResponse, any Error>>()
        let work = Task {
            do {
                race.finish(.success(try await handler.handler(request)))
            } catch {
                race.finish(.failure(error))
            }
        }
        let deadline = Task {
            guard timeout > 0, (try? await WaitTime.sleep(timeout)) != nil else { return }
            race.finish(
                .failure(
                    URLError(
                        .timedOut,
                        userInfo: [
                            NSLocalizedDescriptionKey:
                                "The dynamic response for \(request) did not answer within \(timeout) s (HTTPMock's timeout)."
                        ])))
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { race.wait($0) }
        } onCancel: {
            race.finish(.failure(URLError(.cancelled)))
        }
        work.cancel()
        deadline.cancel()
        return result
    }

    /// Sends `request` through the instance's passthrough session and relays the answer.
    private func passthrough(_ request: MockRequest, rate: Int?) async -> ServedAnswer {
        var forwarded = URLRequest(url: request.url)
        forwarded.httpMethod = request.method.rawValue
        for (name, value) in request.headers where HTTPHeaders.lowercased(name) != "host" {
            forwarded.setValue(value, forHTTPHeaderField: name)
        }
        forwarded.httpBody = request.body
        let session = registry.passthroughSession
        let outgoing = forwarded
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
        var headers = HTTPHeaders()
        for (name, value) in real.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        // URLSession has already decoded the body: the client must not decode it again.
        headers["Content-Encoding"] = nil
        headers["Transfer-Encoding"] = nil
        headers["Content-Length"] = nil
        return respond(
            status: HTTPStatus(real.statusCode), headers: headers, body: .data(relayed.0 ?? Data()), to: request,
            rate: rate, outcomePending: true)
    }
}

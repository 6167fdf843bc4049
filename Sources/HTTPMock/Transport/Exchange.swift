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
    private let urlProtocol: MockURLProtocol
    private let client: any URLProtocolClient
    private let task: URLSessionTask?
    private let registry: Registry
    private let state = Locked(State())

    private struct State {
        var isClosed = false
        /// Settings read with the first lookup; later hops use the same.
        var settings = SettingsSnapshot(InstanceSettings())
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
    /// Chunk size of file bodies streamed to delegate-driven tasks.
    static let fileChunkSize = 256 * 1024

    init(urlProtocol: MockURLProtocol, client: any URLProtocolClient, task: URLSessionTask?, registry: Registry) {
        self.urlProtocol = urlProtocol
        self.client = client
        self.task = task
        self.registry = registry
    }

    // MARK: - Entry points (on the work queue)

    func start(_ request: MockRequest) {
        resolveAndServe(request, hop: 0)
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

    private func resolveAndServe(_ request: MockRequest, hop: Int) {
        // Each redirect hop is a new request to the "server": its request timeout starts afresh
        // (the instance's `timeout` still bounds the whole chain).
        if hop > 0, state.withLock({ $0.deadlinesArmed }) { resetIdleTimer() }
        let resolution = registry.resolve(request)
        state.withLock { state in
            state.journalID = resolution.journalID
            if hop == 0 { state.settings = resolution.settings }
        }
        guard let (handler, event) = report(resolution) else {
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

    private var settings: InstanceSettings { state.withLock { $0.settings }.value }

    /// Reports a `.failTest` miss to XCTest at once; returns the log handler to call, if any.
    private func report(_ resolution: Resolution) -> (LogHandler, HTTPMockEvent)? {
        let route: String?
        switch resolution.answer {
        case .matched(let matched, _):
            route = matched
        case .unmatched(let policy):
            route = nil
            if case .failTest = policy.kind, let report = resolution.nearMissReport,
               Reporter.reportMissNow(report, at: registry.creationLocation) {
                registry.markReported(journalID: resolution.journalID)
            }
        }
        guard let handler = resolution.settings.value.logHandler, route == nil || !handler.ignoresMatches else { return nil }
        return (handler, HTTPMockEvent(
            request: resolution.request, isMatched: route != nil, route: route, nearMissReport: resolution.nearMissReport))
    }

    /// Serves `response`. `inherited` is the delivery of a dynamic response whose handler
    /// produced this one.
    private func serve(_ response: MockResponse, to request: MockRequest, hop: Int, inherited: Delivery?) {
        let delivery = response.delivery == .instant ? (inherited ?? .instant) : response.delivery
        // Dynamic results and `.mock(...)` policy responses were never registered, so never validated.
        if let problem = delivery.problem {
            fail(HTTPMockError(.invalidRegistration, "\(request): \(problem)"))
            return
        }
        if case .http(let http) = response.payload, !http.status.isValid {
            fail(HTTPMockError(.invalidRegistration, "\(request): status \(http.status.code) is not an HTTP status (100...599)"))
            return
        }
        switch response.payload {
        case .invalid(let message, _):
            fail(HTTPMockError(.invalidRegistration, message))
        case .failure(let error):
            begin(delivery) { $0.fail(error) }
        case .dynamic(let handler):
            runDynamic(handler, for: request, hop: hop, delivery: delivery)
        case .passthrough:
            begin(delivery) { $0.runPassthrough(request) }
        case .http(let http):
            begin(delivery) { $0.respond(http, to: request, hop: hop, delivery: delivery) }
        case .fault(let fault, let head):
            begin(delivery) { $0.deliverFault(fault, head: head, to: request) }
        }
    }

    /// Runs `body` on the work queue when `delivery` says the response starts: after its delay,
    /// when its gate is released, or never.
    private func begin(_ delivery: Delivery, _ body: @escaping @Sendable (Exchange) -> Void) {
        guard case .held(let gate) = delivery.kind else {
            after(startDelay(of: delivery), body)
            return
        }
        guard !isClosed else { return }
        if gate.isReleased {
            body(self)
            return
        }
        guard let workQueue else {
            fail(HTTPMockError(.unsupportedTask, "HTTPMock could not reach the task's work queue to hold the response; see Docs/LinuxNotes.md"))
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

    /// Seconds before a response starts: its own delay, `defaultDelay` for `.instant`, `nil`
    /// for `.never`.
    private func startDelay(of delivery: Delivery) -> TimeInterval? {
        if case .never = delivery.kind { return nil }
        return delivery.startDelay ?? settings.defaultDelay
    }

    // MARK: - HTTP responses

    private func respond(_ http: MockResponse.HTTPPayload, to request: MockRequest, hop: Int, delivery: Delivery) {
        // A prepared payload already holds its header fields; `Set-Cookie` and `Location` can
        // only come from the user's headers, so those are all that need looking at.
        let headers = http.preparedHeaderFields == nil ? http.effectiveHeaders : http.headers
        storeCookies(from: headers, for: request.url)

        if Redirects.isRedirect(http.status), settings.followsRedirects,
           let location = headers["Location"], let next = Redirects.request(following: location, status: http.status, from: request) {
            guard hop < Self.maximumRedirects else {
                fail(URLError(.httpTooManyRedirects, userInfo: [
                    NSLocalizedDescriptionKey: "HTTPMock followed \(Self.maximumRedirects) redirects from \(request.url.absoluteString) and stopped",
                    NSURLErrorFailingURLErrorKey: request.url,
                ]))
                return
            }
            recordOutcomeIfPending(statusCode: http.status.code)
            registry.recordServed(journalID: state.withLock { $0.journalID }, ServedResponse(
                statusCode: http.status.code, headerFields: headers.dictionary, body: .none, date: Date()))
            let response = HTTPURLResponse(url: request.url, statusCode: http.status.code, httpVersion: "HTTP/1.1", headerFields: headers.dictionary)
            askDelegateToRedirect(response: response, to: withCookies(next)) { exchange, approved in
                if let approved {
                    exchange.resolveAndServe(approved, hop: hop + 1)
                } else {
                    exchange.deliver(http, headers: headers, to: request, delivery: delivery)
                }
            }
            return
        }
        deliver(http, headers: headers, to: request, delivery: delivery)
    }

    private func deliver(_ http: MockResponse.HTTPPayload, headers: HTTPHeaders, to request: MockRequest, delivery: Delivery) {
        let sendsBody = !http.status.forbidsBody && request.method != .head
        if case .events(let source) = http.body {
            streamEvents(source, status: http.status, headers: headers, to: request, sendsBody: sendsBody)
            return
        }
        let body: BodySource
        do {
            body = try BodySource(http.body)
        } catch {
            fail(error)
            return
        }
        let headerFields: [String: String]
        if let prepared = http.preparedHeaderFields {
            headerFields = prepared
        } else {
            var headers = headers
            if !http.status.forbidsBody, !headers.contains("Content-Length") {
                headers["Content-Length"] = String(body.size)
            }
            headerFields = headers.dictionary
        }
        guard let response = HTTPURLResponse(url: request.url, statusCode: http.status.code, httpVersion: "HTTP/1.1", headerFields: headerFields) else {
            fail(URLError(.badServerResponse))
            return
        }
        recordOutcomeIfPending(statusCode: http.status.code)
        registry.recordServed(journalID: state.withLock { $0.journalID }, ServedResponse(
            statusCode: http.status.code, headerFields: headerFields, body: sendsBody ? http.body : .none, date: Date()))
        guard sendsBody, body.size > 0 else {
            send { client, urlProtocol in
                client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
                client.urlProtocolDidFinishLoading(urlProtocol)
            }
            close()
            return
        }
        let rate: Int? = if case .throttled(let bytesPerSecond, _) = delivery.kind { bytesPerSecond } else { nil }
        let chunked = (rate != nil || body.isFile && body.size > Self.fileChunkSize) && reportsToDelegate
        if chunked {
            let reader: BodyReader
            do {
                reader = try body.reader()
            } catch {
                fail(error)
                return
            }
            guard let workQueue, let delegateQueue = session?.delegateQueue else {
                fail(HTTPMockError(.unsupportedTask, "HTTPMock could not reach the task's work queue to stream its body; see Docs/LinuxNotes.md"))
                return
            }
            let stream = ChunkStream(
                readQueue: DispatchQueue(label: "HTTPMock.Exchange.read"), workQueue: workQueue, delegateQueue: delegateQueue,
                chunkSize: rate.map { min(Self.fileChunkSize, max(1, $0 / 10)) } ?? Self.fileChunkSize,
                rate: rate, started: .now())
            state.withLock { state in
                state.file = reader.file
                state.readQueue = stream.readQueue
            }
            armDeadlines()
            send { client, urlProtocol in client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed) }
            readChunk(Carried(reader), stream: stream, sent: 0)
            return
        }
        // Async and completion-handler tasks keep only the last `didLoad`: one chunk, whole.
        let data: Data
        do {
            data = try body.wholeData()
        } catch {
            fail(error)
            return
        }
        guard let rate else {
            send { client, urlProtocol in
                client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
                client.urlProtocol(urlProtocol, didLoad: data)
                client.urlProtocolDidFinishLoading(urlProtocol)
            }
            close()
            return
        }
        // Throttled: the whole body when its time at this rate is up.
        send { client, urlProtocol in client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed) }
        after(Double(data.count) / Double(rate)) { exchange in
            exchange.send { client, urlProtocol in
                client.urlProtocol(urlProtocol, didLoad: data)
                client.urlProtocolDidFinishLoading(urlProtocol)
            }
            exchange.close()
        }
    }

    /// How a body is streamed to a delegate-driven task.
    private struct ChunkStream: Sendable {
        /// Where the body is read: never the work queue, which every session of the process
        /// shares a target with, so a large body cannot starve other requests.
        let readQueue: DispatchQueue
        let workQueue: DispatchQueue
        let delegateQueue: OperationQueue
        let chunkSize: Int
        let rate: Int?
        let started: DispatchTime
    }

    /// Reads the next chunk on the read queue, then hands it to the client on the work queue.
    private func readChunk(_ reader: Carried<BodyReader>, stream: ChunkStream, sent: Int) {
        stream.readQueue.async {
            var reader = reader.value
            let chunk: Result<Data, any Error>
            if self.isClosed {
                return
            }
            do {
                chunk = .success(try reader.next(stream.chunkSize))
            } catch {
                chunk = .failure(error)
            }
            let next = Carried(reader)
            stream.workQueue.async { self.sendChunk(chunk, next: next, stream: stream, sent: sent) }
        }
    }

    /// Runs on the work queue. After handing a chunk to the client, waits until the delegate
    /// queue has run past it (so a slow delegate never lets chunks pile up in memory) and, when
    /// throttled, until the next chunk's time at `rate` has come.
    private func sendChunk(_ chunk: Result<Data, any Error>, next: Carried<BodyReader>, stream: ChunkStream, sent: Int) {
        guard !isClosed else { return }
        let data: Data
        switch chunk {
        case .failure(let error):
            fail(error)
            return
        case .success(let read):
            data = read
        }
        guard !data.isEmpty else {
            send { client, urlProtocol in client.urlProtocolDidFinishLoading(urlProtocol) }
            close()
            return
        }
        guard send({ client, urlProtocol in client.urlProtocol(urlProtocol, didLoad: data) }) else { return }
        // While the delegate consumes the chunk the "server" is not silent, the client is slow:
        // the request timeout waits, and starts again once the delegate is done.
        pauseIdleTimer()
        let total = sent + data.count
        stream.delegateQueue.addOperation {
            stream.workQueue.async {
                guard !self.isClosed else { return }
                self.resetIdleTimer()
                let due = stream.rate.map { stream.started + Double(total) / Double($0) } ?? .now()
                let wait = max(0, Double(Int64(due.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1e9)
                self.after(wait) { exchange in exchange.readChunk(next, stream: stream, sent: total) }
            }
        }
    }

    // MARK: - Event streams

    /// Sends the response head, then each event when its time comes: to a delegate-driven task
    /// in its own `didLoad`, to any other task all together at the end (it keeps only the last
    /// `didLoad`). Each event restarts the request timeout, as bytes from a server would.
    private func streamEvents(_ source: MockResponse.EventSource, status: HTTPStatus, headers: HTTPHeaders,
                              to request: MockRequest, sendsBody: Bool) {
        guard let response = HTTPURLResponse(url: request.url, statusCode: status.code, httpVersion: "HTTP/1.1", headerFields: headers.dictionary) else {
            fail(URLError(.badServerResponse))
            return
        }
        recordOutcomeIfPending(statusCode: status.code)
        guard sendsBody else {
            send { client, urlProtocol in
                client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
                client.urlProtocolDidFinishLoading(urlProtocol)
            }
            close()
            return
        }
        guard let workQueue else {
            fail(HTTPMockError(.unsupportedTask, "HTTPMock could not reach the task's work queue to stream events; see Docs/LinuxNotes.md"))
            return
        }
        let incremental = reportsToDelegate
        armDeadlines()
        send { client, urlProtocol in client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed) }
        switch source.kind {
        case .fixed(let events, let interval):
            sendFixedEvents(events[...], interval: interval, incremental: incremental)
        case .sequence(let handler):
            runEventSequence(handler, for: request, incremental: incremental, on: workQueue)
        }
    }

    private func sendFixedEvents(_ events: ArraySlice<ServerSentEvent>, interval: TimeInterval, incremental: Bool) {
        guard let event = events.first else {
            finishEvents(incremental: incremental)
            return
        }
        emit(event, incremental: incremental)
        let rest = events.dropFirst()
        if rest.isEmpty {
            finishEvents(incremental: incremental)
        } else {
            after(interval) { $0.sendFixedEvents(rest, interval: interval, incremental: incremental) }
        }
    }

    private func runEventSequence(_ handler: MockResponse.EventSequenceHandler, for request: MockRequest,
                                  incremental: Bool, on workQueue: DispatchQueue) {
        // Held weakly, as a dynamic handler's task: a sequence that never ends must not keep the
        // exchange alive after the request timed out or was cancelled (which cancels the task).
        let weakSelf = WeakExchange(self)
        let sink = MockResponse.EventSink { event in
            await withCheckedContinuation { continuation in
                workQueue.async {
                    guard let exchange = weakSelf.value, !exchange.isClosed else { return continuation.resume(returning: false) }
                    if let problem = event.problem {
                        exchange.fail(HTTPMockError(.invalidRegistration, "\(request): an event of its event stream cannot be framed: \(problem)"))
                        return continuation.resume(returning: false)
                    }
                    exchange.emit(event, incremental: incremental)
                    continuation.resume(returning: true)
                }
            }
        }
        let task = Task {
            let result: Result<Void, any Error>
            do {
                result = .success(try await handler.run(request, sink))
            } catch {
                result = .failure(error)
            }
            workQueue.async {
                guard let exchange = weakSelf.value, !exchange.isClosed else { return }
                switch result {
                case .success: exchange.finishEvents(incremental: incremental)
                case .failure(let error): exchange.fail(error)
                }
            }
        }
        let closed = state.withLock { state -> Bool in
            if !state.isClosed { state.dynamicTask = task }
            return state.isClosed
        }
        if closed { task.cancel() }
    }

    /// Runs on the work queue.
    private func emit(_ event: ServerSentEvent, incremental: Bool) {
        let bytes = Data(event.framed.utf8)
        if incremental {
            send { client, urlProtocol in client.urlProtocol(urlProtocol, didLoad: bytes) }
        } else {
            let open = state.withLock { state -> Bool in
                if !state.isClosed { state.bufferedEvents.append(bytes) }
                return !state.isClosed
            }
            if open { resetIdleTimer() }
        }
    }

    private func finishEvents(incremental: Bool) {
        let buffered = state.withLock { state -> Data in
            defer { state.bufferedEvents = Data() }
            return state.bufferedEvents
        }
        send { client, urlProtocol in
            if !incremental, !buffered.isEmpty { client.urlProtocol(urlProtocol, didLoad: buffered) }
            client.urlProtocolDidFinishLoading(urlProtocol)
        }
        close()
    }

    // MARK: - Faults

    private func deliverFault(_ fault: MockResponse.Fault, head: MockResponse.HTTPPayload, to request: MockRequest) {
        guard case .connectionLost(let afterBytes) = fault.kind else {
            fail(fault.error)
            return
        }
        let body: Data = if case .data(let data) = head.body { data } else { Data() }
        var headers = head.effectiveHeaders
        if !headers.contains("Content-Length") { headers["Content-Length"] = String(body.count) }
        guard let response = HTTPURLResponse(url: request.url, statusCode: head.status.code, httpVersion: "HTTP/1.1", headerFields: headers.dictionary) else {
            fail(URLError(.badServerResponse))
            return
        }
        let sent = body.prefix(afterBytes)
        var error = fault.error
        error = URLError(error.code, userInfo: [
            NSLocalizedDescriptionKey: "The network connection was lost after \(sent.count) of \(body.count) body bytes (HTTPMock fault \(fault)).",
            NSURLErrorFailingURLErrorKey: request.url,
        ])
        send { client, urlProtocol in
            client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
            if !sent.isEmpty { client.urlProtocol(urlProtocol, didLoad: Data(sent)) }
        }
        fail(error)
    }

    // MARK: - Dynamic responses

    private func runDynamic(_ handler: DynamicHandler, for request: MockRequest, hop: Int, delivery: Delivery) {
        guard let workQueue else {
            fail(HTTPMockError(.unsupportedTask, "HTTPMock could not reach the task's work queue to run a dynamic response; see Docs/LinuxNotes.md"))
            return
        }
        state.withLock { $0.outcomePending = true }
        armDeadlines()
        // The task holds the exchange weakly: a handler that never returns must not keep the
        // protocol, its client and its task alive after the request timed out or was cancelled.
        let weakSelf = WeakExchange(self)
        let task = Task {
            let result: Result<MockResponse, any Error>
            do {
                result = .success(try await handler.handler(request))
            } catch {
                result = .failure(error)
            }
            workQueue.async {
                guard let exchange = weakSelf.value, !exchange.isClosed else { return }  // timed out or cancelled: dropped
                switch result {
                case .success(let response):
                    exchange.serve(response, to: request, hop: hop, inherited: delivery)
                case .failure(let error):
                    exchange.fail(error)
                }
            }
        }
        let closed = state.withLock { state -> Bool in
            if !state.isClosed { state.dynamicTask = task }
            return state.isClosed
        }
        if closed { task.cancel() }
    }

    // MARK: - Passthrough

    private func runPassthrough(_ request: MockRequest) {
        guard let workQueue else {
            fail(HTTPMockError(.unsupportedTask, "HTTPMock could not reach the task's work queue to pass the request through; see Docs/LinuxNotes.md"))
            return
        }
        state.withLock { $0.outcomePending = true }
        armDeadlines()
        var forwarded = URLRequest(url: request.url)
        forwarded.httpMethod = request.method.rawValue
        for (name, value) in request.headers { forwarded.setValue(value, forHTTPHeaderField: name) }
        forwarded.httpBody = request.body
        // Not on the work queue: every FoundationNetworking session's work queue targets one
        // shared queue, and creating, resuming or cancelling a task `sync`s onto it, which from
        // inside a work queue is a deadlock that libdispatch turns into a crash.
        let session = registry.passthroughSession
        let forwardedRequest = forwarded
        DispatchQueue.global().async {
            let networkTask = session.dataTask(with: forwardedRequest) { data, response, error in
                let relayed = Relayed(data: data, response: response, error: error)
                workQueue.async { self.finishPassthrough(relayed, for: request) }
            }
            let closed = self.state.withLock { state -> Bool in
                if !state.isClosed { state.networkTask = networkTask }
                return state.isClosed
            }
            // Created means registered with its session until it completes: a closed exchange
            // must still cancel it, or it (and everything its handler holds) stays forever.
            if closed { networkTask.cancel() } else { networkTask.resume() }
        }
    }

    private func finishPassthrough(_ relayed: Relayed, for request: MockRequest) {
        guard !isClosed else { return }
        if let error = relayed.error {
            fail(error)
            return
        }
        guard let real = relayed.response as? HTTPURLResponse else {
            fail(URLError(.badServerResponse))
            return
        }
        var headers = HTTPHeaders()
        for (name, value) in real.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        // FoundationNetworking has already decoded the body; the client must not decode it again.
        headers["Content-Encoding"] = nil
        headers["Content-Length"] = nil
        let http = MockResponse.HTTPPayload(
            status: HTTPStatus(real.statusCode), headers: headers, body: .data(relayed.data ?? Data()), defaultContentType: nil,
            preparedHeaderFields: nil)
        // The network may have followed redirects: the client sees the final URL, as without HTTPMock.
        let answered = real.url.map { MockRequest(method: request.method, url: $0, headers: request.headers, body: request.body) } ?? request
        storeCookies(from: headers, for: answered.url)
        deliver(http, headers: headers, to: answered, delivery: .instant)
    }

    // MARK: - Redirect delegate

    /// Asks the task's (or session's) delegate whether to follow, as URLSession would; without
    /// a delegate the redirect is followed.
    private func askDelegateToRedirect(response: HTTPURLResponse?, to next: MockRequest,
                                       _ decide: @escaping @Sendable (Exchange, MockRequest?) -> Void) {
        guard let response, let task, let session, let workQueue,
              let delegate = (task.delegate ?? session.delegate) as? URLSessionTaskDelegate else {
            decide(self, next)
            return
        }
        var newRequest = URLRequest(url: next.url)
        newRequest.httpMethod = next.method.rawValue
        for (name, value) in next.headers { newRequest.setValue(value, forHTTPHeaderField: name) }
        newRequest.httpBody = next.body
        let proposal = Carried(newRequest)
        armDeadlines()
        session.delegateQueue.addOperation {
            delegate.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: proposal.value) { approved in
                let approvedRequest = approved.map { request in
                    MockRequest(method: HTTPMethod(request.httpMethod ?? "GET"), url: request.url ?? next.url,
                                headers: HTTPHeaders(request.allHTTPHeaderFields ?? [:]), body: request.httpBody)
                }
                workQueue.async {
                    guard !self.isClosed else { return }
                    decide(self, approvedRequest)
                }
            }
        }
    }

    // MARK: - Cookies

    /// Stores `Set-Cookie` in the session's cookie storage, which FoundationNetworking does not
    /// do for a custom protocol, by the rules of RFC 6265 (``CookieRules``).
    private func storeCookies(from headers: HTTPHeaders, for url: URL) {
        guard let setCookie = headers["Set-Cookie"], let configuration = session?.configuration,
              configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage,
              storage.cookieAcceptPolicy != .never else { return }
        CookieRules.store(setCookie: setCookie, for: url, in: storage)
    }

    /// `request` with the `Cookie` header the session's storage has for its URL: redirect hops
    /// happen inside HTTPMock, so FoundationNetworking does not add it.
    private func withCookies(_ request: MockRequest) -> MockRequest {
        guard let configuration = session?.configuration, configuration.httpShouldSetCookies,
              let stored = configuration.httpCookieStorage?.cookies(for: request.url) else { return request }
        // The storage's `cookies(for:)` ignores `Path`, `Secure` and expiry.
        let cookies = stored.filter { CookieRules.sends($0, to: request.url) }
        var headers = request.headers
        headers["Cookie"] = cookies.isEmpty ? nil : HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
        return MockRequest(method: request.method, url: request.url, headers: headers, body: request.body)
    }

    // MARK: - Timing

    /// Runs `body` on the work queue after `seconds` (at once when 0); never when `nil`.
    private func after(_ seconds: TimeInterval?, _ body: @escaping @Sendable (Exchange) -> Void) {
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
            fail(HTTPMockError(.unsupportedTask, "HTTPMock could not reach the task's work queue to delay the response; see Docs/LinuxNotes.md"))
            return
        }
        armDeadlines()
        startTimer(after: seconds, on: workQueue, register: { state, timer in
            state.timers.append(timer)
            return true
        }, fired: { exchange, timer in
            exchange.state.withLock { state in state.timers.removeAll { ($0 as AnyObject) === (timer as AnyObject) } }
            body(exchange)
        })
    }

    /// Makes a one-shot timer on `queue`, registers it with `register` under the state lock
    /// (refused once the exchange is closed), and starts it. A refused timer is started and
    /// cancelled at once: libdispatch traps when a source that was never activated is released.
    private func startTimer(after seconds: TimeInterval, on queue: DispatchQueue,
                            register: (inout State, DispatchSourceTimer) -> Bool,
                            fired: @escaping @Sendable (Exchange, DispatchSourceTimer) -> Void) {
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
    private func armDeadlines() {
        let alreadyArmed = state.withLock { state -> Bool in
            defer { state.deadlinesArmed = true }
            return state.deadlinesArmed || state.isClosed
        }
        guard !alreadyArmed, let workQueue else { return }
        let configuration = session?.configuration
        let total = [settings.timeout, configuration?.timeoutIntervalForResource].compactMap { $0 }.filter { $0 > 0 }.min()
        if let total {
            startTimer(after: total, on: workQueue, register: { state, timer in
                state.timers.append(timer)
                return true
            }, fired: { exchange, _ in exchange.timeOut(after: total, what: "HTTPMock's timeout") })
        }
        resetIdleTimer()
    }

    private var requestTimeout: TimeInterval? {
        [urlProtocol.request.timeoutInterval, session?.configuration.timeoutIntervalForRequest].compactMap { $0 }.filter { $0 > 0 }.min()
    }

    private func resetIdleTimer() {
        guard let limit = requestTimeout, let workQueue else { return }
        var previous: DispatchSourceTimer?
        startTimer(after: limit, on: workQueue, register: { state, timer in
            guard state.deadlinesArmed else { return false }
            previous = state.idleTimer
            state.idleTimer = timer
            return true
        }, fired: { exchange, _ in exchange.timeOut(after: limit, what: "the request's timeout") })
        previous?.cancel()
    }

    /// Stops the request timeout until the next `resetIdleTimer()`.
    private func pauseIdleTimer() {
        let paused = state.withLock { state -> DispatchSourceTimer? in
            defer { state.idleTimer = nil }
            return state.idleTimer
        }
        paused?.cancel()
    }

    private func timeOut(after seconds: TimeInterval, what: String) {
        guard !isClosed else { return }
        fail(URLError(.timedOut, userInfo: [
            NSLocalizedDescriptionKey: "The request timed out: no answer within \(seconds) s (\(what)).",
            NSURLErrorFailingURLErrorKey: urlProtocol.request.url ?? URL(fileURLWithPath: "/"),
        ]))
    }

    // MARK: - Client access and the gate

    private var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Calls `body` with the client unless the exchange is closed; restarts the idle timeout.
    /// Runs on the work queue, where `stopLoading` also runs, so the check and the call cannot
    /// interleave with a cancellation.
    @discardableResult
    private func send(_ body: (any URLProtocolClient, URLProtocol) -> Void) -> Bool {
        let (closed, armed) = state.withLock { ($0.isClosed, $0.deadlinesArmed) }
        guard !closed else { return false }
        body(client, urlProtocol)
        if armed { resetIdleTimer() }
        return true
    }

    private func fail(_ error: any Error) {
        recordOutcome(statusCode: nil, error: error)
        send { client, urlProtocol in client.urlProtocol(urlProtocol, didFailWithError: error) }
        close()
    }

    private func recordOutcome(statusCode: Int?, error: (any Error)?) {
        let id = state.withLock { $0.journalID }
        registry.recordOutcome(journalID: id, statusCode: statusCode, error: error)
    }

    private func recordOutcomeIfPending(statusCode: Int) {
        let pending = state.withLock { state -> Bool in
            defer { state.outcomePending = false }
            return state.outcomePending
        }
        if pending { recordOutcome(statusCode: statusCode, error: nil) }
    }

    /// Closes the gate: nothing reaches the client after this; timers, handlers, network
    /// requests and files are released.
    private func close() {
        let released = state.withLock { state -> Released? in
            guard !state.isClosed else { return nil }
            state.isClosed = true
            defer {
                state.timers = []
                state.idleTimer = nil
                state.file = nil
                state.dynamicTask = nil
                state.networkTask = nil
                state.heldAt = nil
            }
            return Released(timers: state.timers, idleTimer: state.idleTimer, file: state.file, readQueue: state.readQueue,
                            dynamicTask: state.dynamicTask, networkTask: state.networkTask, heldAt: state.heldAt)
        }
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
        urlProtocol.exchangeDidClose()
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

    // MARK: - Task internals, resolved once

    private var workQueue: DispatchQueue? {
        if let cached = state.withLock({ $0.workQueue }) { return cached }
        let queue = task.flatMap(TaskInternals.workQueue(of:))
        state.withLock { $0.workQueue = .some(queue) }
        return queue
    }

    private var session: URLSession? {
        if let cached = state.withLock({ $0.session }) { return cached }
        let session = task.flatMap(TaskInternals.session(of:))
        state.withLock { $0.session = .some(session) }
        return session
    }

    private var reportsToDelegate: Bool {
        guard let task, let session else { return false }
        return TaskInternals.reportsToDelegate(task, in: session)
    }
}

/// Carries a non-Sendable value through a `@Sendable` closure between the delegate queue and
/// the task's work queue. `@unchecked`: the value is only used on one queue at a time.
private struct Carried<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A weak reference to an exchange that a `@Sendable` closure can carry.
private final class WeakExchange: @unchecked Sendable {
    // @unchecked: a weak reference is read and cleared atomically by the Swift runtime.
    weak var value: Exchange?
    init(_ value: Exchange) { self.value = value }
}

/// A passthrough answer, carried from the passthrough session's queue to the work queue.
private struct Relayed: @unchecked Sendable {
    // @unchecked: `URLResponse` is immutable once received; read only on the work queue.
    let data: Data?
    let response: URLResponse?
    let error: (any Error)?
}

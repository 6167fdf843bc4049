import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Exchange's event streams: server-sent events, fixed or from a sequence handler.

extension Exchange {
    // MARK: - Event streams

    /// Sends the response head, then each event when its time comes: to a delegate-driven task
    /// in its own `didLoad`, to any other task all together at the end (it keeps only the last
    /// `didLoad`). Each event restarts the request timeout, as bytes from a server would.
    func streamEvents(
        _ source: MockResponse.EventSource, head: ResponsePlan.Head, served: ServedResponse, to request: MockRequest
    ) {
        guard
            let response = HTTPURLResponse(
                url: request.url, statusCode: head.status.code, httpVersion: "HTTP/1.1", headerFields: served.headerFields)
        else {
            fail(URLError(.badServerResponse))
            return
        }
        recordServed(served)
        guard head.allowsBody else {
            send { client, urlProtocol in
                client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
                client.urlProtocolDidFinishLoading(urlProtocol)
            }
            close()
            return
        }
        guard let workQueue else {
            fail(
                HTTPMockError(
                    .unsupportedTask,
                    "HTTPMock could not reach the task's work queue to stream events; see Docs/HTTPMock.docc/LinuxNotes.md"))
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
        emit(event.framed, incremental: incremental)
        let rest = events.dropFirst()
        if rest.isEmpty {
            finishEvents(incremental: incremental)
        } else {
            after(interval) { $0.sendFixedEvents(rest, interval: interval, incremental: incremental) }
        }
    }

    private func runEventSequence(
        _ handler: MockResponse.EventSequenceHandler, for request: MockRequest,
        incremental: Bool, on workQueue: DispatchQueue
    ) {
        // Held weakly, as a dynamic handler's task: a sequence that never ends must not keep the
        // exchange alive after the request timed out or was cancelled (which cancels the task).
        let weakSelf = WeakExchange(self)
        let sink = MockResponse.EventSink { event in
            await withCheckedContinuation { continuation in
                workQueue.async {
                    guard let exchange = weakSelf.value, !exchange.isClosed else { return continuation.resume(returning: false) }
                    let framed: String
                    do {
                        framed = try event.framed(for: request)
                    } catch {
                        exchange.fail(error)
                        return continuation.resume(returning: false)
                    }
                    exchange.emit(framed, incremental: incremental)
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
    private func emit(_ framed: String, incremental: Bool) {
        let bytes = Data(framed.utf8)
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
}

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Exchange's HTTP responses: redirects followed, bodies delivered whole, throttled or in chunks.

extension Exchange {
    // MARK: - HTTP responses

    func respond(_ http: MockResponse.HTTPPayload, to request: MockRequest, hop: Int, rate: Int?) {
        // A prepared payload already holds its header fields; `Set-Cookie` and `Location` can
        // only come from the user's headers, so those are all that need looking at.
        let headers = http.preparedHeaderFields == nil ? http.effectiveHeaders : http.headers
        storeCookies(from: headers, for: request.url)

        if Redirects.isRedirect(http.status), state.withLock({ $0.settings.value.followsRedirects }),
            let location = headers["Location"], let next = Redirects.request(following: location, status: http.status, from: request)
        {
            guard hop < Self.maximumRedirects else {
                fail(
                    URLError(
                        .httpTooManyRedirects,
                        userInfo: [
                            NSLocalizedDescriptionKey:
                                "HTTPMock followed \(Self.maximumRedirects) redirects from \(request.url.absoluteString) and stopped",
                            NSURLErrorFailingURLErrorKey: request.url,
                        ]))
                return
            }
            recordServed(ServedResponse(statusCode: http.status.code, headerFields: headers.dictionary, body: .none, date: Date()))
            let response = HTTPURLResponse(
                url: request.url, statusCode: http.status.code, httpVersion: "HTTP/1.1", headerFields: headers.dictionary)
            askDelegateToRedirect(response: response, to: withCookies(next)) { exchange, approved in
                if let approved {
                    exchange.resolveAndServe(approved, hop: hop + 1)
                } else {
                    exchange.deliver(http, to: request, rate: rate)
                }
            }
            return
        }
        deliver(http, to: request, rate: rate)
    }

    /// Sends `http` as its plan's head says (``ResponsePlan/head(of:to:framing:)``): whole,
    /// throttled or in chunks.
    func deliver(_ http: MockResponse.HTTPPayload, to request: MockRequest, rate: Int?) {
        let head: ResponsePlan.Head
        do {
            head = try ResponsePlan.head(of: http, to: request.method, framing: .declared)
        } catch {
            fail(error)
            return
        }
        if case .events(let source) = http.body {
            streamEvents(source, head: head, served: head.served(http.body), to: request)
            return
        }
        let body = head.body
        let served = head.served(http.body)
        guard
            let response = HTTPURLResponse(
                url: request.url, statusCode: http.status.code, httpVersion: "HTTP/1.1", headerFields: served.headerFields)
        else {
            fail(URLError(.badServerResponse))
            return
        }
        recordServed(served)
        guard head.sendsBody else {
            send { client, urlProtocol in Self.sendComplete(response, body: nil, to: client, from: urlProtocol) }
            close()
            return
        }
        let chunked = (rate != nil || body.isFile && body.size > ResponsePlan.largestChunk) && reportsToDelegate
        if chunked {
            let reader: BodyReader
            do {
                reader = try body.reader()
            } catch {
                fail(error)
                return
            }
            guard let workQueue, let delegateQueue = session?.delegateQueue else {
                fail(
                    HTTPMockError(
                        .unsupportedTask,
                        "HTTPMock could not reach the task's work queue to stream its body; see Docs/HTTPMock.docc/LinuxNotes.md"
                    ))
                return
            }
            let stream = ChunkStream(
                readQueue: DispatchQueue(label: "HTTPMock.Exchange.read"), workQueue: workQueue, delegateQueue: delegateQueue,
                chunkSize: ResponsePlan.chunkSize(bytesPerSecond: rate),
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
            send { client, urlProtocol in Self.sendComplete(response, body: data, to: client, from: urlProtocol) }
            close()
            return
        }
        // Throttled: the whole body when its time at this rate is up.
        send { client, urlProtocol in client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed) }
        after(ResponsePlan.due(afterSending: data.count, bytesPerSecond: rate)) { exchange in
            exchange.send { client, urlProtocol in
                client.urlProtocol(urlProtocol, didLoad: data)
                client.urlProtocolDidFinishLoading(urlProtocol)
            }
            exchange.close()
        }
    }

    /// The client calls of a whole response: its head, the body in one `didLoad` (none for
    /// `nil`: HEAD, 204, an empty body), the end. Also how ``MockURLProtocol`` answers without
    /// an exchange.
    static func sendComplete(_ response: HTTPURLResponse, body: Data?, to client: any URLProtocolClient, from urlProtocol: URLProtocol) {
        client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
        if let body { client.urlProtocol(urlProtocol, didLoad: body) }
        client.urlProtocolDidFinishLoading(urlProtocol)
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
                let due = stream.rate.map { stream.started + ResponsePlan.due(afterSending: total, bytesPerSecond: $0) } ?? .now()
                let wait = max(0, Double(Int64(due.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1e9)
                self.after(wait) { exchange in exchange.readChunk(next, stream: stream, sent: total) }
            }
        }
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLProtocol` that answers an instance's requests from its registry.
///
/// FoundationNetworking rules this class follows (Docs/LinuxNotes.md has the evidence):
/// - every client call happens on the task's own serial work queue: synchronously inside
///   `startLoading`, or hopped back onto `TaskInternals.workQueue(of:)` for streamed bodies;
///   client calls from any other queue crash once two tasks run;
/// - nothing reaches the client after the request finished or after `stopLoading`
///   (FoundationNetworking `fatalError`s on it): ``Exchange`` is a one-shot gate;
/// - a response is always sent before finishing (finishing without one crashes `data(for:)`);
/// - completion-handler and async tasks keep only the *last* `didLoad` chunk, so they get the
///   body in one `didLoad`; only delegate-driven tasks get a file body in chunks.
class MockURLProtocol: URLProtocol {
    private let exchange = Locked(Exchange())

    /// Lifecycle of one request: `open` until finished, failed or stopped; then nothing more
    /// may reach the client.
    private struct Exchange {
        var isClosed = false
        var file: FileHandle?
    }

    /// Size of the chunks a file body is streamed in to delegate-driven tasks.
    static let fileChunkSize = 256 * 1024

    override class func canInit(with request: URLRequest) -> Bool {
        // `false` would send the request to the real network on FoundationNetworking, even
        // when the session lists only this class. Unmatched requests are handled by the policy.
        guard let scheme = request.url?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        let mockRequest = RequestReader.mockRequest(from: request, task: task)
        guard let registry = InstanceTable.registry(for: type(of: self)) else {
            fail(HTTPMockError(.instanceDeallocated,
                               "\(mockRequest) reached the protocol class of an HTTPMock instance that no longer exists; keep the instance alive as long as its sessions"))
            return
        }
        #if canImport(FoundationNetworking)
        if task is URLSessionDownloadTask {
            let error = URLError(.unsupportedURL, userInfo: [
                NSLocalizedDescriptionKey: "HTTPMock cannot serve download tasks on Linux: FoundationNetworking crashes when a URLProtocol answers one. Use data(for:) or a data task and write the data to a file.",
                NSURLErrorFailingURLErrorKey: mockRequest.url,
            ])
            registry.recordUnserved(mockRequest, error: error)
            fail(error)
            return
        }
        #endif
        let resolution = registry.resolve(mockRequest)
        switch resolution.answer {
        case .matched(_, let response):
            serve(response, to: resolution.request)
        case .unmatched(let policy):
            serve(policy.response(for: resolution.request), to: resolution.request)
        }
    }

    override func stopLoading() {
        close()
    }

    // MARK: - Serving

    private func serve(_ response: MockResponse, to request: MockRequest) {
        switch response.payload {
        case .failure(let error):
            fail(error)
        case .invalid(let message, _):
            fail(HTTPMockError(.invalidRegistration, message))
        case .http(let http):
            let status = http.status
            let headers = http.effectiveHeaders
            let sendsBody = !status.forbidsBody && request.method != .head
            switch http.body {
            case .none:
                send(status: status, headers: headers, body: nil, contentLength: 0, sendsBody: sendsBody, to: request)
            case .data(let data):
                send(status: status, headers: headers, body: data, contentLength: data.count, sendsBody: sendsBody, to: request)
            case .file(let url):
                serveFile(url, status: status, headers: headers, sendsBody: sendsBody, to: request)
            }
        }
    }

    private func httpResponse(status: HTTPStatus, headers: HTTPHeaders, contentLength: Int?, to request: MockRequest) -> HTTPURLResponse? {
        var headers = headers
        if let contentLength, !status.forbidsBody, !headers.contains("Content-Length") {
            headers["Content-Length"] = String(contentLength)
        }
        return HTTPURLResponse(url: request.url, statusCode: status.code, httpVersion: "HTTP/1.1", headerFields: headers.dictionary)
    }

    private func send(status: HTTPStatus, headers: HTTPHeaders, body: Data?, contentLength: Int, sendsBody: Bool, to request: MockRequest) {
        guard let response = httpResponse(status: status, headers: headers, contentLength: contentLength, to: request) else {
            fail(URLError(.badServerResponse))
            return
        }
        withClient { client in
            client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            if sendsBody, let body, !body.isEmpty {
                client.urlProtocol(self, didLoad: body)
            }
            client.urlProtocolDidFinishLoading(self)
        }
        close()
    }

    private func serveFile(_ url: URL, status: HTTPStatus, headers: HTTPHeaders, sendsBody: Bool, to request: MockRequest) {
        let size: Int
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        } catch {
            fail(fileError(url, error))
            return
        }
        // Delegate-driven tasks get the file in chunks read from disk (bounded memory), paced
        // by the delegate queue. Completion-handler and async tasks keep only the last chunk, so
        // they get one memory-mapped `Data`.
        if sendsBody, size > Self.fileChunkSize,
           let task, let session = TaskInternals.session(of: task), let workQueue = TaskInternals.workQueue(of: task),
           TaskInternals.reportsToDelegate(task, in: session) {
            streamFile(url, size: size, status: status, headers: headers, to: request,
                       workQueue: workQueue, delegateQueue: session.delegateQueue)
            return
        }
        let data: Data?
        if sendsBody {
            do {
                data = try Data(contentsOf: url, options: .alwaysMapped)
            } catch {
                fail(fileError(url, error))
                return
            }
        } else {
            data = nil
        }
        send(status: status, headers: headers, body: data, contentLength: size, sendsBody: sendsBody, to: request)
    }

    private func streamFile(_ url: URL, size: Int, status: HTTPStatus, headers: HTTPHeaders, to request: MockRequest,
                            workQueue: DispatchQueue, delegateQueue: OperationQueue) {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            fail(fileError(url, error))
            return
        }
        guard let response = httpResponse(status: status, headers: headers, contentLength: size, to: request) else {
            try? handle.close()
            fail(URLError(.badServerResponse))
            return
        }
        exchange.withLock { $0.file = handle }
        withClient { client in
            client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        }
        sendNextChunk(from: handle, workQueue: workQueue, delegateQueue: delegateQueue)
    }

    /// Runs on the task's work queue. After handing a chunk to the client, waits for the delegate
    /// queue to drain past it before reading the next one, so at most a couple of chunks are in
    /// memory however slow the delegate is.
    private func sendNextChunk(from handle: FileHandle, workQueue: DispatchQueue, delegateQueue: OperationQueue) {
        let chunk: Data
        do {
            chunk = try handle.read(upToCount: Self.fileChunkSize) ?? Data()
        } catch {
            fail(HTTPMockError(.fixtureUnreadable, "HTTPMock could not read the response file: \(error)"))
            return
        }
        if chunk.isEmpty {
            withClient { client in client.urlProtocolDidFinishLoading(self) }
            close()
            return
        }
        let delivered = withClient { client in client.urlProtocol(self, didLoad: chunk) }
        guard delivered else { return }
        let next = WorkQueueBound(protocol: self, handle: handle)
        delegateQueue.addOperation {
            workQueue.async {
                next.protocol.sendNextChunk(from: next.handle, workQueue: workQueue, delegateQueue: delegateQueue)
            }
        }
    }

    private func fileError(_ url: URL, _ error: any Error) -> HTTPMockError {
        HTTPMockError(.fixtureUnreadable, "HTTPMock could not read the response file \(url.path) when serving \(request.url?.absoluteString ?? "?"): \(error)")
    }

    // MARK: - Client access

    /// Calls `body` with the client unless the exchange is closed.
    /// - Returns: whether `body` ran.
    @discardableResult
    private func withClient(_ body: (any URLProtocolClient) -> Void) -> Bool {
        let isClosed = exchange.withLock { $0.isClosed }
        guard !isClosed, let client else { return false }
        body(client)
        return true
    }

    private func fail(_ error: any Error) {
        withClient { client in client.urlProtocol(self, didFailWithError: error) }
        close()
    }

    /// Closes the gate: nothing reaches the client after this, and an open file is released.
    private func close() {
        let file = exchange.withLock { state -> FileHandle? in
            state.isClosed = true
            defer { state.file = nil }
            return state.file
        }
        try? file?.close()
    }
}

/// Carries a protocol and its open file from the delegate queue back to the task's work queue.
///
/// `@unchecked Sendable`: `URLProtocol` is not `Sendable`, but both values are only *used* on
/// the task's serial work queue; the delegate queue merely passes them along.
private struct WorkQueueBound: @unchecked Sendable {
    let `protocol`: MockURLProtocol
    let handle: FileHandle
}

extension UnmockedPolicy {
    /// The response this policy gives `request`.
    func response(for request: MockRequest) -> MockResponse {
        switch kind {
        case .notFound:
            return .plaintext("No mock for \(request.method) \(request.url.absoluteString)", status: .notFound)
        case .mock(let response):
            return response
        case .fail(let code):
            return .failure(URLError(code, userInfo: [
                NSLocalizedDescriptionKey: "No mock for \(request.method) \(request.url.absoluteString)",
                NSURLErrorFailingURLErrorKey: request.url,
            ]))
        }
    }
}

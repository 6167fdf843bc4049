import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Exchange's passthrough: the request forwarded to the network and the answer relayed.

extension Exchange {
    // MARK: - Passthrough

    func runPassthrough(_ request: MockRequest, rate: Int?) {
        guard let workQueue else {
            fail(
                HTTPMockError(
                    .unsupportedTask,
                    "HTTPMock could not reach the task's work queue to pass the request through; see Docs/HTTPMock.docc/LinuxNotes.md"
                ))
            return
        }
        state.withLock { $0.outcomePending = true }
        armDeadlines()
        // Not on the work queue: every FoundationNetworking session's work queue targets one
        // shared queue, and creating, resuming or cancelling a task `sync`s onto it, which from
        // inside a work queue is a deadlock that libdispatch turns into a crash.
        let session = registry.passthroughSession
        let forwardedRequest = ResponsePlan.upstreamRequest(for: request)
        DispatchQueue.global().async {
            let networkTask = session.dataTask(with: forwardedRequest) { data, response, error in
                let relayed = Relayed(data: data, response: response, error: error)
                workQueue.async { self.finishPassthrough(relayed, for: request, rate: rate) }
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

    private func finishPassthrough(_ relayed: Relayed, for request: MockRequest, rate: Int?) {
        guard !isClosed else { return }
        if let error = relayed.error {
            fail(error)
            return
        }
        guard let real = relayed.response as? HTTPURLResponse else {
            fail(URLError(.badServerResponse))
            return
        }
        let headers = ResponsePlan.relayedHeaders(of: real)
        let http = MockResponse.HTTPPayload(
            status: HTTPStatus(real.statusCode), headers: headers, body: .data(relayed.data ?? Data()), defaultContentType: nil,
            preparedHeaderFields: nil)
        // The network may have followed redirects: the client sees the final URL, as without HTTPMock.
        let answered =
            real.url.map { MockRequest(method: request.method, url: $0, headers: request.headers, body: request.body) } ?? request
        storeCookies(from: headers, for: answered.url)
        deliver(http, to: answered, rate: rate)
    }
}

/// A passthrough answer, carried from the passthrough session's queue to the work queue.
private struct Relayed: @unchecked Sendable {
    // @unchecked: `URLResponse` is immutable once received; read only on the work queue.
    let data: Data?
    let response: URLResponse?
    let error: (any Error)?
}

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Exchange's dynamic responses: the handler's task and its answer.

extension Exchange {
    // MARK: - Dynamic responses

    func runDynamic(_ handler: DynamicHandler, for request: MockRequest, hop: Int, delivery: Delivery) {
        guard let workQueue else {
            fail(
                HTTPMockError(
                    .unsupportedTask,
                    "HTTPMock could not reach the task's work queue to run a dynamic response; see Docs/HTTPMock.docc/LinuxNotes.md"
                ))
            return
        }
        state.withLock { $0.outcomePending = true }
        armDeadlines()
        // The task holds the exchange weakly: a handler that never returns must not keep the
        // protocol, its client and its task alive after the request timed out or was cancelled.
        let weakSelf = WeakExchange(self)
        let task = Task {
            // No timeout of its own: the request-wide deadline armed above bounds the handler.
            let result = await ResponsePlan.runHandler(handler, for: request, timeout: 0)
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
}

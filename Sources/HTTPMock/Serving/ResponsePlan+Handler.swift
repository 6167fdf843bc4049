import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The plan's handler step and the journaling of a late outcome, for both transports: the server runs it under the instance's
// timeout; the in-process transport passes no timeout, because its request-wide deadline
// (`Exchange.armDeadlines`, URLSession's semantics: the instance's timeout bounds the whole
// request, delays and redirects included) already bounds the handler.

extension ResponsePlan {
    /// Journals on entry `journalID` what the client is sent (for `exportHAR`) and, when the
    /// outcome was not known at resolution (`outcomePending`: a handler's or upstream answer),
    /// its status as the request's outcome, in one critical section.
    static func journal(_ served: ServedResponse, journalID: Int, outcomePending: Bool, in registry: Registry) {
        registry.recordServed(journalID: journalID, served, outcome: outcomePending ? served.statusCode : nil)
    }

    /// Runs a dynamic handler (the plan's ``Step/runHandler(_:delivery:)``); with a `timeout`
    /// > 0 gives up after that many seconds (the handler's task is cancelled and its late answer
    /// dropped). Cancelling the calling task abandons the handler the same way.
    static func runHandler(
        _ handler: DynamicHandler, for request: MockRequest, timeout: TimeInterval
    ) async -> Result<MockResponse, any Error> {
        let race = FirstResult<Result<MockResponse, any Error>>()
        let work = Task {
            do {
                race.finish(.success(try await handler.handler(request)))
            } catch {
                race.finish(.failure(error))
            }
        }
        let deadline: Task<Void, Never>? =
            timeout > 0
            ? Task {
                guard (try? await WaitTime.sleep(timeout)) != nil else { return }
                race.finish(
                    .failure(
                        URLError(
                            .timedOut,
                            userInfo: [
                                NSLocalizedDescriptionKey:
                                    "The dynamic response for \(request) did not answer within \(timeout) s (HTTPMock's timeout)."
                            ])))
            } : nil
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { race.wait($0) }
        } onCancel: {
            race.finish(.failure(URLError(.cancelled)))
        }
        work.cancel()
        deadline?.cancel()
        return result
    }
}

/// The first of several results (a handler's answer, its deadline, a cancellation; a gate's
/// release or a cancellation), handed to one waiter whether it arrives before or after the waiter.
final class FirstResult<Value: Sendable>: Sendable {
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

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The journal: what each request was answered with, recorded as the transports report it.

extension Registry {
    /// Journals a request that the transport answered without a lookup (an unsupported task).
    func recordUnserved(_ request: MockRequest, error: any Error) {
        let date = Date()
        state.withLock { state in
            _ = state.appendJournal(request, isMatched: false, route: nil, outcome: (nil, error), date: date) { entry in
                entry.countsAsMiss = true
                entry.nearMissReport = "\(request) was not served: \((error as? URLError)?.localizedDescription ?? "\(error)")"
            }
        }
        waiters.journaled { journal }
    }

    /// Records on journal entry `id` what the client finally received, when that differs from
    /// what the lookup knew (a dynamic or passthrough answer, a timeout, a cancellation).
    func recordOutcome(journalID id: Int, statusCode: Int?, error: (any Error)?) {
        updateJournal(id) { entry in
            entry.statusCode = statusCode
            entry.error = error
        }
    }

    /// Keeps on journal entry `id` the response the client received (for `exportHAR`).
    /// With `outcome`, also records it as ``recordOutcome(journalID:statusCode:error:)`` does,
    /// in the same critical section.
    func recordServed(journalID id: Int, _ served: ServedResponse, outcome statusCode: Int? = nil) {
        state.withLock { state in
            guard let index = state.journal.lastIndex(where: { $0.id == id }) else { return }
            state.journal[index].served = served
            defer { state.journalLimits.enforce(on: &state.journal) }
            guard let statusCode else { return }
            state.journal[index].statusCode = statusCode
            state.journal[index].error = nil
            if let missIndex = state.unreportedMisses.lastIndex(where: { $0.id == id }) {
                state.unreportedMisses[missIndex].statusCode = statusCode
                state.unreportedMisses[missIndex].error = nil
            }
        }
    }

    func updateJournal(_ id: Int, _ update: (inout RecordedRequest) -> Void) {
        state.withLock { state in
            guard let index = state.journal.lastIndex(where: { $0.id == id }) else { return }
            update(&state.journal[index])
            if let missIndex = state.unreportedMisses.lastIndex(where: { $0.id == id }) {
                update(&state.unreportedMisses[missIndex])
            }
        }
    }

    /// A snapshot of the journal (the chunks are shared, not copied, under the lock).
    var journal: Journal { state.withLock { $0.journal } }
}

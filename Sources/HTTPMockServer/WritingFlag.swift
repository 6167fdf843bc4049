#if Server
import NIOConcurrencyHelpers

/// Whether a request's task has started writing its response; the event loop writes an interim
/// response only before that (the task's writes reach the loop after the flag is set).
final class WritingFlag: Sendable {
    private let started = NIOLockedValueBox(false)

    func start() { started.withLockedValue { $0 = true } }

    /// Runs `body` (on the event loop) unless writing has started, holding the flag meanwhile.
    func unlessStarted(_ body: () -> Void) {
        started.withLockedValue { started in
            if !started { body() }
        }
    }
}
#endif

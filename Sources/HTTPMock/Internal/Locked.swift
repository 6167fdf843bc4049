import Foundation

/// A value that is only reachable while holding its lock.
///
/// One lock per logical owner, one critical section per logical operation: callers
/// do everything that must be atomic (for example *match and pop*) inside a single
/// `withLock`. Never call a `URLProtocolClient` or a user closure from inside it.
final class Locked<State>: @unchecked Sendable {
    // @unchecked: `state` is only touched inside `withLock`, which holds `lock`.
    private var state: State
    private let lock = NSLock()

    init(_ state: State) {
        self.state = state
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

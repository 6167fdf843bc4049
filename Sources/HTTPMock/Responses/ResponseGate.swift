import Foundation

/// A switch the test flips to let held responses through: `delivery: .held(gate)` makes a
/// response wait until ``release()`` is called.
///
/// Use it to test what the code under test shows *while* a request is in flight (a loading
/// spinner, a disabled button) and to order races deterministically, without sleeps.
///
/// ```swift
/// let gate = ResponseGate()
/// mock.addResponses(forPath: "/profile", responses: [.encodable(profile, delivery: .held(gate))])
/// let load = Task { await model.load() }
/// _ = try await mock.waitForRequest(to: "/profile", timeout: 2)
/// #expect(model.isLoading)          // the response is held
/// gate.release()
/// await load.value
/// #expect(!model.isLoading)
/// ```
///
/// A gate is `Sendable` and may hold any number of responses, of any instances. ``release()`` is
/// idempotent and a released gate stays open: a response held by it later is delivered at once.
/// Held requests keep their timeouts and can be cancelled; a gate released after its request
/// timed out or was cancelled delivers nothing to it.
public final class ResponseGate: Sendable, Hashable, CustomStringConvertible {
    private struct State {
        var isOpen = false
        var nextToken = 0
        /// What runs when the gate opens, in the order the responses arrived at it.
        var waiting: [(token: Int, run: @Sendable () -> Void)] = []
    }

    private let state = Locked(State())

    /// A closed gate.
    public init() {}

    /// Opens the gate: every response held by it goes on (each after its own timeout and
    /// cancellation checks), and so does every response held by it later. Calling it again does
    /// nothing.
    public func release() {
        let released = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.isOpen else { return [] }
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting.map(\.run)
        }
        for run in released { run() }
    }

    /// Whether ``release()`` has been called.
    public var isReleased: Bool { state.withLock { $0.isOpen } }

    /// How many responses are held by this gate right now (waiting, not timed out or cancelled).
    public var heldCount: Int { state.withLock { $0.waiting.count } }

    /// Whether the gate is released, or how many responses it holds.
    public var description: String {
        let (open, held) = state.withLock { ($0.isOpen, $0.waiting.count) }
        return open ? "ResponseGate(released)" : "ResponseGate(closed, holding \(held))"
    }

    public static func == (lhs: ResponseGate, rhs: ResponseGate) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// Runs `body` when the gate opens (at once, on this thread, if it is open). Returns a token
    /// for ``cancelWaiting(_:)``, or `nil` when `body` already ran.
    func whenReleased(_ body: @escaping @Sendable () -> Void) -> Int? {
        let token = state.withLock { state -> Int? in
            guard !state.isOpen else { return nil }
            state.nextToken += 1
            state.waiting.append((state.nextToken, body))
            return state.nextToken
        }
        if token == nil { body() }
        return token
    }

    /// Forgets a waiting response (its request finished, timed out or was cancelled).
    func cancelWaiting(_ token: Int) {
        let removed = state.withLock { state -> [@Sendable () -> Void] in
            guard let index = state.waiting.firstIndex(where: { $0.token == token }) else { return [] }
            return [state.waiting.remove(at: index).run]
        }
        withExtendedLifetime(removed) {}  // released outside the lock: it holds the exchange
    }
}

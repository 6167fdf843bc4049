import Foundation

extension HTTPMock {
    /// Waits until the code under test sends a request to `path` (and, when given, with
    /// `method`), and returns its journal entry: MockWebServer's `takeRequest`, without sleeps.
    ///
    /// ```swift
    /// let gate = ResponseGate()
    /// mock.addResponses(forPath: "/search", responses: [.json("[]", delivery: .held(gate))])
    /// viewModel.search("swift")
    /// let sent = try await mock.waitForRequest(to: "/search", method: .get, timeout: 2)
    /// #expect(sent.request.queryItems == [URLQueryItem(name: "q", value: "swift")])
    /// gate.release()
    /// ```
    ///
    /// Returns the first matching entry, in arrival order, that no earlier `waitForRequest` or
    /// ``waitForRequests(count:timeout:)`` of this instance returned, so consecutive waits
    /// return consecutive requests. An entry already in the journal is returned at once.
    /// Requests are journaled when they arrive, before any delay or gate, so this returns while
    /// the response is still held. The entry is a snapshot: its `statusCode` and `error` are
    /// what was known then (read ``recordedRequests`` later for the outcome).
    ///
    /// No polling: the registry wakes the waiter when it journals a request. Cancelling the
    /// awaiting task ends the wait with `CancellationError`.
    ///
    /// - Parameters:
    ///   - path: The path, normalised as routes are (`/a/`, `a` and `/a` are one path).
    ///   - method: The method, or `nil` for any.
    ///   - timeout: The longest wait, in seconds.
    /// - Returns: The journal entry of the request.
    /// - Throws: An ``HTTPMockError`` with code ``HTTPMockError/Code/timedOutWaiting`` naming
    ///   what was awaited and listing what arrived, when nothing matching arrives in time;
    ///   ``HTTPMockError/Code/invalidRegistration`` for a timeout that is negative or not finite.
    public func waitForRequest(to path: String, method: HTTPMethod? = nil, timeout: TimeInterval) async throws -> RecordedRequest {
        let normalized = RoutePath.normalize(path)
        let awaited = (method.map { "\($0.rawValue) " } ?? "") + normalized
        let entries = try await registry.waiters.wait(
            for: .request(description: "a request to \(awaited)") { entry in
                entry.request.normalizedPath == normalized && (method == nil || entry.request.method == method)
            },
            timeout: timeout, journal: { [registry] in registry.journal })
        return entries[0]
    }

    /// Waits until `count` requests that no earlier wait returned have arrived, and returns
    /// their journal entries in arrival order.
    ///
    /// ```swift
    /// viewModel.refreshAll()   // fires three requests concurrently
    /// let sent = try await mock.waitForRequests(count: 3, timeout: 2)
    /// #expect(Set(sent.map(\.request.url.path)) == ["/a", "/b", "/c"])
    /// ```
    ///
    /// Every journaled request counts, matched or not (each redirect hop is one). See
    /// ``waitForRequest(to:method:timeout:)`` for how waits share the journal.
    ///
    /// - Parameters:
    ///   - count: How many requests to wait for (≥ 1).
    ///   - timeout: The longest wait, in seconds.
    /// - Returns: The entries, oldest first.
    /// - Throws: An ``HTTPMockError`` with code ``HTTPMockError/Code/timedOutWaiting`` naming
    ///   how many were awaited and listing what arrived; ``HTTPMockError/Code/invalidRegistration``
    ///   for a `count` below 1 or a timeout that is negative or not finite.
    public func waitForRequests(count: Int, timeout: TimeInterval) async throws -> [RecordedRequest] {
        guard count > 0 else {
            throw HTTPMockError(.invalidRegistration, "waitForRequests(count: \(count), timeout: \(timeout)): count must be at least 1")
        }
        return try await registry.waiters.wait(
            for: .requests(count: count), timeout: timeout, journal: { [registry] in registry.journal })
    }
}

/// The waits of one instance (`waitForRequest`, `waitForRequests`) and the journal entries they
/// have returned. The registry calls ``journaled(_:)`` after a journal append while anyone
/// waits, outside its lock; a waiter is resumed outside this type's lock too.
///
/// Whether anyone waits is also kept by the registry, in the critical section that journals a
/// request (`announce`), so a request pays no second lock when nobody waits, the usual case.
/// A wait announces itself *before* it reads the journal, under this type's lock: a request
/// journaled before the announcement is in what the wait reads, and one journaled after it
/// sees the announcement and calls ``journaled(_:)``, which waits for this lock. Lock order:
/// this type's lock, then the registry's, never the other way.
final class JournalWaiters: Sendable {
    enum Want: Sendable {
        case request(description: String, matches: @Sendable (RecordedRequest) -> Bool)
        case requests(count: Int)

        var description: String {
            switch self {
            case .request(let description, _): return description
            case .requests(let count): return count == 1 ? "1 request" : "\(count) requests"
            }
        }
    }

    private struct Waiter {
        let id: Int
        let want: Want
        let continuation: CheckedContinuation<[RecordedRequest], any Error>
    }

    private struct State {
        var waiters: [Waiter] = []
        var nextID = 0
        /// Journal entries an earlier wait returned.
        var taken: Set<Int> = []
        /// IDs of waits cancelled before their continuation was stored.
        var cancelledEarly: Set<Int> = []
    }

    private let state = Locked(State())

    /// Tells the registry whether anyone waits; called under this type's lock.
    private let announce: @Sendable (Bool) -> Void

    init(announce: @escaping @Sendable (Bool) -> Void) {
        self.announce = announce
    }

    func wait(for want: Want, timeout: TimeInterval, journal: @escaping @Sendable () -> Journal) async throws -> [RecordedRequest] {
        guard timeout.isFinite, timeout >= 0 else {
            throw HTTPMockError(
                .invalidRegistration,
                "Waiting for \(want.description): the timeout is \(timeout); it must be a finite number of seconds ≥ 0")
        }
        // A dispatch deadline traps past Int64 nanoseconds: a year is as good as for ever here.
        let timeout = min(timeout, 365 * 86_400)
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Checking the journal and registering happen under this lock, and the registry
                // notifies after appending: an entry journaled meanwhile is seen by one or the other.
                let outcome = state.withLock { state -> Result<[RecordedRequest], any Error>? in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    announce(true)  // before reading the journal (see the type's comment)
                    if let found = Self.take(want, from: journal(), state: &state) {
                        announce(!state.waiters.isEmpty)
                        return .success(found)
                    }
                    state.waiters.append(Waiter(id: id, want: want, continuation: continuation))
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                    return
                }
                let deadline = DispatchTime.now() + timeout
                DispatchQueue.global().asyncAfter(deadline: deadline) { [weak self] in
                    self?.timeOut(id, want: want, after: timeout, journal: journal())
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                defer { if state.waiters.isEmpty { announce(false) } }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Called by the registry after journaling a request while anyone waits, outside its lock.
    func journaled(_ journal: () -> Journal) {
        let satisfied = state.withLock { state -> [(Waiter, [RecordedRequest])] in
            guard !state.waiters.isEmpty else { return [] }
            let entries = journal()
            var satisfied: [(Waiter, [RecordedRequest])] = []
            var index = 0
            while index < state.waiters.count {
                let waiter = state.waiters[index]
                if let found = Self.take(waiter.want, from: entries, state: &state) {
                    state.waiters.remove(at: index)
                    satisfied.append((waiter, found))
                } else {
                    index += 1
                }
            }
            if state.waiters.isEmpty { announce(false) }
            return satisfied
        }
        for (waiter, found) in satisfied { waiter.continuation.resume(returning: found) }
    }

    /// Removes the wait and throws its timeout error, unless it was satisfied or cancelled.
    private func timeOut(_ id: Int, want: Want, after timeout: TimeInterval, journal: Journal) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            defer { if state.waiters.isEmpty { announce(false) } }
            return state.waiters.remove(at: index)
        }
        guard let waiter else { return }
        let arrived: String
        if journal.isEmpty {
            arrived = "no request arrived"
        } else {
            let shown = journal.suffix(20).map { "  \($0.request.method.rawValue) \($0.request.url.absoluteString)" }
            arrived =
                "\(journal.count) request(s) in the journal" + (journal.count > 20 ? " (the last 20)" : "") + ":\n"
                + shown.joined(separator: "\n")
        }
        waiter.continuation.resume(
            throwing: HTTPMockError(
                .timedOutWaiting, "Waited \(timeout) s for \(want.description) that no earlier wait returned; \(arrived)"))
    }

    /// The entries that satisfy `want` among those no wait has taken, marked as taken; `nil`
    /// (nothing marked) when there are not enough yet.
    private static func take(_ want: Want, from journal: Journal, state: inout State) -> [RecordedRequest]? {
        let found: [RecordedRequest]
        switch want {
        case .request(_, let matches):
            guard let entry = journal.first(where: { !state.taken.contains($0.id) && matches($0) }) else { return nil }
            found = [entry]
        case .requests(let count):
            let taken = state.taken
            let untaken = Array(journal.lazy.filter { !taken.contains($0.id) }.prefix(count))
            guard untaken.count == count else { return nil }
            found = untaken
        }
        for entry in found { state.taken.insert(entry.id) }
        return found
    }
}

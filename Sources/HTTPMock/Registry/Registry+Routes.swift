import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Routes as a whole: descriptions, what is left to verify, clearing, scenarios.

extension Registry {
    /// One line per route, in registration order: key, queue, registration site.
    func routeDescriptions() -> [String] {
        state.withLock { state in
            state.routes.routes.enumerated().map { position, route in
                let queue = state.queues[position]
                let count = queue.pendingCount
                var text = "\(route.key) — \(count) response\(count == 1 ? "" : "s") queued"
                if queue.endsWithEternal { text += ", the last .eternal" }
                if count == 0 { text += " (all \(queue.servedCount) served)" }
                if let location = route.location { text += " (\(location))" }
                return text
            }
        }
    }

    /// Routes with responses that are neither served nor `.eternal`, in registration order.
    var pending: [(route: Route, position: Int, count: Int)] {
        state.withLock { state in
            state.routes.routes.enumerated().compactMap { position, route in
                let count = state.queues[position].pendingFiniteCount
                return count > 0 ? (route, position, count) : nil
            }
        }
    }

    /// What `verify()` has not reported yet: misses and routes with pending responses. Marks
    /// them reported.
    func takeUnverified() -> (misses: [RecordedRequest], pending: [(route: Route, count: Int)], reachedByNone: Bool) {
        state.withLock { state in
            let misses = state.journal.filter { $0.countsAsMiss && !state.reportedMissIDs.contains($0.id) }
            state.reportedMissIDs.formUnion(misses.map(\.id))
            state.unreportedMisses = []
            var pending: [(route: Route, count: Int)] = []
            for (position, route) in state.routes.routes.enumerated() where !state.reportedPendingRoutes.contains(route.order) {
                let count = state.queues[position].pendingFiniteCount
                if count > 0 {
                    pending.append((route, count))
                    state.reportedPendingRoutes.insert(route.order)
                }
            }
            // The journal's numbering counts every request ever answered, whatever it keeps.
            return (misses, pending, state.nextJournalID == 0)
        }
    }

    /// Takes the `.failTest` misses not reported yet.
    func takeUnreportedMisses() -> [RecordedRequest] {
        state.withLock { state in
            defer { state.unreportedMisses = [] }
            for miss in state.unreportedMisses { state.reportedMissIDs.insert(miss.id) }
            return state.unreportedMisses
        }
    }

    /// Marks a miss as reported (XCTest reports `.failTest` misses at once).
    func markReported(journalID id: Int) {
        state.withLock { state in
            state.reportedMissIDs.insert(id)
            state.unreportedMisses.removeAll { $0.id == id }
        }
    }

    /// Removes every route, queued response and journal entry; keeps the policies.
    func clear() {
        // Routes, queued responses and journal hold user closures and captured values; they are
        // released after the lock, so a `deinit` that reads this instance cannot deadlock.
        let released = state.withLock { state -> Released in
            var released = state.rebuild(keeping: { _ in false })
            released.journal = state.journal
            state.journal = Journal()
            state.unreportedMisses = []
            state.reportedMissIDs = []
            state.reportedPendingRoutes = []
            state.scenarios = [:]
            return released
        }
        store.removeAll()
        withExtendedLifetime(released) {}
    }

    func scenarioState(of scenario: String) -> String {
        state.withLock { $0.scenarioState(of: scenario) }
    }

    func resetScenarios() {
        state.withLock { $0.scenarios = [:] }
    }

    /// Removes the routes registered for `host` and the journal entries of requests to it: any
    /// port for a bare host name, only that port for `host:port`.
    func clear(host: String) {
        let target = (try? HostPattern.parse(host)) ?? HostPattern(labels: [.literal(RouteHost.normalize(host))], port: nil)
        let name = target.name
        let removesRoute: (Route) -> Bool = { route in
            route.key.host.name == name && (target.port == nil || route.key.host.port == target.port)
        }
        let removesEntry: (RecordedRequest) -> Bool = { entry in
            entry.request.normalizedHost == name && (target.port == nil || entry.request.effectivePort == target.port)
        }
        let released = state.withLock { state -> Released in
            var released = state.rebuild(keeping: { !removesRoute($0) })
            released.journal = state.journal
            state.journal.removeAll(where: removesEntry)
            state.unreportedMisses.removeAll(where: removesEntry)
            return released
        }
        withExtendedLifetime(released) {}
    }
}

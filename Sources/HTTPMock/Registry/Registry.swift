import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An instance's policies, as one value so the transport reads them with the route lookup.
struct InstanceSettings: Sendable {
    var defaultDomain = Registry.builtInDefaultDomain
    var unmockedPolicy = UnmockedPolicy.notFound
    var timeout: TimeInterval = 15
    /// How long a forward over the server waits for its upstream (``HTTPMock/forwardTimeout``).
    var forwardTimeout: TimeInterval = 60
    var defaultDelay: TimeInterval = 0
    /// Drawn for each `.instant` response and added to ``defaultDelay`` (Registry+AdminJournal.swift).
    var randomDelay: RandomDelay? = nil
    var followsRedirects = true
    var logHandler: LogHandler? = LogHandler(handle: HTTPMock.standardErrorMissLogger, ignoresMatches: true)
    /// Whether reports show secrets as sent (``HTTPMock/revealSecrets``).
    var revealSecrets = false
}

/// An immutable snapshot of the settings: a resolution carries it with one retain, however
/// many fields settings grow.
final class SettingsSnapshot: Sendable {
    let value: InstanceSettings
    init(_ value: InstanceSettings) { self.value = value }

    /// The defaults, made once: what an exchange holds until its first lookup replaces it, so
    /// a request does not allocate settings it never reads.
    static let placeholder = SettingsSnapshot(InstanceSettings())
}

/// What the transport must do with one request.
struct Resolution: Sendable {
    enum Answer: Sendable {
        case matched(route: String, response: MockResponse)
        case unmatched(UnmockedPolicy)
    }

    let answer: Answer
    /// The request as journaled, with the matched route's path parameters.
    let request: MockRequest
    let settings: SettingsSnapshot
    /// The journal entry of this request.
    let journalID: Int
    /// For an unmatched request, the near-miss report.
    var nearMissReport: String?
    /// The response when it is complete the moment it is resolved (``MockResponse/completeAnswer(under:)``):
    /// its journal entry already holds it as served, and the transport sends it at once.
    var completeAnswer: ImmediateAnswer?

    /// The response to serve: the route's, or the one the unmocked policy gives.
    var response: MockResponse {
        switch answer {
        case .matched(_, let response): return response
        case .unmatched(let policy): return policy.response(for: request, report: nearMissReport)
        }
    }
}

/// One instance's store: routes, their queues, the journal and the policies, behind one lock.
/// Knows nothing of `URLProtocol`; the transport asks it to ``resolve(_:)`` a request.
final class Registry: Sendable {
    /// The host a route without one, and a server request without `impersonating`, is matched as.
    static let builtInDefaultDomain = "example.com"

    /// The routes and their index: replaced as a whole value on registration, so a lookup can
    /// read a snapshot without holding the lock.
    struct Routes: Sendable {
        var routes: [Route] = []
        var index = RouteIndex()
        /// Route key → position, so registering a key again appends to its queue.
        var positionsByKey: [RouteKey: Int] = [:]
        /// Registration order (unique, never reused) → position: how a lookup finds the route it
        /// matched on a snapshot again after a clear moved or removed routes.
        var positionsByOrder: [Int: Int] = [:]

        mutating func append(_ route: Route) {
            positionsByKey[route.key] = routes.count
            positionsByOrder[route.order] = routes.count
            index.insert(route.key, at: routes.count)
            routes.append(route)
        }
    }

    struct State: Sendable {
        var settings = SettingsSnapshot(InstanceSettings())
        var routes = Routes()
        /// Queues by route position.
        var queues: [ResponseQueue] = []
        var nextOrder = 0
        var journal = Journal()
        var nextJournalID = 0
        /// Unmatched requests under `.failTest`, not yet reported to a test.
        var unreportedMisses: [RecordedRequest] = []
        /// Journal entries and routes (by registration order, which clearing does not change)
        /// `verify()` has already reported, so nothing is reported twice.
        var reportedMissIDs: Set<Int> = []
        var reportedPendingRoutes: Set<Int> = []
        /// Scenario name → state; a scenario not listed is in `ScenarioState.started`.
        var scenarios: [String: String] = [:]
        /// Whether a `waitForRequest(s)` waits, so journaling a request knows, in its own critical
        /// section, whether to wake ``JournalWaiters`` (set by it, see there).
        var hasWaiters = false
        /// How much of its history the journal keeps (Registry+JournalLimit.swift).
        var journalLimits = JournalLimits()

        func scenarioState(of scenario: String) -> String {
            scenarios[scenario] ?? ScenarioState.started
        }

        /// Journals a request, after `prepare` has completed its entry; returns the entry's ID.
        /// The entry may be gone at once (a journal limit of 0), so a caller that needs it
        /// reads it in `prepare`, never as the journal's last element.
        mutating func appendJournal(
            _ request: MockRequest, isMatched: Bool, route: String?,
            outcome: (statusCode: Int?, error: (any Error)?), date: Date, served: ServedResponse? = nil,
            prepare: (inout RecordedRequest) -> Void = { _ in }
        ) -> Int {
            nextJournalID += 1
            let (kept, droppedBodySize) = journalLimits.kept(request)
            var entry = RecordedRequest(
                request: kept, isMatched: isMatched, route: route,
                statusCode: outcome.statusCode, error: outcome.error, date: date, id: nextJournalID, served: served)
            if let droppedBodySize { entry.droppedBodySize = droppedBodySize }
            prepare(&entry)
            journal.append(consume entry)
            journalLimits.enforce(on: &journal)
            return nextJournalID
        }

        /// Pops the response of the first route of `matching` (positions in `snapshot`, or in the
        /// current routes when `nil`; most specific first) whose scenario state holds and whose
        /// queue is not empty, applies its scenario transition and journals the request; `nil`
        /// when none has a response.
        ///
        /// `snapshot` may be older than `self.routes`: a route is found again by its
        /// registration order, and a route removed since is skipped. The scenario check, the pop
        /// and the transition share the caller's critical section, so two concurrent requests
        /// cannot both see the state before a transition.
        mutating func popFirst(
            of matching: Matches, in snapshot: Routes?, for request: MockRequest, date: Date,
            compacted: inout [MockResponse]
        ) -> Resolution? {
            for (position, parameters) in matching {
                let route = snapshot?.routes[position] ?? routes.routes[position]
                if let required = route.key.scenario, scenarioState(of: required.scenario) != required.state { continue }
                // On the current routes (no snapshot) the position is current already.
                guard let current = snapshot == nil ? position : self.routes.positionsByOrder[route.order],
                    let response = queues[current].pop(compacted: &compacted)
                else { continue }
                if let transition = response.transition { scenarios[transition.scenario] = transition.state }
                var matched = request
                matched.pathParameters = parameters
                // A response complete at once is served now: journaled as served in this
                // critical section, with no second one after it is sent.
                let complete = response.completeAnswer(under: settings)
                let journalID = appendJournal(
                    matched, isMatched: true, route: route.name,
                    outcome: complete.map { ($0.status.code, nil) } ?? response.outcome, date: date,
                    served: complete?.served(to: request.method))
                return Resolution(
                    answer: .matched(route: route.name, response: response), request: matched, settings: settings, journalID: journalID,
                    completeAnswer: complete)
            }
            return nil
        }

        /// Keeps the routes `keep` accepts. Returns what it removed instead of releasing it: the
        /// routes and queues hold user closures and whatever they capture, whose `deinit` may call
        /// back into the instance, so the caller drops them after leaving the lock.
        /// Appends a route for `addition` with an empty queue; returns its position.
        mutating func addRoute(_ addition: Addition, newestFirst: Bool) -> Int {
            routes.append(
                Route(
                    key: addition.key, specificity: addition.key.specificity, order: nextOrder, location: addition.location,
                    newestFirst: newestFirst))
            queues.append(ResponseQueue())
            nextOrder += 1
            return routes.routes.count - 1
        }

        mutating func rebuild(keeping keep: (Route) -> Bool) -> Released {
            let released = Released(routes: self.routes, queues: self.queues)
            var routes = Routes()
            var queues: [ResponseQueue] = []
            for (position, route) in self.routes.routes.enumerated() where keep(route) {
                routes.append(route)
                queues.append(self.queues[position])
            }
            self.routes = routes
            self.queues = queues
            return released
        }

        /// The queue state of `route` (matched on a snapshot) now, or empty if it is gone.
        func queueState(of route: Route) -> NearMissAnalysis.QueueState {
            guard let position = routes.positionsByOrder[route.order] else { return .init(pending: 0, served: 0) }
            return .init(pending: queues[position].pendingCount, served: queues[position].servedCount)
        }
    }

    /// State taken out of the critical section to be released after it (see `rebuild`).
    struct Released {
        var routes: Routes?
        var queues: [ResponseQueue] = []
        var journal = Journal()
        var settings: SettingsSnapshot?
    }

    let state = Locked(State())

    /// The key–value store of handlers and templates (`HTTPMock.store`).
    let store = MockStore()
    /// `waitForRequest` / `waitForRequests`, woken after a journal append while anyone waits.
    let waiters: JournalWaiters

    /// The session `.passthrough` requests are sent with; `nil` means ``defaultPassthroughSession``.
    private let customPassthroughSession: URLSession?

    /// A plain ephemeral session, without HTTPMock, made on first use: on Linux the first
    /// `URLSession` a process makes fixes what `URLSession.shared` can be served by.
    private static let defaultPassthroughSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        // Keep the built-in protocols: with none that accepts a request, FoundationNetworking
        // falls back to the globally registered classes, which may include HTTPMock's shared-
        // session bridge, and a passthrough would loop back into HTTPMock.
        configuration.protocolClasses = (configuration.protocolClasses ?? []).filter { !($0 is MockURLProtocol.Type) }
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()

    var passthroughSession: URLSession { customPassthroughSession ?? Self.defaultPassthroughSession }

    /// Where the owning `HTTPMock` was made, for reports that have no better location.
    let creationLocation: SourceLocation

    /// The running Swift Testing test's inbox for `.failTest` misses (Diagnostics/MissInbox.swift).
    let missInbox = Locked<MissInbox?>(nil)
    /// Made by the `.httpMock` trait or `withHTTPMock`, which verify at the end: the failure
    /// shows each miss, so the default logger does not print it first (Diagnostics/Events.swift).
    let isVerifiedAtScopeEnd = Locked(false)

    /// Where the log handler runs: serial (events in order), and not a URL loading work queue,
    /// which all sessions of the process share on Linux.
    let logQueue = DispatchQueue(label: "HTTPMock.logHandler")

    init(passthroughSession: URLSession?, creationLocation: SourceLocation) {
        self.customPassthroughSession = passthroughSession
        self.creationLocation = creationLocation
        let state = self.state
        self.waiters = JournalWaiters(announce: { waiting in state.withLock { $0.hasWaiters = waiting } })
    }

    /// One registration of a batch: responses for a route key, and how the route joins the
    /// registry.
    struct Addition: Sendable {
        var key: RouteKey
        var responses: [MockResponse]
        var location: SourceLocation?
        var placement = RouteSpec.Placement.sharesEqualRoute
    }

    /// What registering one ``Addition`` did.
    struct Placed: Sendable {
        /// The route's identity (its registration order); `nil`: an ``RouteSpec/Placement/onlyIfNew``
        /// addition found an equal route and registered nothing.
        var order: Int?
        /// Whether the queue it appended to already held an `.eternal` response, which makes the
        /// new responses unreachable.
        var wasEternal = false
    }

    /// Registers a whole batch (a mock tree, a DSL block, one `addResponses` list, WireMock
    /// mappings) in one critical section, after removing the routes whose registration orders
    /// `replacing` lists, so a concurrent request sees all of it or none of it. Adding is O(1)
    /// amortised per route: nothing is searched or rebuilt unless `replacing` removes something;
    /// what is removed is released after the lock.
    @discardableResult
    func register(_ batch: [Addition], replacing: Set<Int> = []) -> [Placed] {
        followRunningTest()  // registering is test code too: its `.failTest` misses go to this test
        let (placed, released) = state.withLock { state -> ([Placed], Released?) in
            let released = replacing.isEmpty ? nil : state.rebuild(keeping: { !replacing.contains($0.order) })
            var placed: [Placed] = []
            placed.reserveCapacity(batch.count)
            for addition in batch {
                let position: Int
                if case .own(let newestFirst) = addition.placement {
                    position = state.addRoute(addition, newestFirst: newestFirst)
                } else if let existing = state.routes.positionsByKey[addition.key] {
                    guard addition.placement == .sharesEqualRoute else {
                        placed.append(Placed(order: nil))
                        continue
                    }
                    position = existing
                } else {
                    position = state.addRoute(addition, newestFirst: false)
                }
                let wasEternal = state.queues[position].endsWithEternal
                for response in addition.responses {
                    state.queues[position].append(response)
                }
                placed.append(Placed(order: state.routes.routes[position].order, wasEternal: wasEternal))
            }
            return (placed, released)
        }
        withExtendedLifetime(released) {}
        return placed
    }

    /// The settings, copied after the lock (the critical section only retains the snapshot).
    var settings: InstanceSettings { settingsSnapshot.value }

    var settingsSnapshot: SettingsSnapshot { state.withLock { $0.settings } }

    func updateSettings(_ body: (inout InstanceSettings) -> Void) {
        // The replaced snapshot (a log handler and what it captures) is released after the lock.
        let replaced = state.withLock { state -> SettingsSnapshot in
            let replaced = state.settings
            var settings = state.settings.value
            body(&settings)
            state.settings = SettingsSnapshot(settings)
            return replaced
        }
        withExtendedLifetime(replaced) {}
    }
}

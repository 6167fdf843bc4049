import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An instance's policies, as one value so the transport reads them with the route lookup.
struct InstanceSettings: Sendable {
    var defaultDomain = "example.com"
    var unmockedPolicy = UnmockedPolicy.notFound
    var timeout: TimeInterval = 15
    var defaultDelay: TimeInterval = 0
    var followsRedirects = true
    var logHandler: LogHandler? = LogHandler(handle: HTTPMock.standardErrorMissLogger, ignoresMatches: true)
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

        /// Journals a request; returns its entry's ID (the entry is `journal[journal.count - 1]`).
        mutating func appendJournal(
            _ request: MockRequest, isMatched: Bool, route: String?,
            outcome: (statusCode: Int?, error: (any Error)?), date: Date, served: ServedResponse? = nil
        ) -> Int {
            nextJournalID += 1
            let (kept, droppedBodySize) = journalLimits.kept(request)
            var entry = RecordedRequest(
                request: kept, isMatched: isMatched, route: route,
                statusCode: outcome.statusCode, error: outcome.error, date: date, id: nextJournalID, served: served)
            if let droppedBodySize { entry.droppedBodySize = droppedBodySize }
            journal.append(entry)
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

    /// One registration of a batch: responses for a route key.
    struct Addition: Sendable {
        var key: RouteKey
        var responses: [MockResponse]
        var location: SourceLocation?
    }

    /// Appends `responses` to the queue of `key`, creating the route if needed.
    /// - Returns: whether the queue already held an `.eternal` response, which makes the new
    ///   responses unreachable.
    @discardableResult
    func register(_ key: RouteKey, responses: [MockResponse], location: SourceLocation? = nil) -> Bool {
        register([Addition(key: key, responses: responses, location: location)])[0]
    }

    /// Registers `key` with `responses` unless it is already registered, in one critical section.
    /// - Returns: whether it registered.
    func registerNew(_ key: RouteKey, responses: [MockResponse], location: SourceLocation?) -> Bool {
        state.withLock { state in
            guard state.routes.positionsByKey[key] == nil else { return false }
            state.routes.append(Route(key: key, specificity: key.specificity, order: state.nextOrder, location: location))
            state.queues.append(ResponseQueue())
            state.nextOrder += 1
            for response in responses { state.queues[state.queues.count - 1].append(response) }
            return true
        }
    }

    /// Registers a whole batch (a mock tree, a DSL block, one `addResponses` list) in one
    /// critical section, so a concurrent request sees all of it or none of it.
    /// - Returns: for each registration, whether its queue already held an `.eternal` response.
    @discardableResult
    func register(_ batch: [Addition]) -> [Bool] {
        followRunningTest()  // registering is test code too: its `.failTest` misses go to this test
        return state.withLock { state in
            batch.map { addition in
                let position: Int
                if let existing = state.routes.positionsByKey[addition.key] {
                    position = existing
                } else {
                    position = state.routes.routes.count
                    state.routes.append(
                        Route(
                            key: addition.key, specificity: addition.key.specificity,
                            order: state.nextOrder, location: addition.location))
                    state.queues.append(ResponseQueue())
                    state.nextOrder += 1
                }
                let wasEternal = state.queues[position].endsWithEternal
                for response in addition.responses {
                    state.queues[position].append(response)
                }
                return wasEternal
            }
        }
    }

    /// Finds the most specific route that matches `request` and still has a response, pops
    /// that response and journals the request.
    ///
    /// When a candidate route has a body matcher (which may parse a large body) or a predicate
    /// (user code), host/path lookup and the request matchers run on a snapshot of the routes
    /// *outside* the lock, so a predicate may call back into HTTPMock. Otherwise (the usual
    /// case) the matching is cheap and runs no user code, and lookup, choice and pop share one
    /// critical section. Either way the choice among the matching routes and the pop happen in
    /// one critical section: the first route, in precedence order, whose queue is not empty
    /// wins, so two concurrent requests never get the same `.single` response and an exhausted
    /// queue never shadows another route.
    ///
    /// The matched routes are found again in the current state by their registration order,
    /// which a clear never changes: if a predicate (or another thread) cleared or registered
    /// meanwhile, a route that still exists answers and a removed one is skipped (then the
    /// unmocked policy answers). No retry: one lookup, one pop, whatever the predicates do.
    func resolve(_ request: MockRequest) -> Resolution {
        let date = Date()
        var compacted: [MockResponse] = []  // released after the lock
        // When no candidate route has a body matcher or a predicate, matching runs no user code
        // and costs little: lookup, choice and pop share one critical section, on the current
        // routes. If that finds no route with a response, nothing was changed and the full path
        // below runs (it journals the miss and writes the near-miss report).
        let (direct, wakesWaiters) = state.withLock { state -> (Resolution?, Bool) in
            guard let matching = Self.matchingRoutesFallingBackToGet(for: request, in: state.routes, runningUserCode: false) else {
                return (nil, false)
            }
            return (state.popFirst(of: matching, in: nil, for: request, date: date, compacted: &compacted), state.hasWaiters)
        }
        if let direct {
            compacted = []
            if wakesWaiters { waiters.journaled { journal } }
            return direct
        }
        let snapshot = state.withLock { $0.routes }
        let matching = Self.matchingRoutesFallingBackToGet(for: request, in: snapshot, runningUserCode: true) ?? Matches()
        let (decided, queues, scenarios): (Resolution, [NearMissAnalysis.QueueState], [String: String]) = state.withLock { state in
            if let resolution = state.popFirst(of: matching, in: snapshot, for: request, date: date, compacted: &compacted) {
                return (resolution, [], [:])
            }
            let policy = state.settings.value.unmockedPolicy
            _ = state.appendJournal(request, isMatched: false, route: nil, outcome: policy.outcome, date: date)
            if case .passthrough = policy.kind {
            } else {
                state.journal[state.journal.count - 1].countsAsMiss = true
            }
            let entry = state.journal[state.journal.count - 1]
            if case .failTest = policy.kind { state.unreportedMisses.append(entry) }
            let queues = snapshot.routes.map { state.queueState(of: $0) }
            return (
                Resolution(answer: .unmatched(policy), request: request, settings: state.settings, journalID: entry.id),
                queues, state.scenarios
            )
        }
        compacted = []
        var resolution = decided
        if case .unmatched = resolution.answer {
            // Outside the lock: the analysis reads every route and may run user predicates.
            let misses = NearMissAnalysis.nearMisses(for: request, routes: snapshot.routes, queues: queues, scenarios: scenarios)
            let report = NearMissAnalysis.report(for: request, nearMisses: misses)
            resolution.nearMissReport = report
            updateJournal(resolution.journalID) { $0.nearMissReport = report }
        }
        waiters.journaled { journal }  // after the near-miss report, so a waiter sees it
        return resolution
    }

    /// Positions of the routes that match `request`, most specific first, with their captured
    /// path parameters. Without `runningUserCode`, `nil` when a candidate has a body matcher
    /// (which may parse a large body) or a predicate (user code): such matching runs outside the lock.
    static func matchingRoutes(for request: MockRequest, in snapshot: Routes, runningUserCode: Bool) -> Matches? {
        let positions = snapshot.index.candidates(
            host: request.normalizedHost, port: request.effectivePort, path: request.normalizedPath, segments: { request.pathSegments })
        guard !positions.isEmpty else { return Matches() }
        if !runningUserCode {
            for position in positions where snapshot.routes[position].runsUserCode {
                return nil
            }
        }
        // The body is parsed as JSON at most once, and only if a body matcher asks; a local
        // captured by a non-escaping closure, so a request allocates nothing for it.
        var parsed: JSONValue??
        var segments: [String]?
        var matching = Matches()
        for position in positions {
            let route = snapshot.routes[position]
            guard
                route.key.matchesConstraints(
                    request,
                    json: {
                        if let parsed { return parsed }
                        let value = request.body.flatMap(JSONValue.parse)
                        parsed = .some(value)
                        return value
                    })
            else { continue }
            let parameters: [String: String]
            if route.key.path.isLiteral {
                parameters = [:]
            } else {
                if segments == nil { segments = request.pathSegments }
                guard let captured = route.key.path.match(segments ?? []) else { continue }
                parameters = captured
            }
            matching.append((position, parameters))
        }
        matching.sort { snapshot.routes[$0.0].precedes(snapshot.routes[$1.0]) }
        return matching
    }

    /// The routes a request matches, as positions with captured path parameters, most specific
    /// first. Usually one: that one is kept inline, so a lookup allocates no array for it.
    struct Matches: Sequence {
        private var first: (Int, [String: String])?
        private var others: [(Int, [String: String])] = []

        mutating func append(_ match: (Int, [String: String])) {
            if first == nil { first = match } else { others.append(match) }
        }

        /// Sorts by `precedes`; nothing to do for fewer than two.
        mutating func sort(by precedes: ((Int, [String: String]), (Int, [String: String])) -> Bool) {
            guard let first, !others.isEmpty else { return }
            var all = [first] + others
            all.sort(by: precedes)
            self.first = all[0]
            others = Array(all.dropFirst())
        }

        func makeIterator() -> Iterator { Iterator(matches: self) }

        struct Iterator: IteratorProtocol {
            fileprivate let matches: Matches
            private var index = -1

            fileprivate init(matches: Matches) { self.matches = matches }

            mutating func next() -> (Int, [String: String])? {
                defer { index += 1 }
                if index == -1 { return matches.first }
                return index < matches.others.count ? matches.others[index] : nil
            }
        }
    }

    /// Journals a request that the transport answered without a lookup (an unsupported task).
    func recordUnserved(_ request: MockRequest, error: any Error) {
        let date = Date()
        state.withLock { state in
            _ = state.appendJournal(request, isMatched: false, route: nil, outcome: (nil, error), date: date)
            state.journal[state.journal.count - 1].countsAsMiss = true
            state.journal[state.journal.count - 1].nearMissReport =
                "\(request) was not served: \((error as? URLError)?.localizedDescription ?? "\(error)")"
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
            guard let statusCode else { return }
            state.journal[index].statusCode = statusCode
            state.journal[index].error = nil
            if let missIndex = state.unreportedMisses.lastIndex(where: { $0.id == id }) {
                state.unreportedMisses[missIndex].statusCode = statusCode
                state.unreportedMisses[missIndex].error = nil
            }
        }
    }

    private func updateJournal(_ id: Int, _ update: (inout RecordedRequest) -> Void) {
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

    var settings: InstanceSettings { state.withLock { $0.settings.value } }

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
    func takeUnverified() -> (misses: [RecordedRequest], pending: [(route: Route, count: Int)]) {
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
            return (misses, pending)
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

extension MockResponse {
    /// The HTTP payload of a response that is complete the moment it is resolved under
    /// `settings`, `nil` for any other: an HTTP response from memory that completes at once
    /// (``HTTPPayload/completesAtOnce``: nothing to follow, store or read), that starts now
    /// (`.instant` without a `defaultDelay`, or `.delayed(0)`), and whose match no log handler
    /// reports. The in-process transport answers it inside `startLoading`, without an exchange.
    func completeAnswer(under settings: SettingsSnapshot) -> ImmediateAnswer? {
        guard let immediate else { return nil }
        switch delivery.kind {
        case .instant: guard settings.value.defaultDelay == 0 else { return nil }
        case .delayed(let seconds): guard seconds == 0 else { return nil }
        case .throttled, .never, .held: return nil
        }
        if let handler = settings.value.logHandler, !handler.ignoresMatches { return nil }
        return immediate
    }

    /// What the journal records for serving this response.
    var outcome: (statusCode: Int?, error: (any Error)?) {
        switch payload {
        case .http(let http): return (http.status.code, nil)
        case .failure(let error): return (nil, error)
        case .dynamic, .passthrough: return (nil, nil)  // known when the answer arrives
        case .fault(let fault, _): return (nil, fault.error)
        case .invalid(let message, _): return (nil, HTTPMockError(.invalidRegistration, message))
        }
    }
}

extension UnmockedPolicy {
    /// What the journal records for an unmatched request under this policy.
    var outcome: (statusCode: Int?, error: (any Error)?) {
        switch kind {
        case .notFound: return (404, nil)
        case .mock(let response): return response.outcome
        case .fail(let code): return (nil, URLError(code))
        case .failTest: return (nil, URLError(.resourceUnavailable))
        case .passthrough: return (nil, nil)  // known when the network answers
        }
    }
}

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Resolution: which route answers a request, and what an answer completes with.

extension Registry {
    /// Finds the most specific route that matches `request` and still has a response, pops
    /// that response and journals the request.
    ///
    /// Host/path lookup and the request matchers run on a snapshot of the routes *outside* the
    /// lock: a predicate may call back into HTTPMock, and the server's event loops, which share
    /// this lock, do not wait while another matches. The choice among the matching routes and
    /// the pop happen in one critical section: the first route, in precedence order, whose queue is not empty
    /// wins, so two concurrent requests never get the same `.single` response and an exhausted
    /// queue never shadows another route.
    ///
    /// The matched routes are found again in the current state by their registration order,
    /// which a clear never changes: if a predicate (or another thread) cleared or registered
    /// meanwhile, a route that still exists answers and a removed one is skipped (then the
    /// unmocked policy answers). No retry: one lookup, one pop, whatever the predicates do.
    func resolve(_ request: MockRequest) -> Resolution {
        if let direct = resolveWithoutUserCode(request) { return direct }
        let date = Date()
        var compacted: [MockResponse] = []  // released after the lock
        let snapshot = state.withLock { $0.routes }
        // One budget for all the matchers this request runs (``MatchBudget``), and another for
        // its near-miss report below.
        let matching = MatchBudget.measure {
            Self.matchingRoutesFallingBackToGet(for: request, in: snapshot, runningUserCode: true) ?? Matches()
        }
        let (decided, queues, scenarios): (Resolution, [NearMissAnalysis.QueueState], [String: String]) = state.withLock { state in
            if let resolution = state.popFirst(of: matching, in: snapshot, for: request, date: date, compacted: &compacted) {
                return (resolution, [], [:])
            }
            let policy = state.settings.value.unmockedPolicy
            var miss: RecordedRequest?
            let id = state.appendJournal(request, isMatched: false, route: nil, outcome: policy.outcome, date: date) { entry in
                if case .passthrough = policy.kind {
                } else {
                    entry.countsAsMiss = true
                }
                miss = entry
            }
            if case .failTest = policy.kind, let miss { state.unreportedMisses.append(miss) }
            let queues = snapshot.routes.map { state.queueState(of: $0) }
            return (
                Resolution(answer: .unmatched(policy), request: request, settings: state.settings, journalID: id),
                queues, state.scenarios
            )
        }
        compacted = []
        var resolution = decided
        if case .unmatched = resolution.answer {
            // Outside the lock: the analysis reads every route and may run user predicates.
            let reveal = resolution.settings.value.revealSecrets
            let misses = MatchBudget.measure {
                NearMissAnalysis.nearMisses(
                    for: request, routes: snapshot.routes, queues: queues, scenarios: scenarios, revealSecrets: reveal)
            }
            let report = NearMissAnalysis.report(for: request, nearMisses: misses, revealSecrets: reveal)
            resolution.nearMissReport = report
            updateJournal(resolution.journalID) { $0.nearMissReport = report }
        }
        waiters.journaled { journal }  // after the near-miss report, so a waiter sees it
        return resolution
    }

    /// ``resolve(_:)``'s usual case, or `nil` with nothing changed: when no candidate route has
    /// a body matcher or a predicate, matching runs no user code and costs little; it runs on a
    /// snapshot outside the lock, then choice and pop share one critical section. `nil` when a candidate
    /// runs user code or no route with a response matches (the full path journals the miss and
    /// writes the near-miss report). Never waits for anything but the instance's lock, so the
    /// server calls it on its event loop (``HTTPMock/startServing(method:target:headers:body:clientAddress:)``).
    func resolveWithoutUserCode(_ request: MockRequest) -> Resolution? {
        let date = Date()
        var compacted: [MockResponse] = []  // released after the lock
        // Matched on a snapshot outside the lock: the server's event loops share this lock, and
        // one of them matching (a regular expression, a JSON body) kept the other waiting.
        let snapshot = state.withLock { $0.routes }
        guard let matching = Self.matchingRoutesFallingBackToGet(for: request, in: snapshot, runningUserCode: false) else {
            return nil
        }
        let (direct, wakesWaiters) = state.withLock { state -> (Resolution?, Bool) in
            (state.popFirst(of: matching, in: snapshot, for: request, date: date, compacted: &compacted), state.hasWaiters)
        }
        guard let direct else { return nil }
        compacted = []
        if wakesWaiters { waiters.journaled { journal } }
        return direct
    }

    /// Positions of the routes that match `request`, most specific first, with their captured
    /// path parameters. Without `runningUserCode`, `nil` when a candidate has a body matcher
    /// (which may parse a large body) or a predicate (user code): such matching runs outside the lock.
    static func matchingRoutes(for request: MockRequest, in snapshot: Routes, runningUserCode: Bool) -> Matches? {
        let positions = snapshot.index.candidates(
            host: request.normalizedHost, port: request.effectivePort, path: request.normalizedPath,
            rawPath: request.target.rawPath, rawQuery: request.target.rawQuery, segments: { request.pathSegments })
        guard !positions.isEmpty else { return Matches() }
        if !runningUserCode {
            for position in positions {
                let route = snapshot.routes[position]
                if route.runsUserCode { return nil }
                // A regular expression that could take long on this request's URL or headers.
                if let conditions = route.key.conditions, conditions.needsSlowPath(for: request) { return nil }
            }
        }
        // Each part of the body is parsed at most once, and only if a matcher asks; a local, so
        // a request whose routes ask nothing allocates nothing for it.
        var facts = RequestFacts()
        var segments: [String]?
        var matching = Matches()
        for position in positions {
            let route = snapshot.routes[position]
            let parameters: [String: String]
            if route.key.path.isLiteral || route.key.path.matchesEveryPath {
                parameters = [:]
            } else {
                if segments == nil { segments = request.pathSegments }
                guard let captured = route.key.path.match(segments ?? []) else { continue }
                parameters = captured
            }
            guard route.matchesConstraints(request, parameters: parameters, facts: &facts) else { continue }
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
}

extension MockResponse {
    /// The HTTP payload of a response that is complete the moment it is resolved under
    /// `settings`, `nil` for any other: an HTTP response from memory that completes at once
    /// (``HTTPPayload/completesAtOnce``: nothing to follow, store or read), that starts now
    /// (`.instant` without a `defaultDelay`, or `.delayed(0)`), and whose match no log handler
    /// reports. The in-process transport answers it inside `startLoading`, without an exchange.
    func completeAnswer(under settings: SettingsSnapshot) -> ImmediateAnswer? {
        guard let immediate, afterServed == nil else { return nil }
        switch delivery.kind {
        case .instant: guard settings.value.defaultDelay == 0, settings.value.randomDelay == nil else { return nil }
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

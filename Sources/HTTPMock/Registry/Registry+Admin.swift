import Foundation

// What a live-control front end (the WireMock admin API) needs from the registry:
// routes added and removed one by one by an identity it keeps, with a priority and a label;
// the routes with what each has left; scenarios set by name; the journal cleared alone.

/// One route as the admin API describes it: its registration order (its identity), its
/// name, and what its queue has left.
package struct AdminRouteState: Sendable {
    package let order: Int
    package let name: String
    package let pending: Int
    package let served: Int
    package let isEternal: Bool
}

/// One route a live-control front end (a WireMock mapping) registers: the path the index
/// files it under, a method, the conditions it checks beyond them, and its answers.
package struct AdminRoute: Sendable {
    package var path: String
    package var method: HTTPMethod?
    var conditions: RequestConditions?
    package var scenario: ScenarioState?
    package var priority: Int?
    /// The route's name in reports and the journal; also what makes its key unique.
    var label: String
    var responses: [MockResponse]
    /// Where it was defined, as reports print it (`mappings/cart.json`), its full path and its
    /// line; line 0: none (posted to the admin API).
    var source: String
    var sourcePath: String
    package var line: Int
    /// A test of the request beyond the conditions (user code: it runs outside the registry's
    /// lock), and why a request fails it, for near-miss reports.
    package var predicate: (@Sendable (MockRequest) -> Bool)? = nil
    package var explanation: (@Sendable (MockRequest) -> String?)? = nil
    /// Among such routes of equal priority the newest answers, whatever their specificity
    /// (WireMock's order for its mappings); `false`: specificity decides, as for other routes.
    package var newestFirst = true

    package init(
        path: String, method: HTTPMethod?, conditions: RequestConditions?, scenario: ScenarioState?, priority: Int?, label: String,
        responses: [MockResponse], source: String, sourcePath: String, line: Int
    ) {
        self.path = path
        self.method = method
        self.conditions = conditions
        self.scenario = scenario
        self.priority = priority
        self.label = label
        self.responses = responses
        self.source = source
        self.sourcePath = sourcePath
        self.line = line
    }
}

extension HTTPMock {
    /// Registers `routes` in one critical section, after removing the routes `replacing`
    /// names (by registration order): all of them or none. Returns their identities, in order.
    /// Each route is its own (never merged with another's queue). Adding is O(1) amortised per
    /// route: nothing is searched or rebuilt unless `replacing` removes something.
    /// - Throws: ``HTTPMockError`` naming the first route that is invalid and why.
    package func addAdminRoutes(_ routes: [AdminRoute], replacing: Set<Int> = []) throws -> [Int] {
        // Validated and prepared on every core (a WireMock root of 10,000 mappings is one batch,
        // issue 43); only the insertion below is serial.
        let defaultDomain = defaultDomain
        let store = registry.store
        typealias Keyed = (RouteKey, [MockResponse], SourceLocation, newestFirst: Bool)
        let keyed = try Concurrently.map(routes, context: Registration.HostPatternCache()) {
            (hosts: inout Registration.HostPatternCache, route: AdminRoute) throws(HTTPMockError) -> Keyed in
            let location = SourceLocation(fileID: route.source, filePath: route.sourcePath, line: route.line, column: 0)
            let definition = RouteDefinition(
                path: route.path, host: "**", method: route.method, query: nil, matching: .contains, headers: nil, body: nil,
                predicate: route.predicate, scenario: route.scenario, responses: route.responses, location: location)
            let (found, problems) = Registration.validate(definition, defaultDomain: defaultDomain, hosts: &hosts)
            guard var key = found else {
                let messages = problems.filter { $0.severity == .error }.map(\.message)
                throw HTTPMockError(.invalidRegistration, "\(route.label) (\(location)): " + messages.joined(separator: "; "))
            }
            key.predicate?.explanation = route.explanation
            key.conditions = route.conditions
            key.priority = route.priority
            key.label = route.label
            return (key, route.responses.map { $0.prepared().bound(to: store) }, location, route.newestFirst)
        }
        // Removal and addition share one critical section: a concurrent request sees the old
        // routes or the new ones. What is removed is released after the lock.
        let (orders, released) = registry.state.withLock { state -> ([Int], Registry.Released?) in
            let released = replacing.isEmpty ? nil : state.rebuild(keeping: { !replacing.contains($0.order) })
            let orders = keyed.map { key, responses, location, newestFirst in
                let order = state.nextOrder
                state.routes.append(
                    Route(key: key, specificity: key.specificity, order: order, location: location, newestFirst: newestFirst))
                var queue = ResponseQueue()
                for response in responses { queue.append(response) }
                state.queues.append(queue)
                state.nextOrder += 1
                return order
            }
            return (orders, released)
        }
        withExtendedLifetime(released) {}
        return orders
    }

    /// Removes the routes whose identities `orders` lists; other routes keep their queues.
    package func removeAdminRoutes(_ orders: Set<Int>) {
        guard !orders.isEmpty else { return }
        let released = registry.state.withLock { state in
            state.rebuild(keeping: { !orders.contains($0.order) })
        }
        withExtendedLifetime(released) {}
    }

    /// Every route, in registration order, with what its queue has left.
    package var adminRouteStates: [AdminRouteState] {
        registry.state.withLock { state in
            state.routes.routes.enumerated().map { position, route in
                let queue = state.queues[position]
                return AdminRouteState(
                    order: route.order, name: route.name, pending: queue.pendingCount, served: queue.servedCount,
                    isEternal: queue.endsWithEternal)
            }
        }
    }

    /// The scenario states routes need (`when:`, a WireMock `requiredScenarioState`), in
    /// registration order.
    package var adminScenarioRequirements: [ScenarioState] {
        registry.state.withLock { state in state.routes.routes.compactMap(\.key.scenario) }
    }

    /// The scenarios moved from ``ScenarioState/started``, by name.
    package var adminScenarioStates: [String: String] {
        registry.state.withLock { $0.scenarios }
    }

    /// Moves `scenario` to `state` (``ScenarioState/started`` forgets it).
    package func setAdminScenarioState(_ scenario: String, to state: String) {
        registry.state.withLock { registryState in
            if state == ScenarioState.started {
                registryState.scenarios[scenario] = nil
            } else {
                registryState.scenarios[scenario] = state
            }
        }
    }

    /// Empties the journal only; routes, queues and scenarios are kept.
    package func clearAdminJournal() {
        let released = registry.state.withLock { state -> Journal in
            defer {
                state.journal = Journal()
                state.unreportedMisses = []
            }
            return state.journal
        }
        withExtendedLifetime(released) {}
    }
}

import Foundation

// What a live-control front end (the WireMock admin API, SPEC §19) needs from the registry:
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

extension HTTPMock {
    /// Registers one route whose key is unique (it carries `predicate`, which no other route
    /// shares), answering from `responses`, and returns its identity (its registration order).
    /// - Throws: ``HTTPMockError`` naming what is invalid; nothing is registered then.
    package func addAdminRoute(
        path: String, host: String, method: HTTPMethod?, predicate: @escaping @Sendable (MockRequest) -> Bool,
        explanation: (@Sendable (MockRequest) -> String?)? = nil,
        scenario: ScenarioState?, priority: Int?, label: String, responses: [MockResponse], source: String
    ) throws -> Int {
        let location = SourceLocation(fileID: source, filePath: source, line: 0, column: 0)
        let definition = RouteDefinition(
            path: path, host: host, method: method, query: nil, matching: .contains, headers: nil, body: nil,
            predicate: predicate, scenario: scenario, responses: responses, location: location)
        let (found, problems) = Registration.validate(definition, defaultDomain: defaultDomain)
        guard var key = found else {
            let messages = problems.filter { $0.severity == .error }.map(\.message)
            throw HTTPMockError(.invalidRegistration, "\(source): " + messages.joined(separator: "; "))
        }
        key.predicate?.explanation = explanation
        key.priority = priority
        key.label = label
        let finalKey = key
        let prepared = responses.map { $0.prepared().bound(to: registry.store) }
        return registry.state.withLock { state in
            let order = state.nextOrder
            state.routes.append(Route(key: finalKey, specificity: finalKey.specificity, order: order, location: location))
            state.queues.append(ResponseQueue())
            state.nextOrder += 1
            for response in prepared { state.queues[state.queues.count - 1].append(response) }
            return order
        }
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

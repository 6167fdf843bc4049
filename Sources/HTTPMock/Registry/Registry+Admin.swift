import Foundation

// What a live-control front end (the WireMock admin API) needs from the registry:
// routes removed one by one by the identity registering them returned (`RouteSpec` with
// `.own` placement, through `HTTPMock.register(_:replacing:code:operation:)`);
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

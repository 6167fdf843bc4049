#if Server
import Foundation
import HTTPMock

// `/__admin/scenarios…`: every scenario a mapping or route names, moved or reset by name.

extension AdminAPI {
    func scenarios(method: String, _ path: [String], body: Data?) -> ServedAnswer {
        switch (method, path) {
        case ("GET", []):
            return Self.json(200, ["scenarios": .array(scenarios)], method: method)
        case ("POST", ["reset"]):
            mock.resetScenarios()
            return Self.json(200, [:], method: method)
        case ("PUT", _) where path.count == 2 && path[1] == "state":
            return setScenario(path[0], body: body, method: method)
        case ("POST", _) where path.count == 2 && path[1] == "reset":
            let name = path[0]
            guard knowsScenario(name) else { return Self.notFound("no scenario \(name)", method: method) }
            mock.setAdminScenarioState(name, to: ScenarioState.started)
            return Self.json(200, [:], method: method)
        default:
            return unknown(method, ["scenarios"] + path)
        }
    }

    /// Every scenario a mapping or route names or that has moved: its state, the states its
    /// mappings name, and its mappings.
    var scenarios: [JSONValue] {
        let moved = mock.adminScenarioStates
        var possible: [String: [String]] = [:]
        var mappings: [String: [JSONValue]] = [:]
        func note(_ scenario: String, _ state: String) {
            let theirs = WireMockMapping.theirState(WireMockMapping.ourState(state))
            if !(possible[scenario]?.contains(theirs) ?? false) { possible[scenario, default: []].append(theirs) }
        }
        for mapping in state.mappings {
            guard let scenario = mapping.scenarioName else { continue }
            note(scenario, ScenarioState.started)
            if let required = mapping.requiredState { note(scenario, required) }
            if let new = mapping.newState { note(scenario, new) }
            mappings[scenario, default: []].append(mapping.json)
        }
        for required in mock.adminScenarioRequirements {
            note(required.scenario, ScenarioState.started)
            note(required.scenario, required.state)
        }
        for (scenario, state) in moved {
            note(scenario, ScenarioState.started)
            note(scenario, state)
        }
        return possible.keys.sorted().map { name in
            .object([
                "id": .string(name), "name": .string(name),
                "state": .string(WireMockMapping.theirState(moved[name] ?? ScenarioState.started)),
                "possibleStates": .array((possible[name] ?? []).map(JSONValue.string)),
                "mappings": .array(mappings[name] ?? []),
            ])
        }
    }

    private func knowsScenario(_ name: String) -> Bool {
        scenarios.contains { $0["name"] == .string(name) }
    }

    /// `PUT /__admin/scenarios/{name}/state`: `{"state": "NAME"}`; an empty body (or no
    /// `state`) moves it back to `Started` (WireMock's `resetScenario(name)`).
    private func setScenario(_ name: String, body: Data?, method: String) -> ServedAnswer {
        guard knowsScenario(name) else { return Self.notFound("no scenario \(name)", method: method) }
        let value: JSONValue
        do throws(WireMockMappingError) {
            value = try Self.parse(body)
        } catch {
            return Self.invalid(error, method: method)
        }
        switch value["state"] {
        case nil, .null?:
            mock.setAdminScenarioState(name, to: ScenarioState.started)
        case .string(let state)? where !state.isEmpty:
            mock.setAdminScenarioState(name, to: WireMockMapping.ourState(state))
        case let other?:
            return Self.invalid(
                WireMockMappingError(pointer: "/state", message: "send {\"state\": \"NAME\"} or no body, got \(other)"), method: method)
        }
        return Self.json(200, [:], method: method)
    }
}
#endif

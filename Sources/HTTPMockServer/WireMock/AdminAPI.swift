#if Server
import Foundation
import HTTPMock
import NIOConcurrencyHelpers

/// WireMock's admin API under `/__admin/` (SPEC §19), for one served instance. The connection
/// handler asks it first for paths under `/__admin`; its answers are never journaled and never
/// matched against the instance's routes.
package final class AdminAPI: Sendable {
    let mock: HTTPMock
    /// When set, every admin request needs `Authorization: Bearer TOKEN` (or `?token=TOKEN`,
    /// for the dashboard in a browser).
    let token: String?
    private let onShutdown = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)

    /// - Parameters:
    ///   - mock: The served instance.
    ///   - token: The bearer token admin requests need; `nil`: none.
    package init(mock: HTTPMock, token: String?) {
        self.mock = mock
        self.token = token
    }

    /// What `POST /__admin/shutdown` does (stop the server, end the CLI).
    package func setShutdownHandler(_ handler: @escaping @Sendable () -> Void) {
        onShutdown.withLockedValue { $0 = handler }
    }

    /// Whether `uri` is the admin API's.
    static func handles(_ uri: String) -> Bool {
        uri == "/__admin" || uri.hasPrefix("/__admin/") || uri.hasPrefix("/__admin?")
    }

    var state: WireMockState { WireMockState.of(mock) }

    /// The answer to one admin request.
    func answer(method: String, uri: String, headers: [(String, String)], body: Data?) async -> ServedAnswer {
        let components = URLComponents(string: uri)
        let path = components?.path ?? uri
        let query = components?.queryItems ?? []
        if let token {
            let bearer = headers.first { $0.0.lowercased() == "authorization" }?.1
            let given = query.first { $0.name == "token" }?.value
            guard bearer == "Bearer \(token)" || given == token else {
                return Self.json(
                    401, ["errors": [["code": 401, "title": "HTTPMock admin API: send Authorization: Bearer TOKEN (--admin-token)"]]],
                    method: method)
            }
        }
        var segments = path.split(separator: "/", omittingEmptySubsequences: true).map { $0.removingPercentEncoding ?? String($0) }
        segments.removeFirst()  // "__admin"
        let request = MockRequest.direct(
            method: method, url: URL(string: "http://localhost" + uri) ?? URL(fileURLWithPath: "/"), headers: headers, body: body)
        return await route(method: method.uppercased(), segments, query: query, body: body, request: request)
    }

    private func route(method: String, _ segments: [String], query: [URLQueryItem], body: Data?, request: MockRequest) async -> ServedAnswer
    {
        // Paths with a name or an id in them.
        if segments.count == 2, segments[0] == "mappings", segments[1] != "reset" {
            guard let uuid = UUID(uuidString: segments[1]) else {
                return Self.notFound("no mapping \(segments[1]): ids are UUIDs", method: method)
            }
            return mapping(uuid, method: method, body: body)
        }
        if method == "GET", segments.count == 2, segments[0] == "requests", segments[1] != "unmatched" {
            guard let entry = journalEntry(segments[1]) else {
                return Self.notFound("no request \(segments[1]) in the journal", method: method)
            }
            return Self.json(200, Self.servedEvent(entry.offset, entry.element), method: method)
        }
        if method == "PUT", segments.count == 3, segments[0] == "scenarios", segments[2] == "state" {
            return setScenario(segments[1], body: body, method: method)
        }
        switch (method, segments) {
        case ("GET", []), ("GET", ["dashboard"]), ("HEAD", []), ("HEAD", ["dashboard"]):
            return Self.direct(200, contentType: "text/html; charset=utf-8", Data(Dashboard.page.utf8), method: method)
        case ("GET", ["events"]):
            return dashboardEvents(for: request)
        case ("GET", ["dashboard", "state"]):
            return Self.json(200, dashboardState, method: method)
        case ("GET", let path) where path.count == 3 && path[0] == "dashboard" && path[1] == "requests":
            return dashboardRequestDetail(path[2], method: method)
        case ("GET", ["mappings"]):
            let mappings = state.mappings.map(\.json)
            return Self.json(
                200, .object(["mappings": .array(mappings), "meta": .object(["total": .integer(mappings.count)])]), method: method)
        case ("POST", ["mappings"]):
            return addMapping(body, id: nil, status: 201, method: method)
        case ("DELETE", ["mappings"]):
            state.removeAll(from: mock, restoringFiles: false)
            return Self.json(200, [:], method: method)
        case ("POST", ["mappings", "reset"]):
            state.removeAll(from: mock, restoringFiles: true)
            return Self.json(200, [:], method: method)
        case ("POST", ["reset"]):
            state.removeAll(from: mock, restoringFiles: true)
            mock.clearAdminJournal()
            mock.resetScenarios()
            return Self.json(200, [:], method: method)
        case ("GET", ["requests"]):
            let limit = query.first { $0.name == "limit" }?.value.flatMap(Int.init)
            return Self.json(200, allRequests(limit: limit), method: method)
        case ("DELETE", ["requests"]), ("POST", ["requests", "reset"]):
            mock.clearAdminJournal()
            return Self.json(200, [:], method: method)
        case ("POST", ["requests", "count"]), ("POST", ["requests", "find"]):
            let pattern: WireMockRequestPattern
            do throws(WireMockMappingError) {
                pattern = try WireMockRequestPattern.parse(try Self.parse(body), at: "")
            } catch {
                return Self.invalid(error, method: method)
            }
            let found = mock.recordedRequests.filter { pattern.matchesWithMethod($0.request) }
            if segments.last == "count" { return Self.json(200, ["count": .integer(found.count)], method: method) }
            return Self.json(200, ["requests": .array(found.map(Self.loggedRequest))], method: method)
        case ("GET", ["requests", "unmatched"]):
            let misses = mock.recordedRequests.filter { !$0.isMatched }
            return Self.json(200, ["requests": .array(misses.map(Self.loggedRequest))], method: method)
        case ("GET", ["requests", "unmatched", "near-misses"]):
            return Self.json(200, nearMisses, method: method)
        case ("GET", ["scenarios"]):
            return Self.json(200, ["scenarios": .array(scenarios)], method: method)
        case ("POST", ["scenarios", "reset"]):
            mock.resetScenarios()
            return Self.json(200, [:], method: method)
        case ("POST", ["settings"]), ("PUT", ["settings"]):
            return updateSettings(body, method: method)
        case ("POST", ["shutdown"]):
            let handler = onShutdown.withLockedValue { $0 }
            Task {
                try? await Task.sleep(nanoseconds: 100_000_000)
                handler?()
            }
            return Self.json(200, [:], method: method)
        default:
            return Self.notFound("HTTPMock's admin API has no \(method) \(request.url.path)", method: method)
        }
    }

    // MARK: - Mappings

    private func addMapping(_ body: Data?, id: UUID?, status: Int, method: String) -> ServedAnswer {
        do throws(WireMockMappingError) {
            let mapping = try WireMockMapping.parse(try Self.parse(body), id: id)
            try state.add(mapping, to: mock)
            return Self.json(status, mapping.json, method: method)
        } catch {
            return Self.invalid(error, method: method)
        }
    }

    private func mapping(_ id: UUID, method: String, body: Data?) -> ServedAnswer {
        switch method {
        case "GET":
            guard let mapping = state.mappings.first(where: { $0.id == id }) else {
                return Self.notFound("no mapping \(id.uuidString.lowercased())", method: method)
            }
            return Self.json(200, mapping.json, method: method)
        case "PUT":
            guard state.mappings.contains(where: { $0.id == id }) else {
                return Self.notFound("no mapping \(id.uuidString.lowercased())", method: method)
            }
            return addMapping(body, id: id, status: 200, method: method)
        case "DELETE":
            guard state.remove(id, from: mock) else { return Self.notFound("no mapping \(id.uuidString.lowercased())", method: method) }
            return Self.json(200, [:], method: method)
        default:
            return Self.notFound("HTTPMock's admin API has no \(method) /__admin/mappings/{id}", method: method)
        }
    }

    // MARK: - Scenarios and settings

    /// Every scenario a mapping or route names or that has moved, with the states its
    /// mappings name.
    var scenarios: [JSONValue] {
        let moved = mock.adminScenarioStates
        var possible: [String: [String]] = [:]
        func note(_ scenario: String, _ state: String) {
            let theirs = WireMockMapping.theirState(WireMockMapping.ourState(state))
            if !(possible[scenario]?.contains(theirs) ?? false) { possible[scenario, default: []].append(theirs) }
        }
        for mapping in state.mappings {
            guard let scenario = mapping.scenarioName else { continue }
            note(scenario, ScenarioState.started)
            if let required = mapping.requiredState { note(scenario, required) }
            if let new = mapping.newState { note(scenario, new) }
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
            ])
        }
    }

    private func setScenario(_ name: String, body: Data?, method: String) -> ServedAnswer {
        guard scenarios.contains(where: { $0["name"] == .string(name) }) else {
            return Self.notFound("no scenario \(name)", method: method)
        }
        let value: JSONValue
        do throws(WireMockMappingError) {
            value = try Self.parse(body)
        } catch {
            return Self.invalid(error, method: method)
        }
        guard case .string(let state)? = value["state"], !state.isEmpty else {
            return Self.invalid(
                WireMockMappingError(pointer: "/state", message: "send {\"state\": \"NAME\"}, got \(value)"), method: method)
        }
        mock.setAdminScenarioState(name, to: WireMockMapping.ourState(state))
        return Self.json(200, [:], method: method)
    }

    private func updateSettings(_ body: Data?, method: String) -> ServedAnswer {
        do throws(WireMockMappingError) {
            guard case .object(let object) = try Self.parse(body) else {
                throw WireMockMappingError(pointer: "", message: "settings must be an object")
            }
            for key in object.keys.sorted() where key != "fixedDelay" {
                throw WireMockMappingError(pointer: "/" + key, message: "unsupported setting \(key)")
            }
            switch object["fixedDelay"] {
            case .integer(let ms)? where ms >= 0: mock.defaultDelay = Double(ms) / 1000
            case .double(let ms)? where ms >= 0 && ms.isFinite: mock.defaultDelay = ms / 1000
            case nil, .null?: mock.defaultDelay = 0
            case let other?: throw WireMockMappingError(pointer: "/fixedDelay", message: "must be milliseconds ≥ 0, got \(other)")
            }
            return Self.json(200, [:], method: method)
        } catch {
            return Self.invalid(error, method: method)
        }
    }

    // MARK: - Answers

    static func parse(_ body: Data?) throws(WireMockMappingError) -> JSONValue {
        guard let body, !body.isEmpty else { return .object([:]) }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: body)
        } catch {
            throw WireMockMappingError(pointer: "", message: "the body is not JSON")
        }
    }

    static func json(_ status: Int, _ value: JSONValue, method: String) -> ServedAnswer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return direct(status, contentType: "application/json", (try? encoder.encode(value)) ?? Data("{}".utf8), method: method)
    }

    static func direct(_ status: Int, contentType: String, _ body: Data, method: String) -> ServedAnswer {
        .direct(status: status, headers: [("Content-Type", contentType), ("Cache-Control", "no-store")], body: body, method: method)
    }

    static func notFound(_ message: String, method: String) -> ServedAnswer {
        json(404, ["errors": [["code": 404, "title": .string(message)]]], method: method)
    }

    /// 422 naming the field (a JSON pointer) and what is wrong, as WireMock reports it.
    static func invalid(_ error: WireMockMappingError, method: String) -> ServedAnswer {
        let title = error.pointer.isEmpty ? error.message : "\(error.pointer): \(error.message)"
        return json(
            422, ["errors": [["code": 10, "source": ["pointer": .string(error.pointer)], "title": .string(title)]]], method: method)
    }
}
#endif

#if Server
import Foundation
import HTTPMock

// Which admin request goes where: WireMock's admin API, HTTPMock's own
// additions under `/__admin/httpmock/`, and the dashboard.

extension AdminAPI {
    func route(method: String, _ segments: [String], query: [URLQueryItem], body: Data?, request: MockRequest) async -> ServedAnswer {
        let rest = Array(segments.dropFirst())
        switch segments.first {
        case "mappings": return mappings(method: method, rest, query: query, body: body)
        case "requests": return requests(method: method, rest, query: query, body: body)
        case "near-misses": return nearMisses(method: method, rest, body: body)
        case "scenarios": return scenarios(method: method, rest, body: body)
        case "settings": return settings(method: method, rest, body: body)
        case "recordings": return await recordings(method: method, rest, body: body)
        case "files": return files(method: method, rest, body: body)
        case "httpmock": return httpmock(method: method, rest, query: query)
        default: break
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
        case ("POST", ["reset"]):
            state.removeAll(from: mock, restoringFiles: true)
            mock.clearAdminJournal()
            mock.resetScenarios()
            return Self.empty(method: method)
        case ("GET", ["health"]):
            return Self.json(200, health, method: method)
        case ("GET", ["version"]):
            return Self.json(200, ["version": .string(Self.wireMockVersion)], method: method)
        case ("POST", ["shutdown"]):
            let handler = onShutdown.withLockedValue { $0 }
            Task {
                try? await Task.sleep(nanoseconds: 100_000_000)
                handler?()
            }
            return Self.empty(method: method)
        default:
            return unknown(method, segments)
        }
    }

    /// 404 for an admin path HTTPMock does not serve (WireMock 4's message channels and its CA
    /// certificate among them).
    func unknown(_ method: String, _ segments: [String]) -> ServedAnswer {
        Self.notFound("HTTPMock's admin API has no \(method) /__admin/\(segments.joined(separator: "/"))", method: method)
    }
}
#endif

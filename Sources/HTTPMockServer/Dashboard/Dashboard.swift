#if Server
import Foundation
import HTTPMock
import NIOConcurrencyHelpers

// The live dashboard: what it shows, as JSON. The page (Dashboard+Page.swift)
// gets a snapshot, then deltas, from `GET /__admin/events` (DashboardFeed.swift), and a
// request's headers and bodies from `GET /__admin/dashboard/requests/{id}` when it is opened.
// Secrets are masked unless the instance's `revealSecrets` is set (SecretMasking); WireMock's own
// admin JSON is not this file's and stays unmasked.

extension AdminAPI {
    /// Requests the dashboard shows: the newest. The page says "showing the last N of M".
    static let dashboardRequestLimit = 200
    /// A near-miss report on the list is cut after this many characters (the whole report is in
    /// the request's detail).
    static let dashboardReportLimit = 4_000
    /// A body in a request's detail is cut after this many bytes.
    static let dashboardBodyLimit = 64 * 1024

    /// The URL a person reads for `request`: the one the client called
    /// (`http://127.0.0.1:PORT/path`, ``MockRequest/calledURL``), secrets masked unless `reveal`.
    static func shownURL(of request: MockRequest, reveal: Bool) -> String {
        let url = request.calledURL.absoluteString
        return reveal ? url : SecretMasking.url(url)
    }

    /// One request on the list: what it was, how it ended, why it missed.
    static func dashboardEntry(_ entry: RecordedRequest, reveal: Bool) -> JSONValue {
        var item: [String: JSONValue] = [
            "id": .integer(entry.journalID),
            "method": .string(entry.request.method.rawValue),
            "url": .string(shownURL(of: entry.request, reveal: reveal)),
            "status": entry.statusCode.map(JSONValue.integer) ?? .null,
            "matched": .bool(entry.isMatched),
            "received": .double((entry.date.timeIntervalSince1970 * 1000).rounded()),
        ]
        if let route = entry.route { item["route"] = .string(route) }
        if let error = entry.error { item["error"] = .string(reveal ? "\(error)" : SecretMasking.url("\(error)")) }
        if !entry.isMatched, let report = entry.nearMissReport {
            item["nearMiss"] = .string(
                report.count <= dashboardReportLimit
                    ? report : String(report.prefix(dashboardReportLimit)) + "\n… (open the request for the whole report)")
        }
        return .object(item)
    }

    /// Whether a journal entry will change no more (its outcome and, for a miss, its report known).
    static func isSettled(_ entry: RecordedRequest) -> Bool {
        (entry.statusCode != nil || entry.error != nil) && (entry.isMatched || entry.nearMissReport != nil)
    }

    /// What a route shows that changes as requests arrive.
    static func routeProgress(_ route: AdminRouteState) -> String {
        "\(route.pending)/\(route.served)/\(route.isEternal)"
    }

    /// One route: its conditions (query, headers, body, scenario state, a predicate), its name and
    /// place (a WireMock mapping's name and id), what its queue has left, whether it is an admin
    /// route (Voodoo's `/_admin/…`).
    static func dashboardRoute(
        _ conditions: AdminRouteConditions, _ progress: AdminRouteState, mapping: WireMockMapping?, reveal: Bool
    ) -> JSONValue {
        var route: [String: JSONValue] = [
            "order": .integer(conditions.order), "name": .string(conditions.name),
            "method": conditions.method.map(JSONValue.string) ?? .null, "host": .string(conditions.host),
            "path": .string(conditions.path), "pending": .integer(progress.pending), "served": .integer(progress.served),
            "eternal": .bool(progress.isEternal),
            "admin": .bool(conditions.location == "Voodoo admin" || conditions.path.hasPrefix("/_admin/")),
        ]
        var conditionList: [JSONValue] = []
        func note(_ kind: String, _ text: String?) {
            if let text { conditionList.append(.object(["kind": .string(kind), "text": .string(text)])) }
        }
        note("query", conditions.query)
        note("headers", conditions.headers)
        note("body", conditions.body)
        // A mapping says more of its scenario (the state it moves to) below.
        if mapping == nil, let scenario = conditions.scenario, let state = conditions.scenarioState {
            note("scenario", "\(scenario) is \(WireMockMapping.theirState(state))")
        }
        if let priority = conditions.priority { note("priority", String(priority)) }
        // A mapping is named by its name and id below, which is all its location says.
        if mapping == nil, let location = conditions.location { route["location"] = .string(location) }
        if let mapping {
            var described: [String: JSONValue] = ["id": .string(mapping.id.uuidString.lowercased())]
            if let name = mapping.name { described["name"] = .string(name) }
            if case .object(let request)? = mapping.json["request"] {
                for key in ["url", "urlPath", "urlPattern", "urlPathPattern"] {
                    if case .string(let text)? = request[key] { note(key, text) }
                }
                for key in ["queryParameters", "headers", "bodyPatterns"] {
                    guard let value = request[key] else { continue }
                    note(key, compactJSON(key == "headers" && !reveal ? maskedHeaderMatchers(value) : value))
                }
            }
            if let scenario = mapping.scenarioName {
                let needs = mapping.requiredState.map { " is \($0)" } ?? ""
                let moves = mapping.newState.map { ", then moves to \($0)" } ?? ""
                note("scenario", "\(scenario)\(needs)\(moves)")
            }
            route["mapping"] = .object(described)
        } else if conditions.hasPredicate {
            note("where", "a predicate decides too")
        }
        route["conditions"] = .array(conditionList)
        return .object(route)
    }

    /// WireMock header matchers with the values of secret headers masked.
    private static func maskedHeaderMatchers(_ value: JSONValue) -> JSONValue {
        guard case .object(let headers) = value else { return value }
        var masked = headers
        for (name, matcher) in headers where SecretMasking.isSecretHeader(name) {
            guard case .object(var fields) = matcher else { continue }
            for (key, field) in fields {
                if case .string(let text) = field { fields[key] = .string(SecretMasking.headerValue(text, named: name)) }
            }
            masked[name] = .object(fields)
        }
        return .object(masked)
    }

    static func compactJSON(_ value: JSONValue) -> String {
        value.description
    }

    /// The WireMock mappings by the order of the route each became.
    var mappingsByRoute: [Int: WireMockMapping] {
        state.contents.withLockedValue { contents in
            Dictionary(contents.entries.values.map { ($0.order, $0.mapping) }, uniquingKeysWith: { $1 })
        }
    }

    /// Every route, in registration order.
    func dashboardRoutes(reveal: Bool) -> [JSONValue] {
        let conditions = Dictionary(
            mock.adminRouteConditions(revealSecrets: reveal).map { ($0.order, $0) }, uniquingKeysWith: { $1 })
        let mappings = mappingsByRoute
        return mock.adminRouteStates.compactMap { progress in
            conditions[progress.order].map { Self.dashboardRoute($0, progress, mapping: mappings[progress.order], reveal: reveal) }
        }
    }

    /// Everything the page shows, at once: the newest requests (newest first), how many the
    /// journal holds, routes, scenarios, the store. The event stream's first event, and
    /// `GET /__admin/dashboard/state`.
    var dashboardState: JSONValue {
        let reveal = mock.revealSecrets
        let (entries, total, oldest) = mock.adminJournal(after: Int.min, limit: Self.dashboardRequestLimit)
        return .object([
            "kind": .string("snapshot"),
            "requests": .array(entries.reversed().map { Self.dashboardEntry($0, reveal: reveal) }),
            "total": .integer(total), "oldest": oldest.map(JSONValue.integer) ?? .null,
            "limit": .integer(Self.dashboardRequestLimit), "routes": .array(dashboardRoutes(reveal: reveal)),
            "scenarios": .array(scenarios), "store": .object(mock.store.snapshot), "revealSecrets": .bool(reveal),
        ])
    }
}
#endif

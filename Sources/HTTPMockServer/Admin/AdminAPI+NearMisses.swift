#if Server
import Foundation
import HTTPMock

// Near misses in WireMock's shapes (`stubMapping` or `requestPattern`, `request`,
// `matchResult.distance`), and HTTPMock's own near-miss reports under `/__admin/httpmock/`.

extension AdminAPI {
    /// At most this many near misses per request or pattern, the closest first (WireMock's 3).
    static let nearMissLimit = 3

    func nearMisses(method: String, _ path: [String], body: Data?) -> ServedAnswer {
        do throws(WireMockMappingError) {
            switch (method, path) {
            case ("POST", ["request"]):
                let object = try Self.parseObject(body)
                let request = try Self.request(fromLogged: object)
                let misses = closestMappings(to: request).map { mapping, distance in
                    Self.nearMiss(request: Self.echo(object), stub: mapping.json, distance: distance)
                }
                return Self.json(200, ["nearMisses": .array(misses)], method: method)
            case ("POST", ["request-pattern"]):
                let given = try Self.parse(body)
                let pattern = try WireMockRequestPattern.parse(given, at: "")
                let scored = allEntries().map { ($0, pattern.distance($0.request)) }
                let closest = scored.sorted { $0.1 < $1.1 }.prefix(Self.nearMissLimit)
                let misses: [JSONValue] = closest.map { entry, distance in
                    [
                        "request": Self.loggedRequest(entry), "requestPattern": given.withoutNulls,
                        "matchResult": ["distance": .double(distance)],
                    ]
                }
                return Self.json(200, ["nearMisses": .array(misses)], method: method)
            default:
                return unknown(method, ["near-misses"] + path)
            }
        } catch {
            return Self.invalid(error, method: method)
        }
    }

    /// `GET /__admin/requests/unmatched/near-misses`: for each miss, newest first, the closest
    /// mappings.
    func nearMissesOfUnmatched() -> JSONValue {
        let misses = mock.adminNewestJournalEntries(limit: nil, since: nil) { !$0.isMatched }.entries
        var result: [JSONValue] = []
        for entry in misses {
            for (mapping, distance) in closestMappings(to: entry.request) {
                result.append(Self.nearMiss(request: Self.loggedRequest(entry), stub: mapping.json, distance: distance))
            }
        }
        return ["nearMisses": .array(result)]
    }

    /// `/__admin/httpmock/…`: HTTPMock's own additions, which WireMock's objects must not carry.
    /// `GET /__admin/httpmock/near-misses` lists each miss (newest first, `?limit=n`) with the
    /// near-miss report `verify()` prints.
    func httpmock(method: String, _ path: [String], query: [URLQueryItem]) -> ServedAnswer {
        switch (method, path) {
        case ("GET", ["near-misses"]):
            let limit: Int?
            do throws(WireMockMappingError) {
                limit = try Self.count("limit", in: query)
            } catch {
                return Self.invalid(error, method: method)
            }
            let misses = mock.adminNewestJournalEntries(limit: limit, since: nil) { !$0.isMatched }.entries
            let reports: [JSONValue] = misses.map { entry in
                [
                    "id": .string(Self.requestID(entry.journalID)), "request": Self.loggedRequest(entry),
                    "nearMissReport": .string(entry.nearMissReport ?? "\(entry.request) matched no route"),
                ]
            }
            return Self.json(200, ["nearMisses": .array(reports)], method: method)
        default:
            return unknown(method, ["httpmock"] + path)
        }
    }

    static func nearMiss(request: JSONValue, stub: JSONValue, distance: Double) -> JSONValue {
        ["request": request, "stubMapping": stub, "matchResult": ["distance": .double(distance)]]
    }

    /// The mappings closest to `request`, with WireMock's distances (0 is a match, 1 nothing
    /// alike: ``WireMockMapping/distance(to:)``).
    func closestMappings(to request: MockRequest) -> [(WireMockMapping, Double)] {
        // One request's budget for its distances to every mapping, as when it was matched.
        let scored = MatchBudget.measure { inWireMockOrder(state.mappings).map { ($0, $0.distance(to: request)) } }
        return Array(scored.sorted { $0.1 < $1.1 }.prefix(Self.nearMissLimit))
    }

    /// A request from a `LoggedRequest` body (`POST /__admin/near-misses/request`).
    static func request(fromLogged object: [String: JSONValue]) throws(WireMockMappingError) -> MockRequest {
        guard case .string(let url)? = object["url"] else {
            throw WireMockMappingError(pointer: "/url", message: "a logged request needs its url (path and query)")
        }
        var method = "GET"
        if case .string(let given)? = object["method"] { method = given }
        var headers: [(String, String)] = []
        if case .object(let fields)? = object["headers"] {
            for (name, value) in fields {
                switch value {
                case .string(let text): headers.append((name, text))
                case .array(let values):
                    headers.append((name, values.compactMap { if case .string(let s) = $0 { s } else { nil } }.joined(separator: ", ")))
                default: continue
                }
            }
        }
        var body: Data?
        if case .string(let base64)? = object["bodyAsBase64"], !base64.isEmpty {
            body = Data(base64Encoded: base64)
        } else if case .string(let text)? = object["body"], !text.isEmpty {
            body = Data(text.utf8)
        }
        let path = url.hasPrefix("/") ? url : "/" + url
        guard let address = URL(string: "http://localhost" + path) else {
            throw WireMockMappingError(pointer: "/url", message: "\"\(url)\" is not a path and query")
        }
        return MockRequest.direct(method: method.uppercased(), url: address, headers: headers, body: body)
    }

    /// The logged request as sent back in a near miss: its fields as given, WireMock's
    /// defaults for the rest.
    static func echo(_ object: [String: JSONValue]) -> JSONValue {
        var echo = object.filter { $0.value != .null }
        if echo["browserProxyRequest"] == nil { echo["browserProxyRequest"] = false }
        if echo["queryParams"] == nil { echo["queryParams"] = .object([:]) }
        if echo["port"] == nil { echo["port"] = -1 }
        return .object(echo)
    }
}
#endif

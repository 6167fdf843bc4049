#if Server
import Foundation
import HTTPMock

// The request journal in WireMock's JSON shapes, key for key as WireMock 2.35.1 writes them
// (its Java client refuses any other field): `ServeEvent`, `LoggedRequest`, `LoggedResponse`.

extension AdminAPI {
    /// The serve event id of journal entry `journalID`: a UUID, as WireMock's are, stable for
    /// as long as the entry is journaled.
    static func requestID(_ journalID: Int) -> String {
        let hex = String(UInt64(truncatingIfNeeded: journalID) & 0xFFFF_FFFF_FFFF, radix: 16)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }

    /// The journal entry id in a serve event id, `nil` for any other UUID.
    static func journalID(_ requestID: String) -> Int? {
        let id = requestID.lowercased()
        guard id.count == 36, id.hasPrefix("00000000-0000-4000-8000-") else { return nil }
        return Int(id.suffix(12), radix: 16)
    }

    /// What a serve event needs beside the entry: the mappings of the entries' routes.
    func mappingsOfRoutes(_ entries: [RecordedRequest]) -> [UUID: WireMockMapping] {
        state.mappings(Set(entries.compactMap { $0.route.flatMap(Self.mappingID(inRoute:)) }))
    }

    /// A `ServeEvent`: the request, the stub that answered (`stubMapping`), what it was told to
    /// answer (`responseDefinition`) and what it sent (`response`), `wasMatched`, `timing`.
    static func serveEvent(_ entry: RecordedRequest, mappings: [UUID: WireMockMapping]) -> JSONValue {
        let mapping = entry.route.flatMap(mappingID(inRoute:)).flatMap { mappings[$0] }
        let status = entry.statusCode ?? entry.servedResponse?.statusCode
        var event: [String: JSONValue] = [
            "id": .string(requestID(entry.journalID)),
            "request": loggedRequest(entry),
            "wasMatched": .bool(entry.isMatched),
            "timing": timing(entry),
        ]
        if let mapping {
            event["stubMapping"] = mapping.json
            var definition = mapping.json["response"] ?? .object([:])
            // WireMock's definition always holds a status (200 unless given).
            if case .object(var fields) = definition, fields["status"] == nil {
                fields["status"] = 200
                definition = .object(fields)
            }
            event["responseDefinition"] = definition
        } else {
            let definition: JSONValue =
                entry.isMatched
                ? .object(["status": status.map(JSONValue.integer) ?? .integer(200)])
                : .object(["status": status.map(JSONValue.integer) ?? .integer(404), "fromConfiguredStub": .bool(false)])
            event["responseDefinition"] = definition
            event["stubMapping"] = syntheticStub(for: entry, definition: definition)
        }
        if let response = loggedResponse(entry) { event["response"] = response }
        return .object(event)
    }

    /// The stub a serve event names when no WireMock mapping answered: for a miss, WireMock's
    /// own (`ANY`, the 404 definition); for a route registered otherwise (Swift, a mocks
    /// folder, a HAR), one named by the route, with an id derived from its name.
    static func syntheticStub(for entry: RecordedRequest, definition: JSONValue) -> JSONValue {
        let id = entry.route.map(stableID(of:)) ?? UUID().uuidString.lowercased()
        var stub: [String: JSONValue] = [
            "id": .string(id), "uuid": .string(id), "request": ["method": "ANY"], "response": definition,
        ]
        if let route = entry.route { stub["name"] = .string(route) }
        return .object(stub)
    }

    /// A UUID-shaped id derived from `text` (FNV-1a, two seeds), the same for the same text.
    static func stableID(of text: String) -> String {
        func fnv(_ seed: UInt64) -> UInt64 {
            var hash = seed
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01b3
            }
            return hash
        }
        let high = fnv(0xcbf2_9ce4_8422_2325)
        let low = fnv(0x8422_2325_cbf2_9ce4)
        let hex = String(format: "%016llx%016llx", high, low)
        let characters = Array(hex)
        func part(_ range: Range<Int>) -> String { String(characters[range]) }
        return "\(part(0..<8))-\(part(8..<12))-4\(part(13..<16))-8\(part(17..<20))-\(part(20..<32))"
    }

    /// WireMock's `timing`, in milliseconds: from arrival to the response's start.
    static func timing(_ entry: RecordedRequest) -> JSONValue {
        let served = entry.servedResponse?.date.map { max(0, Int(($0.timeIntervalSince(entry.date) * 1000).rounded())) } ?? 0
        return [
            "addedDelay": 0, "processTime": .integer(served), "responseSendTime": 0, "serveTime": .integer(served),
            "totalTime": .integer(served),
        ]
    }

    /// A `LoggedResponse`: status, header fields, body. `nil` when nothing was sent.
    static func loggedResponse(_ entry: RecordedRequest) -> JSONValue? {
        if let served = entry.servedResponse {
            var response: [String: JSONValue] = ["status": .integer(served.statusCode)]
            if !served.headers.isEmpty { response["headers"] = .object(served.headers.mapValues(JSONValue.string)) }
            let body = served.body ?? Data()
            response["bodyAsBase64"] = .string(body.base64EncodedString())
            if let text = String(data: body, encoding: .utf8) { response["body"] = .string(text) }
            return .object(response)
        }
        guard let status = entry.statusCode else { return nil }
        return ["status": .integer(status), "bodyAsBase64": "", "body": ""]
    }

    /// A `LoggedRequest`, with the URL the client called.
    static func loggedRequest(_ entry: RecordedRequest) -> JSONValue {
        let request = entry.request
        let called = request.calledURL
        let components = URLComponents(url: called, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath.isEmpty == false ? components?.percentEncodedPath ?? "/" : "/"
        var headers: [String: JSONValue] = [:]
        for (name, value) in request.headers { headers[name] = .string(value) }
        var query: [String: JSONValue] = [:]
        for item in request.queryItems where query[item.name] == nil {
            let values = request.queryItems.filter { $0.name == item.name }.map { JSONValue.string($0.value ?? "") }
            query[item.name] = .object(["key": .string(item.name), "values": .array(values)])
        }
        let scheme = called.scheme ?? "http"
        let body = request.body ?? Data()
        var logged: [String: JSONValue] = [
            "url": .string(path + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")),
            "absoluteUrl": .string(called.absoluteString),
            "method": .string(request.method.rawValue),
            "clientIp": "127.0.0.1",
            "headers": .object(headers),
            "cookies": .object(cookies(request.headers["Cookie"]).mapValues(JSONValue.string)),
            "browserProxyRequest": false,
            "loggedDate": .integer(Int((entry.date.timeIntervalSince1970 * 1000).rounded(.down))),
            "loggedDateString": .string(loggedDateString(entry.date)),
            "bodyAsBase64": .string(body.base64EncodedString()),
            "protocol": "HTTP/1.1",
            "scheme": .string(scheme),
            "host": .string(components?.host ?? ""),
            "port": .integer(called.port ?? (scheme == "https" ? 443 : 80)),
            "queryParams": .object(query),
        ]
        if let text = String(data: body, encoding: .utf8) { logged["body"] = .string(text) }
        return .object(logged)
    }

    /// `2026-11-26T21:24:06Z`, as WireMock writes `loggedDateString`.
    static func loggedDateString(_ date: Date) -> String {
        ISO8601Text.string(from: date)
    }

    /// The cookies of a `Cookie` header, by name.
    static func cookies(_ header: String?) -> [String: String] {
        guard let header else { return [:] }
        var cookies: [String: String] = [:]
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard let name = parts.first?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { continue }
            cookies[name] = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        }
        return cookies
    }
}
#endif

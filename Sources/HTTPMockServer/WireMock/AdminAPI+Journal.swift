#if Server
import Foundation
import HTTPMock

// The request journal in WireMock's JSON shapes: `LoggedRequest`, `ServeEvent`, near misses.

extension AdminAPI {
    /// The id of journal entry `index`, a UUID as WireMock's are (stable until the journal is cleared).
    static func requestID(_ index: Int) -> String {
        String(format: "00000000-0000-4000-8000-%012x", index + 1)
    }

    func journalEntry(_ id: String) -> (offset: Int, element: RecordedRequest)? {
        mock.recordedRequests.enumerated().first { Self.requestID($0.offset) == id.lowercased() }
    }

    /// `GET /__admin/requests`: the newest first, as WireMock lists them.
    func allRequests(limit: Int?) -> JSONValue {
        let journal = mock.recordedRequests
        var events = journal.enumerated().reversed().map { Self.servedEvent($0.offset, $0.element) }
        if let limit, limit >= 0 { events = Array(events.prefix(limit)) }
        return .object([
            "requests": .array(events), "meta": .object(["total": .integer(journal.count)]),
            "requestJournalDisabled": .bool(false),
        ])
    }

    /// A `ServeEvent`: the request, what answered it, whether it matched, and HTTPMock's
    /// near-miss report for a miss.
    static func servedEvent(_ index: Int, _ entry: RecordedRequest) -> JSONValue {
        var event: [String: JSONValue] = [
            "id": .string(requestID(index)),
            "request": loggedRequest(entry),
            "responseDefinition": .object([
                "status": entry.statusCode.map(JSONValue.integer) ?? .null, "fromConfiguredStub": .bool(entry.isMatched),
            ]),
            "wasMatched": .bool(entry.isMatched),
        ]
        if let route = entry.route { event["route"] = .string(route) }
        if let report = entry.nearMissReport { event["nearMissReport"] = .string(report) }
        return .object(event)
    }

    /// A `LoggedRequest`.
    static func loggedRequest(_ entry: RecordedRequest) -> JSONValue {
        let request = entry.request
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath.isEmpty == false ? components?.percentEncodedPath ?? "/" : "/"
        var headers: [String: JSONValue] = [:]
        for (name, value) in request.headers { headers[name] = .string(value) }
        var query: [String: JSONValue] = [:]
        for item in request.queryItems {
            let values = request.queryItems.filter { $0.name == item.name }.map { JSONValue.string($0.value ?? "") }
            query[item.name] = .object(["key": .string(item.name), "values": .array(values)])
        }
        let milliseconds = Int(entry.date.timeIntervalSince1970 * 1000)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return .object([
            "url": .string(path + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")),
            "absoluteUrl": .string(request.calledURL.absoluteString),
            "method": .string(request.method.rawValue),
            "clientIp": .string("127.0.0.1"),
            "headers": .object(headers),
            "cookies": .object([:]),
            "queryParams": .object(query),
            "browserProxyRequest": .bool(false),
            "loggedDate": .integer(milliseconds),
            "loggedDateString": .string(formatter.string(from: entry.date)),
            "body": .string(request.body.map { String(decoding: $0, as: UTF8.self) } ?? ""),
            "bodyAsBase64": .string(request.body?.base64EncodedString() ?? ""),
        ])
    }

    /// `GET /__admin/requests/unmatched/near-misses`: each miss with HTTPMock's near-miss
    /// report (`nearMissReport`, the text `verify()` prints).
    var nearMisses: JSONValue {
        let misses = mock.recordedRequests.filter { !$0.isMatched }
        return .object([
            "nearMisses": .array(
                misses.map { entry in
                    .object([
                        "request": Self.loggedRequest(entry),
                        "matchResult": .object(["distance": .double(entry.nearMissReport == nil ? 1 : 0.5)]),
                        "nearMissReport": .string(entry.nearMissReport ?? "\(entry.request) matched no route"),
                    ])
                })
        ])
    }
}
#endif

#if Server
import Foundation
import HTTPMock

// A request opened on the dashboard: its request and response headers and bodies and
// its time, from `GET /__admin/dashboard/requests/{id}`, fetched when the page opens it, so the
// event stream carries only what the list shows.

extension AdminAPI {
    /// `GET /__admin/dashboard/requests/{id}`: one journal entry in full, or 404.
    func dashboardRequestDetail(_ id: String, method: String) -> ServedAnswer {
        guard let number = Int(id), let entry = mock.adminJournalEntries([number]).first else {
            return Self.notFound("no request \(id) in the journal (it was cleared, or the journal's limit dropped it)", method: method)
        }
        return Self.json(200, Self.dashboardDetail(entry, reveal: mock.revealSecrets), method: method)
    }

    static func dashboardDetail(_ entry: RecordedRequest, reveal: Bool) -> JSONValue {
        guard case .object(var detail) = dashboardEntry(entry, reveal: reveal) else { return .null }
        if let report = entry.nearMissReport { detail["nearMiss"] = .string(report) }
        detail["receivedAt"] = .string(ISO8601Text.string(from: entry.date, fractional: true))
        if entry.request.calledURL != entry.request.url {
            let matched = entry.request.url.absoluteString
            detail["matchedAs"] = .string(reveal ? matched : SecretMasking.url(matched))
        }
        var request = headersAndBody(
            entry.request.headers.map { ($0.name, $0.value) }, body: entry.request.body, note: nil, reveal: reveal)
        if entry.request.body == nil, entry.bodySize > 0 {
            request["bodyNote"] = .string("\(entry.bodySize) bytes, not kept (the journal keeps bodies up to its body limit)")
        }
        request["bodySize"] = .integer(entry.bodySize)
        detail["request"] = .object(request)
        if let served = entry.servedResponseDetail {
            var response = headersAndBody(
                served.headers.map { ($0.name, $0.value) }, body: served.body, note: served.bodyNote, reveal: reveal)
            response["status"] = .integer(served.statusCode)
            detail["response"] = .object(response)
            if let date = served.date { detail["durationMs"] = .double(max(0, date.timeIntervalSince(entry.date) * 1000)) }
        }
        detail["masked"] = .bool(!reveal)
        return .object(detail)
    }

    /// Headers (each with whether its value is a secret, masked unless `reveal`) and a body as
    /// text: cut at ``dashboardBodyLimit``, binary data described, secrets masked.
    private static func headersAndBody(_ headers: [(String, String)], body: Data?, note: String?, reveal: Bool) -> [String: JSONValue] {
        var result: [String: JSONValue] = [
            "headers": .array(
                headers.map { name, value in
                    let secret = SecretMasking.isSecretHeader(name)
                    return .object([
                        "name": .string(name), "value": .string(secret && !reveal ? SecretMasking.headerValue(value, named: name) : value),
                        "secret": .bool(secret),
                    ])
                })
        ]
        if let note { result["bodyNote"] = .string(note) }
        guard let body, !body.isEmpty else { return result }
        let kept = body.prefix(dashboardBodyLimit)
        // A cut may fall inside a character: up to 3 bytes of it are left out.
        let cuts = kept.count < body.count ? 0...min(3, kept.count) : 0...0
        guard let text = cuts.lazy.compactMap({ String(data: kept.dropLast($0), encoding: .utf8) }).first else {
            result["bodyNote"] = .string("\(body.count) bytes of binary data")
            return result
        }
        result["body"] = .string(reveal ? text : SecretMasking.bodyText(text))
        if kept.count < body.count { result["bodyNote"] = .string("the first \(kept.count) of \(body.count) bytes") }
        return result
    }
}
#endif

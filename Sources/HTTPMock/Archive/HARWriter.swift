import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns the journal into archive entries and writes HAR 1.2 files browsers' viewers read.
enum HARWriter {
    /// The entry for one journaled request: the request as received, the response as served.
    /// A file body is read now, so the archive holds the bytes the client received.
    static func entry(for recorded: RecordedRequest) -> HAREntry {
        let request = recorded.request
        let requestHeaders = request.headers.map { HARHeader(name: $0.name, value: $0.value) }
        var response = HARResponse(status: 0, statusText: "", httpVersion: "HTTP/1.1", headers: [], body: Data(), mimeType: "", error: nil)
        var time: Double = 0
        if let served = recorded.served {
            response.status = served.statusCode
            response.statusText = HTTPURLResponse.localizedString(forStatusCode: served.statusCode)
            response.headers = served.headerFields.sorted { $0.key.lowercased() < $1.key.lowercased() }
                .map { HARHeader(name: $0.key, value: $0.value) }
            switch served.body {
            case .none: break
            case .data(let data): response.body = data
            case .file(let url): response.body = (try? Data(contentsOf: url, options: .alwaysMapped)) ?? Data()
            case .events(let source):
                // A fixed stream is written as the bytes the client received; the events of a
                // dynamic stream were not kept, so its body is empty (Docs/HTTPMock.docc/Recording.md).
                if case .fixed(let events, _) = source.kind { response.body = Data(events.map(\.framed).joined().utf8) }
            }
            response.mimeType = HARHeader.value("Content-Type", in: response.headers) ?? ""
            time = max(0, (served.date ?? recorded.date).timeIntervalSince(recorded.date) * 1000)
        } else if let statusCode = recorded.statusCode {
            response.status = statusCode
        } else {
            response.error = recorded.error.map { "\($0)" } ?? "no response"
        }
        return HAREntry(
            startedDateTime: isoFormat.format(recorded.date), time: time,
            request: HARRequest(
                method: request.method.rawValue, url: request.url.absoluteString, httpVersion: "HTTP/1.1",
                headers: requestHeaders, body: request.body, bodyMimeType: request.headers["Content-Type"]),
            response: response)
    }

    private static let isoFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// A HAR 1.2 document holding `entries`, redacted.
    static func data(for entries: [HAREntry], redaction: Redaction) throws -> Data {
        let log: [String: Any] = [
            "version": "1.2",
            "creator": ["name": "HTTPMock", "version": "1"],
            "pages": [Any](),
            "entries": entries.map { json(for: redaction.apply(to: $0)) },
        ]
        return try JSONSerialization.data(withJSONObject: ["log": log], options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// Writes `entries` to `url` atomically, creating its folder.
    static func write(_ entries: [HAREntry], to url: URL, redaction: Redaction) throws(HTTPMockError) {
        do {
            let data = try data(for: entries, redaction: redaction)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw HTTPMockError(.har, "\(url.path): the archive could not be written: \(error.localizedDescription)")
        }
    }

    private static func headersJSON(_ headers: [HARHeader]) -> [[String: Any]] {
        headers.map { ["name": $0.name, "value": $0.value] }
    }

    /// `text`, and `encoding: base64` unless the bytes are UTF-8.
    private static func content(_ data: Data) -> [String: Any] {
        if let text = String(validating: data, as: UTF8.self) { return ["text": text] }
        return ["text": data.base64EncodedString(), "encoding": "base64"]
    }

    private static func json(for entry: HAREntry) -> [String: Any] {
        let request = entry.request
        let components = URLComponents(string: request.url)
        let queryString: [[String: Any]] = MockRequest.queryItems(components?.percentEncodedQuery).map {
            ["name": $0.name, "value": $0.value ?? ""]
        }
        var requestJSON: [String: Any] = [
            "method": request.method, "url": request.url, "httpVersion": request.httpVersion,
            "headers": headersJSON(request.headers), "queryString": queryString, "cookies": [Any](),
            "headersSize": -1, "bodySize": request.body?.count ?? 0,
        ]
        if let body = request.body {
            var postData = content(body)
            postData["mimeType"] = request.bodyMimeType ?? ""
            postData["params"] = [Any]()
            requestJSON["postData"] = postData
        }
        let response = entry.response
        var contentJSON = content(response.body)
        contentJSON["size"] = response.body.count
        contentJSON["mimeType"] = response.mimeType
        var responseJSON: [String: Any] = [
            "status": response.status, "statusText": response.statusText, "httpVersion": response.httpVersion,
            "headers": headersJSON(response.headers), "cookies": [Any](), "content": contentJSON,
            "redirectURL": HARHeader.value("Location", in: response.headers) ?? "",
            "headersSize": -1, "bodySize": response.body.count,
        ]
        if let error = response.error { responseJSON["_error"] = error }
        return [
            "startedDateTime": entry.startedDateTime, "time": entry.time,
            "request": requestJSON, "response": responseJSON,
            "cache": [String: Any](),
            "timings": ["send": 0, "wait": entry.time, "receive": 0],
        ]
    }
}

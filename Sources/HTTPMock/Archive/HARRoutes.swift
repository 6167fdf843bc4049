import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns archive entries into route definitions: one route per distinct request, its recorded
/// responses queued in order, the last `.eternal`.
enum HARRoutes {
    /// Headers that describe the recorded transfer, not the body HTTPMock serves.
    static let transferHeaders: Set<String> = ["content-encoding", "content-length", "transfer-encoding"]

    static func definitions(
        for entries: [HAREntry], file: String, timing: HARTiming, matching: HARMatching = [], redaction: Redaction = []
    ) -> [RouteSpec] {
        var definitions: [RouteSpec] = []
        var positions: [String: Int] = [:]
        let ignoredQuery = matching.ignoredQueryItems.union(redaction.queryItemNames)
        let matchedHeaders = matching.headerNames
        let fileName = (file as NSString).lastPathComponent
        for (index, entry) in entries.enumerated() {
            // Reports name the archive and the entry ("checkout.har log.entries[3]:4"; the line is
            // the entry's number, as the file's own lines are not known after decoding).
            let location = SourceLocation(
                fileID: "\(fileName) log.entries[\(index)]",
                filePath: "\(file): log.entries[\(index)]", line: index + 1, column: 1)
            // The reader accepted only absolute http(s) URLs with a host.
            guard let components = HARURL(entry.request.url) else { continue }
            var host = "**"
            if !matching.ignoresHost {
                host = components.port.map { "\(components.host):\($0)" } ?? components.host
            }
            let path = escapedPath(components.path)
            var query: [String: QueryValue] = [:]
            var values: [String: [String]] = [:]
            var keys: [String] = []
            for item in MockRequest.queryItems(components.query) {
                if values[item.name] == nil { keys.append(item.name) }
                values[item.name, default: []].append(item.value ?? "")
            }
            for key in keys {
                let recorded = values[key] ?? []
                query[key] = ignoredQuery.contains(key) || recorded.contains(HARPlaceholder.redacted) ? .any : QueryValue(recorded)
            }
            var headers: [String: QueryValue]?
            if !matchedHeaders.isEmpty {
                var required: [String: QueryValue] = [:]
                for name in matchedHeaders {
                    guard let value = HARHeader.value(name, in: entry.request.headers) else { continue }
                    required[name] = value == HARPlaceholder.redacted ? .any : QueryValue(value)
                }
                headers = required
            }
            var body: BodyMatcher?
            if matching.matchesBody {
                body = .equals(String(decoding: entry.request.body ?? Data(), as: UTF8.self))
            }
            let method = HTTPMethod(entry.request.method)
            // Control characters separate the parts, so no URL or header text can make two
            // different requests look identical.
            var identity = "\(method.rawValue)\u{1}\(host.lowercased())\u{1}\(path)"
            for key in keys.sorted() {
                identity += "\u{2}\(key)\u{3}" + (query[key] == .any ? "\u{4}" : (values[key] ?? []).joined(separator: "\u{5}"))
            }
            if let headers {
                for (name, value) in headers.sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
                    identity += "\u{6}\(name.lowercased())\u{3}" + (value == .any ? "\u{4}" : value.description)
                }
            }
            if matching.matchesBody { identity += "\u{7}" + String(decoding: entry.request.body ?? Data(), as: UTF8.self) }

            let response = Self.response(for: entry, timing: timing)
            if let position = positions[identity] {
                definitions[position].responses.append(response)
            } else {
                positions[identity] = definitions.count
                definitions.append(
                    RouteSpec(
                        path: path, host: host, method: method, query: query, matching: .exact, headers: headers, body: body,
                        predicate: nil, responses: [response], location: location))
            }
        }
        for position in definitions.indices {
            let last = definitions[position].responses.count - 1
            definitions[position].responses[last].lifetime = .eternal
        }
        return definitions
    }

    /// The path as a route pattern that matches only itself: pattern characters are escaped.
    static func escapedPath(_ path: String) -> String {
        guard path.containsBytes(of: "*") || path.containsBytes(of: ":") else { return path.isEmpty ? "/" : path }
        return path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            var segment = segment.replacingOccurrences(of: "*", with: "%2A")
            if segment.hasPrefix(":") { segment = "%3A" + segment.dropFirst() }
            return segment
        }.joined(separator: "/")
    }

    static func response(for entry: HAREntry, timing: HARTiming) -> MockResponse {
        let delivery: Delivery = timing == .recorded && entry.time > 0 ? .delayed(entry.time / 1000) : .instant
        guard entry.response.status != 0 else {
            let reason = entry.response.error.map { ": \($0)" } ?? ""
            return .failure(
                URLError(
                    .networkConnectionLost,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "The archived request \(entry.request.method) \(entry.request.url) got no response\(reason)"
                    ]), lifetime: .single, delivery: delivery)
        }
        var headers = HTTPHeaders()
        for header in entry.response.headers where !transferHeaders.contains(header.name.lowercased()) {
            // A repeated field (several `Set-Cookie`) is one value joined with ", " on this platform.
            if let existing = headers[header.name] {
                headers[header.name] = existing + ", " + header.value
            } else {
                headers[header.name] = header.value
            }
        }
        let status = HTTPStatus(entry.response.status)
        let body: MockResponse.Body = status.forbidsBody || entry.response.body.isEmpty ? .none : .data(entry.response.body)
        return .http(
            status: status, headers: headers, body: body,
            defaultContentType: entry.response.mimeType.isEmpty ? nil : entry.response.mimeType,
            lifetime: .single, delivery: delivery)
    }
}

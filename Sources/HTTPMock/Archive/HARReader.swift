import Foundation

/// Reads HAR 1.2 archives as browsers (Chrome, Firefox, Safari), proxies and HTTPMock write
/// them, with errors that name the file, the entry and the field.
enum HARReader {
    /// The entries of the archive at `url`, in file order.
    static func entries(at url: URL) throws(HTTPMockError) -> [HAREntry] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw HTTPMockError(.har, "\(url.path): the archive could not be read: \(error.localizedDescription)")
        }
        return try entries(in: data, file: url.path)
    }

    static func entries(in data: Data, file: String) throws(HTTPMockError) -> [HAREntry] {
        // HAR 1.2: readers accept and ignore a UTF-8 byte order mark.
        let json = data.starts(with: [0xEF, 0xBB, 0xBF]) ? Data(data.dropFirst(3)) : data
        // Fast path: the decoder reads typed fields without building dictionaries. When it fails,
        // the untyped reader below finds the field to name in the error.
        let raws: [RawEntry]
        if let decoded = try? JSONDecoder().decode(RawArchive.self, from: json) {
            raws = decoded.log.entries
        } else {
            raws = try untypedEntries(in: json, file: file)
        }
        var entries: [HAREntry] = []
        entries.reserveCapacity(raws.count)
        for (index, raw) in raws.enumerated() {
            entries.append(try make(raw, at: "log.entries[\(index)]", file: file))
        }
        return entries
    }

    private static func untypedEntries(in json: Data, file: String) throws(HTTPMockError) -> [RawEntry] {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: json, options: [])
        } catch {
            throw HTTPMockError(.har, "\(file): not valid JSON: \(describe(jsonError: error))")
        }
        let reader = Reader(file: file)
        let log = try reader.object(try reader.object(root, at: "(root)")["log"], at: "log")
        let list = try reader.array(log["entries"], at: "log.entries")
        var entries: [RawEntry] = []
        entries.reserveCapacity(list.count)
        for (index, raw) in list.enumerated() {
            entries.append(try reader.entry(raw, at: "log.entries[\(index)]"))
        }
        return entries
    }

    /// Checks the values of an entry whose JSON types are right and builds it.
    private static func make(_ raw: RawEntry, at path: String, file: String) throws(HTTPMockError) -> HAREntry {
        func fail(_ field: String, _ expected: String, got value: Any?) -> HTTPMockError {
            HTTPMockError(.har, "\(file): \(path).\(field): expected \(expected), got \(Reader.show(value))")
        }
        func body(_ raw: RawBody?, at field: String) throws(HTTPMockError) -> Data? {
            guard let text = raw?.text else { return nil }
            switch raw?.encoding?.lowercased() {
            case nil, "", "utf-8", "utf8":
                return Data(text.utf8)
            case "base64":
                // Some exporters wrap base64 in lines: white space is dropped, anything else that
                // is not base64 is an error (ignoring it would load `***` as an empty body).
                var compact = text
                compact.removeAll { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
                guard let data = Data(base64Encoded: compact) else {
                    throw fail("\(field).text", "base64 (as \(path).\(field).encoding says)", got: text)
                }
                return data
            case let other?:
                throw HTTPMockError(.har, "\(file): \(path).\(field).encoding: expected \"base64\" or no encoding, got \"\(other)\"")
            }
        }
        func headers(_ raw: [HARHeader]?) -> [HARHeader] {
            // HTTP/2 pseudo-headers (`:authority`, `:status`) are not header fields.
            (raw ?? []).filter { !$0.name.hasPrefix(":") }
        }

        guard HARURL(raw.request.url) != nil else {
            throw fail("request.url", "an absolute http or https URL", got: raw.request.url)
        }
        let status = Int(exactly: raw.response.status) ?? -1
        guard status == 0 || (100...599).contains(status) else {
            throw fail("response.status", "an HTTP status (100...599, or 0 for no response)", got: NSNumber(value: raw.response.status))
        }
        if (100...199).contains(status) {
            throw fail(
                "response.status", "a final HTTP status (200...599, or 0 for no response): 1xx is informational",
                got: NSNumber(value: status))
        }
        for (index, header) in (raw.response.headers ?? []).enumerated() where !header.name.hasPrefix(":") {
            if let problem = HTTPHeaders.problem(name: header.name, value: header.value) {
                throw HTTPMockError(.har, "\(file): \(path).response.headers[\(index)]: \(problem)")
            }
        }
        let time = raw.time ?? 0
        guard time.isFinite else { throw fail("time", "a number of milliseconds", got: NSNumber(value: time)) }
        return HAREntry(
            startedDateTime: raw.startedDateTime ?? "",
            time: max(0, time),
            request: HARRequest(
                method: raw.request.method, url: raw.request.url, httpVersion: raw.request.httpVersion ?? "HTTP/1.1",
                headers: headers(raw.request.headers),
                body: try body(raw.request.postData, at: "request.postData"), bodyMimeType: raw.request.postData?.mimeType),
            response: HARResponse(
                status: status, statusText: raw.response.statusText ?? "", httpVersion: raw.response.httpVersion ?? "HTTP/1.1",
                headers: headers(raw.response.headers),
                // `size`, `compression` and browsers' -1 sizes describe the wire, not the body: ignored.
                body: try body(raw.response.content, at: "response.content") ?? Data(),
                mimeType: raw.response.content?.mimeType ?? "", error: raw.response._error))
    }

    private static func describe(jsonError error: any Error) -> String {
        let nsError = error as NSError
        return (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
    }

    /// Typed access to decoded JSON; every failure names `file`, the key path and what was there.
    private struct Reader {
        let file: String

        func fail(_ path: String, _ expected: String, got value: Any?) -> HTTPMockError {
            HTTPMockError(.har, "\(file): \(path): expected \(expected), got \(Reader.show(value))")
        }

        static func show(_ value: Any?) -> String {
            switch value {
            case nil: return "nothing (the field is missing)"
            case is NSNull: return "null"
            case let string as String: return "the string \"\(string.count > 60 ? String(string.prefix(60)) + "…" : string)\""
            case let number as NSNumber: return "the number \(number)"
            case is [Any]: return "an array"
            case is [String: Any]: return "an object"
            default: return "\(value!)"
            }
        }

        func object(_ value: Any?, at path: String) throws(HTTPMockError) -> [String: Any] {
            guard let object = value as? [String: Any] else { throw fail(path, "an object", got: value) }
            return object
        }

        func array(_ value: Any?, at path: String) throws(HTTPMockError) -> [Any] {
            guard let array = value as? [Any] else { throw fail(path, "an array", got: value) }
            return array
        }

        func string(_ value: Any?, at path: String) throws(HTTPMockError) -> String {
            guard let string = value as? String else { throw fail(path, "a string", got: value) }
            return string
        }

        /// A string that may be missing or null (browsers leave optional fields out).
        func optionalString(_ value: Any?, at path: String) throws(HTTPMockError) -> String? {
            if value == nil || value is NSNull { return nil }
            return try string(value, at: path)
        }

        func number(_ value: Any?, at path: String) throws(HTTPMockError) -> Double? {
            if value == nil || value is NSNull { return nil }
            guard !(value is String), let number = value as? NSNumber else { throw fail(path, "a number", got: value) }
            return number.doubleValue
        }

        func headers(_ value: Any?, at path: String) throws(HTTPMockError) -> [HARHeader]? {
            if value == nil || value is NSNull { return nil }
            var headers: [HARHeader] = []
            for (index, raw) in try array(value, at: path).enumerated() {
                let object = try object(raw, at: "\(path)[\(index)]")
                let name = try string(object["name"], at: "\(path)[\(index)].name")
                headers.append(HARHeader(name: name, value: try string(object["value"], at: "\(path)[\(index)].value")))
            }
            return headers
        }

        func rawBody(_ value: Any?, at path: String) throws(HTTPMockError) -> RawBody? {
            if value == nil || value is NSNull { return nil }
            let object = try object(value, at: path)
            return RawBody(
                text: try optionalString(object["text"], at: "\(path).text"),
                encoding: try optionalString(object["encoding"], at: "\(path).encoding"),
                mimeType: try optionalString(object["mimeType"], at: "\(path).mimeType"))
        }

        /// The entry's fields with their JSON types checked; ``HARReader/make(_:at:file:)`` checks their values.
        func entry(_ raw: Any, at path: String) throws(HTTPMockError) -> RawEntry {
            let entry = try object(raw, at: path)
            let request = try object(entry["request"], at: "\(path).request")
            let response = try object(entry["response"], at: "\(path).response")
            guard let status = try number(response["status"], at: "\(path).response.status") else {
                throw fail("\(path).response.status", "a number", got: response["status"])
            }
            return RawEntry(
                startedDateTime: try optionalString(entry["startedDateTime"], at: "\(path).startedDateTime"),
                time: try number(entry["time"], at: "\(path).time"),
                request: RawRequest(
                    method: try string(request["method"], at: "\(path).request.method"),
                    url: try string(request["url"], at: "\(path).request.url"),
                    httpVersion: try optionalString(request["httpVersion"], at: "\(path).request.httpVersion"),
                    headers: try headers(request["headers"], at: "\(path).request.headers"),
                    postData: try rawBody(request["postData"], at: "\(path).request.postData")),
                response: RawResponse(
                    status: status,
                    statusText: try optionalString(response["statusText"], at: "\(path).response.statusText"),
                    httpVersion: try optionalString(response["httpVersion"], at: "\(path).response.httpVersion"),
                    headers: try headers(response["headers"], at: "\(path).response.headers"),
                    content: try rawBody(response["content"], at: "\(path).response.content"),
                    _error: try optionalString(response["_error"], at: "\(path).response._error")))
        }
    }
}

// The fields HTTPMock reads, as the decoder sees them: everything but the essentials optional.
// Unknown fields (browsers' `_` extras, `cache`, `timings`, cookies) are skipped.
private struct RawArchive: Decodable {
    struct Log: Decodable { var entries: [RawEntry] }
    var log: Log
}

struct RawEntry: Decodable {
    var startedDateTime: String?
    var time: Double?
    var request: RawRequest
    var response: RawResponse
}

struct RawRequest: Decodable {
    var method: String
    var url: String
    var httpVersion: String?
    var headers: [HARHeader]?
    var postData: RawBody?
}

struct RawResponse: Decodable {
    var status: Double
    var statusText: String?
    var httpVersion: String?
    var headers: [HARHeader]?
    var content: RawBody?
    var _error: String?
}

struct RawBody: Decodable {
    var text: String?
    var encoding: String?
    var mimeType: String?
}

/// The parts of an absolute http(s) URL routes need, split by hand: `URLComponents` costs more
/// than everything else per entry.
struct HARURL {
    var host: String
    var port: Int?
    var path: String
    var query: String?

    init?(_ url: String) {
        // Scanned as UTF-8 bytes: every delimiter is ASCII, and `String.range(of:)` goes through
        // NSString, which costs more than the rest of loading an entry.
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = url[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        var rest = url[bytes.index(after: colon)...]
        guard rest.utf8.starts(with: "//".utf8) else { return nil }
        rest = rest.dropFirst(2)
        if let fragment = rest.utf8.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<fragment] }
        let authorityEnd = rest.utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let userInfo = authority.utf8.lastIndex(of: UInt8(ascii: "@")) {
            authority = authority[authority.utf8.index(after: userInfo)...]
        }
        var host = authority
        var portText: Substring = ""
        if authority.utf8.first == UInt8(ascii: "[") {
            guard let close = authority.utf8.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = authority[...close]
            let after = authority[authority.utf8.index(after: close)...]
            if !after.isEmpty {
                guard after.utf8.first == UInt8(ascii: ":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.utf8.lastIndex(of: UInt8(ascii: ":")) {
            host = authority[..<colon]
            portText = authority[authority.utf8.index(after: colon)...]
        }
        guard !host.isEmpty, !host.utf8.contains(UInt8(ascii: " ")) else { return nil }
        if !portText.isEmpty {
            guard let port = Int(portText), (0...65535).contains(port) else { return nil }
            self.port = port
        }
        self.host = String(host)
        let pathAndQuery = rest[authorityEnd...]
        if let question = pathAndQuery.utf8.firstIndex(of: UInt8(ascii: "?")) {
            path = String(pathAndQuery[..<question])
            query = String(pathAndQuery[pathAndQuery.utf8.index(after: question)...])
        } else {
            path = String(pathAndQuery)
        }
    }
}

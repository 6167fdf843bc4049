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
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: json, options: [])
        } catch {
            throw HTTPMockError(.har, "\(file): not valid JSON: \(describe(jsonError: error))")
        }
        let reader = Reader(file: file)
        let log = try reader.object(try reader.object(root, at: "(root)")["log"], at: "log")
        let list = try reader.array(log["entries"], at: "log.entries")
        var entries: [HAREntry] = []
        entries.reserveCapacity(list.count)
        for (index, raw) in list.enumerated() {
            entries.append(try reader.entry(raw, at: "log.entries[\(index)]"))
        }
        return entries
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
            guard let number = value as? NSNumber, !(value is String) else { throw fail(path, "a number", got: value) }
            return number.doubleValue
        }

        func headers(_ value: Any?, at path: String) throws(HTTPMockError) -> [HARHeader] {
            if value == nil || value is NSNull { return [] }
            var headers: [HARHeader] = []
            for (index, raw) in try array(value, at: path).enumerated() {
                let object = try object(raw, at: "\(path)[\(index)]")
                let name = try string(object["name"], at: "\(path)[\(index)].name")
                // HTTP/2 pseudo-headers (`:authority`, `:status`) are not header fields.
                if name.hasPrefix(":") { continue }
                headers.append(HARHeader(name: name, value: try string(object["value"], at: "\(path)[\(index)].value")))
            }
            return headers
        }

        func body(text: Any?, encoding: Any?, at path: String) throws(HTTPMockError) -> Data? {
            guard let text = try optionalString(text, at: "\(path).text") else { return nil }
            switch try optionalString(encoding, at: "\(path).encoding")?.lowercased() {
            case nil, "", "utf-8", "utf8":
                return Data(text.utf8)
            case "base64":
                // Some exporters wrap base64 in lines.
                guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                    throw fail("\(path).text", "base64 (as \(path).encoding says)", got: text)
                }
                return data
            case let other?:
                throw HTTPMockError(.har, "\(file): \(path).encoding: expected \"base64\" or no encoding, got \"\(other)\"")
            }
        }

        func entry(_ raw: Any, at path: String) throws(HTTPMockError) -> HAREntry {
            let entry = try object(raw, at: path)
            let request = try object(entry["request"], at: "\(path).request")
            let response = try object(entry["response"], at: "\(path).response")

            let method = try string(request["method"], at: "\(path).request.method")
            let url = try string(request["url"], at: "\(path).request.url")
            guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", components.host?.isEmpty == false else {
                throw fail("\(path).request.url", "an absolute http or https URL", got: url)
            }
            var requestBody: Data?
            var requestMimeType: String?
            if let postData = request["postData"], !(postData is NSNull) {
                let object = try object(postData, at: "\(path).request.postData")
                requestBody = try body(text: object["text"], encoding: object["encoding"], at: "\(path).request.postData")
                requestMimeType = try optionalString(object["mimeType"], at: "\(path).request.postData.mimeType")
            }

            guard let statusNumber = try number(response["status"], at: "\(path).response.status") else {
                throw fail("\(path).response.status", "a number", got: response["status"])
            }
            let status = Int(statusNumber)
            guard Double(status) == statusNumber, status == 0 || (100...599).contains(status) else {
                throw fail("\(path).response.status", "an HTTP status (100...599, or 0 for no response)", got: response["status"])
            }
            var responseBody = Data()
            var mimeType = ""
            if let content = response["content"], !(content is NSNull) {
                let object = try object(content, at: "\(path).response.content")
                responseBody = try body(text: object["text"], encoding: object["encoding"], at: "\(path).response.content") ?? Data()
                mimeType = try optionalString(object["mimeType"], at: "\(path).response.content.mimeType") ?? ""
                // `size`, `compression` and browsers' -1 sizes describe the wire, not the body: ignored.
            }
            let time = try number(entry["time"], at: "\(path).time") ?? 0
            guard time.isFinite else { throw fail("\(path).time", "a number of milliseconds", got: entry["time"]) }
            return HAREntry(
                startedDateTime: try optionalString(entry["startedDateTime"], at: "\(path).startedDateTime") ?? "",
                time: max(0, time),
                request: HARRequest(
                    method: method, url: url,
                    httpVersion: try optionalString(request["httpVersion"], at: "\(path).request.httpVersion") ?? "HTTP/1.1",
                    headers: try headers(request["headers"], at: "\(path).request.headers"),
                    body: requestBody, bodyMimeType: requestMimeType),
                response: HARResponse(
                    status: status,
                    statusText: try optionalString(response["statusText"], at: "\(path).response.statusText") ?? "",
                    httpVersion: try optionalString(response["httpVersion"], at: "\(path).response.httpVersion") ?? "HTTP/1.1",
                    headers: try headers(response["headers"], at: "\(path).response.headers"),
                    body: responseBody, mimeType: mimeType,
                    error: try optionalString(response["_error"], at: "\(path).response._error")))
        }
    }
}

#if Server
import Foundation
import HTTPMock

/// WireMock's response definition, turned into a `MockResponse`.
enum WireMockResponse {
    static let keys: Set<String> = [
        "status", "statusMessage", "headers", "body", "jsonBody", "base64Body", "bodyFileName",
        "fixedDelayMilliseconds", "fault", "proxyBaseUrl",
        // TEMPLATING HOOK 1/3 (SPEC §21): WireMock/Templating/ reads these two keys.
        "transformers", "transformerParameters",
    ]

    static let faults: [String: MockResponse.Fault] = [
        "CONNECTION_RESET_BY_PEER": .connectionLost(afterBytes: 0),
        "EMPTY_RESPONSE": .emptyResponse,
        "MALFORMED_RESPONSE_CHUNK": .connectionLost(afterBytes: 1),
        "RANDOM_DATA_THEN_CLOSE": .malformedResponse,
    ]

    /// Refuses what cannot be served, naming it (before anything is registered).
    static func validate(_ value: JSONValue) throws(WireMockMappingError) {
        guard case .object(let raw) = value else {
            throw WireMockMappingError(pointer: "/response", message: "response must be an object, got \(value)")
        }
        let object = raw.filter { $0.value != .null }
        for key in object.keys.sorted() where !keys.contains(key) {
            throw WireMockMappingError(pointer: "/response/" + key, message: "unsupported field \(key)")
        }
        if let status = object["status"] {
            guard case .integer(let code) = status, (100...599).contains(code) else {
                throw WireMockMappingError(pointer: "/response/status", message: "status must be an HTTP status (100...599), got \(status)")
            }
        }
        let bodies = ["body", "jsonBody", "base64Body", "bodyFileName"].filter { object[$0] != nil }
        if bodies.count > 1 {
            throw WireMockMappingError(
                pointer: "/response", message: "give one of body, jsonBody, base64Body, bodyFileName; got \(bodies.joined(separator: ", "))"
            )
        }
        if case .string(let text)? = object["base64Body"], Data(base64Encoded: text) == nil {
            throw WireMockMappingError(pointer: "/response/base64Body", message: "base64Body is not base64")
        }
        if let fault = object["fault"] {
            guard case .string(let name) = fault, faults[name] != nil else {
                throw WireMockMappingError(
                    pointer: "/response/fault",
                    message: "fault must be one of \(faults.keys.sorted().joined(separator: ", ")), got \(fault)")
            }
        }
        if let delay = object["fixedDelayMilliseconds"] {
            switch delay {
            case .integer(let ms) where ms >= 0: break
            case .double(let ms) where ms >= 0 && ms.isFinite: break
            default:
                throw WireMockMappingError(pointer: "/response/fixedDelayMilliseconds", message: "must be a number ≥ 0, got \(delay)")
            }
        }
        if let proxy = object["proxyBaseUrl"] {
            // TEMPLATING HOOK 2/3 (SPEC §21): a template (`{{…}}`) is checked when it is rendered, per request.
            guard case .string(let text) = proxy,
                text.contains("{{") || URL(string: text).map({ $0.scheme != nil && $0.host != nil }) == true
            else {
                throw WireMockMappingError(
                    pointer: "/response/proxyBaseUrl", message: "must be a URL like http://localhost:8000, got \(proxy)")
            }
        }
        if let headers = object["headers"] { _ = try self.headers(headers) }
    }

    private static func headers(_ value: JSONValue) throws(WireMockMappingError) -> HTTPHeaders {
        guard case .object(let object) = value else {
            throw WireMockMappingError(pointer: "/response/headers", message: "headers must be an object, got \(value)")
        }
        var headers = HTTPHeaders()
        for name in object.keys.sorted() {
            switch object[name] {
            case .array(let values)?:
                headers[name] = try values.map { value throws(WireMockMappingError) in
                    try WireMockStringMatcher.string(value, at: "/response/headers/" + name)
                }.joined(separator: ", ")
            case let value?:
                headers[name] = try WireMockStringMatcher.string(value, at: "/response/headers/" + name)
            case nil:
                break
            }
        }
        return headers
    }

    /// The response of a validated definition; `files` is the `__files` folder. A templated
    /// definition (`transformers`, or `globalTemplating`) renders per request (SPEC §21).
    static func make(_ value: JSONValue, files: URL?, globalTemplating: Bool = false) throws(WireMockMappingError) -> MockResponse {
        try validate(value)
        guard case .object(let raw) = value else { return .empty() }
        let object = raw.filter { $0.value != .null }
        // TEMPLATING HOOK 3/3 (SPEC §21): a templated definition is built by
        // WireMock/Templating/WireMockResponseTemplate.swift, which calls back here for its static parts.
        if let templated = try WireMockResponseTemplate.make(
            object, files: files, globalTemplating: globalTemplating,
            staticResponse: { twin throws(WireMockMappingError) in try make(.object(twin), files: files) })
        {
            return templated
        }
        let status: HTTPStatus = if case .integer(let code)? = object["status"] { HTTPStatus(code) } else { .ok }
        let headers = try object["headers"].map { value throws(WireMockMappingError) in try self.headers(value) } ?? HTTPHeaders()
        var delivery = Delivery.instant
        switch object["fixedDelayMilliseconds"] {
        case .integer(let ms)?: delivery = .delayed(Double(ms) / 1000)
        case .double(let ms)?: delivery = .delayed(ms / 1000)
        default: break
        }
        if case .string(let base)? = object["proxyBaseUrl"], let url = URL(string: base) {
            return .forward(to: url, lifetime: .eternal, delivery: delivery)
        }
        var body = Data()
        var contentType: String?
        if case .string(let text)? = object["body"] {
            body = Data(text.utf8)
            contentType = "text/plain; charset=utf-8"
        } else if let json = object["jsonBody"] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            body = (try? encoder.encode(json)) ?? Data()
            contentType = "application/json"
        } else if case .string(let text)? = object["base64Body"] {
            body = Data(base64Encoded: text) ?? Data()
        } else if case .string(let name)? = object["bodyFileName"] {
            guard let files else {
                throw WireMockMappingError(
                    pointer: "/response/bodyFileName", message: "bodyFileName \(name) needs a __files folder (--wiremock-root DIR)")
            }
            let file = files.appendingPathComponent(name)
            guard !name.contains(".."), FileManager.default.fileExists(atPath: file.path) else {
                throw WireMockMappingError(pointer: "/response/bodyFileName", message: "no file \(name) in \(files.path)")
            }
            return .file(url: file, status: status, headers: headers, lifetime: .eternal, delivery: delivery)
        } else if let given = object["body"] {
            throw WireMockMappingError(pointer: "/response/body", message: "body must be a string (use jsonBody for JSON), got \(given)")
        }
        if case .string(let name)? = object["fault"], let fault = faults[name] {
            return .fault(fault, body: body.isEmpty ? nil : body, status: status, headers: headers, lifetime: .eternal, delivery: delivery)
        }
        return .data(
            body, contentType: contentType ?? "application/octet-stream", status: status, headers: headers, lifetime: .eternal,
            delivery: delivery)
    }
}
#endif

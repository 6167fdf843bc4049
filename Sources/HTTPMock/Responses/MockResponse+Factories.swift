import Foundation

extension MockResponse {
    /// A JSON body encoded from `value` with `encoder`; `Content-Type: application/json`
    /// unless `headers` sets one.
    ///
    /// ```swift
    /// .encodable(User(id: 1, name: "Ada"), status: .created)
    /// ```
    ///
    /// The default encoder writes `Date` as ISO 8601 (`2025-10-01T12:00:00Z`), as
    /// bstien/HTTPMock does; pass your own `encoder` to change that or anything else.
    /// `JSONEncoder` writes `/` as `\/` unless `.withoutEscapingSlashes` is set.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - status: The status, `.ok` by default.
    ///   - headers: Response headers; they win over the `Content-Type` set here.
    ///   - encoder: The encoder; by default a `JSONEncoder` with `.iso8601` dates.
    ///   - lifetime: How many requests it answers.
    ///   - delivery: When it is delivered.
    ///
    ///   - fileID: The call site, for error reports; leave the default.
    ///   - filePath: The call site, for error reports; leave the default.
    ///   - line: The call site, for error reports; leave the default.
    ///   - column: The call site, for error reports; leave the default.
    /// If `value` fails to encode, registering the response records a test failure at this
    /// call site naming the type and the encoder's error, and registers nothing.
    public static func encodable<Value: Encodable>(
        _ value: Value,
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        encoder: JSONEncoder = .httpMockDefault(),
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        do {
            let data = try encoder.encode(value)
            return .http(
                status: status, headers: headers, body: .data(data),
                defaultContentType: "application/json", lifetime: lifetime, delivery: delivery)
        } catch {
            return .invalid(
                "MockResponse.encodable could not encode a value of type \(Value.self): \(error)",
                lifetime: lifetime, delivery: delivery,
                location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        }
    }

    /// A JSON body serialized from a dictionary of JSON values (strings, numbers, booleans,
    /// `NSNull`, arrays and dictionaries of them), keys sorted; `Content-Type: application/json`.
    ///
    /// ```swift
    /// .dictionary(["id": 1, "tags": ["a", "b"]])
    /// ```
    public static func dictionary(
        _ dictionary: [String: any Sendable],
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        guard JSONSerialization.isValidJSONObject(dictionary) else {
            return .invalid(
                "MockResponse.dictionary holds a value that is not JSON (only String, numbers, Bool, NSNull, arrays and dictionaries are): \(dictionary)",
                lifetime: lifetime, delivery: delivery, location: location)
        }
        do {
            let data = try JSONSerialization.data(withJSONObject: dictionary, options: [.sortedKeys])
            return .http(
                status: status, headers: headers, body: .data(data),
                defaultContentType: "application/json", lifetime: lifetime, delivery: delivery)
        } catch {
            return .invalid(
                "MockResponse.dictionary could not serialize \(dictionary): \(error)",
                lifetime: lifetime, delivery: delivery, location: location)
        }
    }

    /// A body of raw JSON text, sent exactly as given (it is not validated, so malformed JSON
    /// can be served on purpose); `Content-Type: application/json`.
    ///
    /// ```swift
    /// .json(#"{"id": 1}"#)
    /// ```
    public static func json(
        _ text: String,
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant
    ) -> MockResponse {
        .http(
            status: status, headers: headers, body: .data(Data(text.utf8)),
            defaultContentType: "application/json", lifetime: lifetime, delivery: delivery)
    }

    /// A UTF-8 text body; `Content-Type: text/plain; charset=utf-8`.
    ///
    /// ```swift
    /// .plaintext("pong")
    /// ```
    public static func plaintext(
        _ text: String,
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant
    ) -> MockResponse {
        .http(
            status: status, headers: headers, body: .data(Data(text.utf8)),
            defaultContentType: "text/plain; charset=utf-8", lifetime: lifetime, delivery: delivery)
    }

    /// Raw bytes. `contentType` (default `application/octet-stream`) is used unless `headers`
    /// sets `Content-Type`.
    ///
    /// ```swift
    /// .data(pngBytes, contentType: "image/png")
    /// ```
    public static func data(
        _ data: Data,
        contentType: String? = nil,
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant
    ) -> MockResponse {
        .http(
            status: status, headers: headers, body: .data(data),
            defaultContentType: contentType ?? "application/octet-stream", lifetime: lifetime, delivery: delivery)
    }

    /// No body; `200 OK` unless `status` says otherwise (as in bstien/HTTPMock).
    ///
    /// ```swift
    /// .empty()                     // 200, no body
    /// .empty(status: .noContent)   // 204
    /// .empty(status: .notFound)
    /// ```
    public static func empty(
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant
    ) -> MockResponse {
        .http(
            status: status, headers: headers, body: .none, defaultContentType: nil,
            lifetime: lifetime, delivery: delivery)
    }

    /// The contents of a file, streamed from disk when the request is served (never read
    /// whole for delegate-driven tasks). `Content-Type` comes from the file's extension
    /// unless `headers` sets one.
    ///
    /// ```swift
    /// .file(url: fixturesURL.appendingPathComponent("user.json"))
    /// ```
    ///
    /// A file that does not exist (or is a directory) is reported at this call site, with its
    /// path, when the response is registered.
    public static func file(
        url: URL,
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        var isDirectory: ObjCBool = false
        guard url.isFileURL, FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            return .invalid(
                "MockResponse.file: no file at \(url.isFileURL ? url.path : url.absoluteString)",
                lifetime: lifetime, delivery: delivery, location: location)
        }
        guard !isDirectory.boolValue else {
            return .invalid(
                "MockResponse.file: \(url.path) is a directory, not a file",
                lifetime: lifetime, delivery: delivery, location: location)
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            return .invalid(
                "MockResponse.file: \(url.path) is not readable",
                lifetime: lifetime, delivery: delivery, location: location)
        }
        return .http(
            status: status, headers: headers, body: .file(url),
            defaultContentType: ContentType.forPathExtension(url.pathExtension),
            lifetime: lifetime, delivery: delivery)
    }

    /// A file from a bundle, typically a SwiftPM resource: `.file(named: "user", extension: "json", in: .module)`.
    ///
    /// A resource that the bundle does not have is reported at this call site, naming the
    /// resource and the bundle's path.
    public static func file(
        named name: String,
        extension fileExtension: String? = nil,
        in bundle: Bundle,
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        guard let url = bundle.url(forResource: name, withExtension: fileExtension) else {
            let fullName = fileExtension.map { "\(name).\($0)" } ?? name
            return .invalid(
                "MockResponse.file: no resource \(fullName) in bundle \(bundle.bundlePath)",
                lifetime: lifetime, delivery: delivery,
                location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        }
        return .file(
            url: url, status: status, headers: headers, lifetime: lifetime, delivery: delivery,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// A transport failure: the request fails with `error` instead of receiving a response.
    /// Any error type arrives unchanged.
    ///
    /// ```swift
    /// .failure(URLError(.notConnectedToInternet))
    /// ```
    public static func failure(
        _ error: any Error,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant
    ) -> MockResponse {
        MockResponse(payload: .failure(error), lifetime: lifetime, delivery: delivery)
    }
}


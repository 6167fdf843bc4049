import Foundation

/// One answer to one request: an HTTP response with a body, or a transport failure.
///
/// Build responses with the factories (`.encodable`, `.json`, `.plaintext`, `.data`, `.empty`,
/// `.file`, `.failure`, …) and queue them with ``HTTPMock/addResponses(forPath:host:method:query:matching:headers:body:where:when:responses:fileID:filePath:line:column:)-(_,_,_,[String:MatchValue]?,_,[String:MatchValue]?,_,_,_,_,_,_,_,_)``.
/// Every factory takes, after its value, `status:`, `headers:`, `lifetime:` and `delivery:`.
///
/// ```swift
/// mock.addResponses(forPath: "/user", host: "api.example.com", responses: [
///     .encodable(User(name: "Ada")),
///     .empty(status: .notFound),
/// ])
/// ```
///
/// A factory that cannot build its body (an `Encodable` that fails to encode, a file that does
/// not exist) does not crash and does not fall back to an empty body: the mistake is reported
/// as a test failure at the factory's call site when the response is registered, and nothing
/// from that registration is added.
public struct MockResponse: Sendable {
    enum Payload: Sendable {
        case http(HTTPPayload)
        case failure(any Error)
        /// Computed per request by a user closure.
        case dynamic(DynamicHandler)
        /// Sent to the network through the instance's passthrough session.
        case passthrough
        /// A network failure; `head` is what `.connectionLost` sends before it.
        case fault(Fault, head: HTTPPayload)
        /// A factory could not build the response; registering it reports `message` at `location`.
        case invalid(message: String, location: SourceLocation)
    }

    /// An HTTP answer. `headers` are the ones the user gave; `defaultContentType` is the
    /// factory's, applied only when no `Content-Type` is present after inherited headers (DSL)
    /// and the user's are merged, so a `Headers` block can set the type of a `.json` response.
    struct HTTPPayload: Sendable {
        var status: HTTPStatus
        var headers: HTTPHeaders
        var body: Body
        var defaultContentType: String?
        /// The header fields to send, computed once at registration for in-memory bodies
        /// (`Content-Length` included), so serving does not rebuild them per request.
        var preparedHeaderFields: [String: String]?
        /// Set with `preparedHeaderFields` when serving this payload is over once it is sent: a
        /// valid status that is not a redirect to follow, no `Set-Cookie` to store. Such a
        /// response, when it also starts at once, is answered inside `startLoading` without an
        /// exchange (`Resolution.completeAnswer`).
        var completesAtOnce = false

        /// The headers to send.
        var effectiveHeaders: HTTPHeaders {
            guard let defaultContentType, !headers.contains("Content-Type") else { return headers }
            var headers = headers
            headers["Content-Type"] = defaultContentType
            return headers
        }
    }

    enum Body: Sendable, Equatable {
        case none
        case data(Data)
        case file(URL)
        /// A `text/event-stream` body, sent event by event.
        case events(EventSource)
    }

    /// Everything in one object: a response is copied from its queue into the resolution, the
    /// exchange and its closures for every request, and a copy should cost one retain rather
    /// than one per field. Copy-on-write: a setter copies the object unless this value holds the
    /// only reference.
    private final class Storage: @unchecked Sendable {
        // @unchecked: the `var`s are only written through a uniquely referenced storage
        // (`uniqueStorage()`), never while another value or thread can read it.
        let payload: Payload
        var lifetime: Lifetime
        var delivery: Delivery
        var transition: ScenarioTransition?
        /// The payload prepared for answering at once, when it completes at once
        /// (``HTTPPayload/completesAtOnce``): made here, once, not per request.
        let immediate: ImmediateAnswer?

        init(
            payload: Payload, lifetime: Lifetime, delivery: Delivery, transition: ScenarioTransition?,
            immediate: ImmediateAnswer? = nil
        ) {
            self.payload = payload
            self.lifetime = lifetime
            self.delivery = delivery
            self.transition = transition
            if let immediate {
                self.immediate = immediate
            } else if case .http(let http) = payload, http.completesAtOnce, let headerFields = http.preparedHeaderFields {
                self.immediate = ImmediateAnswer(status: http.status, headerFields: headerFields, body: http.body)
            } else {
                self.immediate = nil
            }
        }
    }

    private var storage: Storage

    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) {
            storage = Storage(
                payload: storage.payload, lifetime: storage.lifetime, delivery: storage.delivery, transition: storage.transition,
                immediate: storage.immediate)
        }
        return storage
    }

    var payload: Payload { storage.payload }

    /// The payload prepared for answering at once; `nil` unless it completes at once.
    var immediate: ImmediateAnswer? { storage.immediate }

    /// How many requests this response answers. See ``Lifetime``.
    public var lifetime: Lifetime {
        get { storage.lifetime }
        set { uniqueStorage().lifetime = newValue }
    }

    /// When and how fast it is delivered. See ``Delivery``.
    public var delivery: Delivery {
        get { storage.delivery }
        set { uniqueStorage().delivery = newValue }
    }

    /// The scenario move serving this response makes (``transitioning(_:to:)``).
    var transition: ScenarioTransition? {
        get { storage.transition }
        set { uniqueStorage().transition = newValue }
    }

    /// The HTTP status this response answers with. A response that is not an HTTP answer
    /// (`.failure`, `.dynamic`, `.passthrough`) has no status of its own and reports `0`.
    public var status: HTTPStatus {
        if case .http(let http) = payload { return http.status }
        if case .dynamic(let handler) = payload, let declared = handler.declared { return declared.status }
        return HTTPStatus(0)
    }

    /// The headers this response is sent with, including the `Content-Type` its factory sets
    /// (`headers["content-type"]`, names case-insensitive). Empty for a response that is not an
    /// HTTP answer. `Content-Length` is added when it is served.
    ///
    /// ```swift
    /// MockResponse.encodable(user).headers["Content-Type"]   // "application/json"
    /// ```
    public var headers: HTTPHeaders {
        if case .http(let http) = payload { return http.effectiveHeaders }
        if case .dynamic(let handler) = payload, let declared = handler.declared { return declared.headers }
        return HTTPHeaders()
    }

    init(payload: Payload, lifetime: Lifetime, delivery: Delivery) {
        storage = Storage(payload: payload, lifetime: lifetime, delivery: delivery, transition: nil)
    }

    /// `self` with another payload, keeping lifetime, delivery and scenario transition.
    func replacingPayload(_ payload: Payload) -> MockResponse {
        var copy = MockResponse(payload: payload, lifetime: lifetime, delivery: delivery)
        copy.transition = transition
        return copy
    }

    static func http(
        status: HTTPStatus, headers: HTTPHeaders, body: Body, defaultContentType: String?,
        lifetime: Lifetime, delivery: Delivery
    ) -> MockResponse {
        MockResponse(
            payload: .http(
                HTTPPayload(status: status, headers: headers, body: body, defaultContentType: defaultContentType, preparedHeaderFields: nil)
            ),
            lifetime: lifetime, delivery: delivery)
    }

    /// `self` with its header fields computed once, for registration.
    func prepared() -> MockResponse {
        guard case .http(var http) = payload else { return self }
        let size: Int
        switch http.body {
        case .none: size = 0
        case .data(let data): size = data.count
        case .file: return self  // the size is read when served: the file may change
        case .events: return self  // no Content-Length: the stream ends when it ends
        }
        var headers = http.effectiveHeaders
        if !http.status.forbidsBody, !headers.contains("Content-Length") {
            headers["Content-Length"] = String(size)
        }
        http.preparedHeaderFields = headers.dictionary
        http.completesAtOnce =
            http.status.isValid && !Redirects.isRedirect(http.status) && !http.headers.contains("Set-Cookie")
        return replacingPayload(.http(http))
    }

    static func invalid(
        _ message: String, lifetime: Lifetime, delivery: Delivery, location: SourceLocation
    ) -> MockResponse {
        MockResponse(payload: .invalid(message: message, location: location), lifetime: lifetime, delivery: delivery)
    }
}

// MARK: - Factories

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

// MARK: - Redirects, dynamic responses, passthrough

extension MockResponse {
    /// A redirect to `location` (absolute, or relative to the request URL), `302 Found` by default.
    ///
    /// HTTPMock follows it itself (FoundationNetworking cannot): the `Location` is resolved
    /// against the request URL and matched again, `303` (and `301`/`302` after a `POST`) turn
    /// into a `GET` without body, and the client sees the final response, whose `url` is the
    /// final URL. Set ``HTTPMock/followsRedirects`` to `false` to receive the 3xx as is.
    ///
    /// ```swift
    /// .redirect(to: "/login", status: .seeOther)
    /// ```
    public static func redirect(
        to location: String,
        status: HTTPStatus = .found,
        headers: HTTPHeaders = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant
    ) -> MockResponse {
        var headers = headers
        headers["Location"] = location
        return .http(status: status, headers: headers, body: .none, defaultContentType: nil, lifetime: lifetime, delivery: delivery)
    }

    /// A response computed when the request arrives.
    ///
    /// ```swift
    /// .dynamic { request in
    ///     let id = request.pathParameters["id"] ?? "?"
    ///     return .encodable(User(id: id))
    /// }
    /// ```
    ///
    /// The handler may suspend; a handler that has not answered when the request's timeout (or
    /// the instance's ``HTTPMock/timeout``) passes is abandoned and the request fails with
    /// `URLError(.timedOut)`. A thrown error fails the request with that error. The returned
    /// response is delivered with its own `delivery`, or with this one when it has
    /// `.instant`; its `lifetime` is ignored.
    public static func dynamic(
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        _ handler: @escaping @Sendable (MockRequest) async throws -> MockResponse
    ) -> MockResponse {
        MockResponse(payload: .dynamic(DynamicHandler(handler: handler)), lifetime: lifetime, delivery: delivery)
    }

    /// Send this request to the real network (through the instance's passthrough session)
    /// and relay the answer, whatever the instance's ``HTTPMock/unmockedPolicy``.
    public static func passthrough(lifetime: Lifetime = .single, delivery: Delivery = .instant) -> MockResponse {
        MockResponse(payload: .passthrough, lifetime: lifetime, delivery: delivery)
    }
}

/// A dynamic response's closure, kept in a struct: on this toolchain a closure stored directly
/// in lock-protected state is re-wrapped in a thunk on every read (SPEC §10).
struct DynamicHandler: Sendable {
    let handler: @Sendable (MockRequest) async throws -> MockResponse
    /// For a template: the same handler reading a given instance's store (see `bound(to:)`).
    var bindStore: (@Sendable (MockStore) -> DynamicHandler)? = nil
    /// For a template: the status and headers every answer has, known before it is rendered.
    var declared: (status: HTTPStatus, headers: HTTPHeaders)? = nil
}

// MARK: - Description

extension MockResponse: CustomStringConvertible {
    /// A one-line summary of the response: its kind, status and body.
    public var description: String {
        switch payload {
        case .http(let http):
            let bodyText: String
            switch http.body {
            case .none: bodyText = "no body"
            case .data(let data): bodyText = "\(data.count) bytes"
            case .file(let url): bodyText = "file \(url.lastPathComponent)"
            case .events: bodyText = "event stream"
            }
            return "\(http.status.code) (\(bodyText))"
        case .failure(let error):
            return "failure(\(error))"
        case .dynamic:
            return "dynamic"
        case .passthrough:
            return "passthrough"
        case .fault(let fault, _):
            return "fault(\(fault))"
        case .invalid(let message, _):
            return "invalid(\(message))"
        }
    }
}

extension JSONEncoder {
    /// The encoder `MockResponse.encodable` uses by default: `Date` as ISO 8601.
    @usableFromInline
    static func httpMockDefault() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

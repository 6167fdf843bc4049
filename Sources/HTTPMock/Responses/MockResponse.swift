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
        /// Run by the server once the response was written (WireMock's webhooks).
        var afterServed: (@Sendable (MockRequest) -> Void)?
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
            let copy = Storage(
                payload: storage.payload, lifetime: storage.lifetime, delivery: storage.delivery, transition: storage.transition,
                immediate: storage.immediate)
            copy.afterServed = storage.afterServed
            storage = copy
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

    /// `self` with another payload, keeping lifetime, delivery, scenario transition and the
    /// action after serving.
    func replacingPayload(_ payload: Payload) -> MockResponse {
        var copy = MockResponse(payload: payload, lifetime: lifetime, delivery: delivery)
        copy.transition = transition
        copy.afterServed = afterServed
        return copy
    }

    /// What the server does once it has written this response (WireMock's webhooks); `nil`:
    /// nothing. A response with one is never answered by the lookup itself (it is not
    /// ``completeAnswer(under:)``), so the server always sees it sent.
    package var afterServed: (@Sendable (MockRequest) -> Void)? {
        get { storage.afterServed }
        set { uniqueStorage().afterServed = newValue }
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

import Foundation

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
/// in lock-protected state is re-wrapped in a thunk on every read.
struct DynamicHandler: Sendable {
    let handler: @Sendable (MockRequest) async throws -> MockResponse
    /// For a template: the same handler reading a given instance's store (see `bound(to:)`).
    var bindStore: (@Sendable (MockStore) -> DynamicHandler)? = nil
    /// For a template: the status and headers every answer has, known before it is rendered.
    var declared: (status: HTTPStatus, headers: HTTPHeaders)? = nil
    /// For ``MockResponse/forward(to:lifetime:delivery:)``: where the request goes. The
    /// in-process transport runs ``handler``; the server streams the upstream answer through
    /// instead (``ServedAnswer/forward(_:)``), with bounded memory.
    var forwardBase: URL? = nil
    /// For a forward that changes the request first (WireMock's proxy request adjustments): the
    /// change, applied before the server streams it too.
    var forwardAdjust: (@Sendable (MockRequest) -> MockRequest)? = nil
}

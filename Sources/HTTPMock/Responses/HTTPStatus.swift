/// An HTTP status code.
///
/// Write a named constant (`.notFound`) or an integer literal (`status: 418`).
/// Every status registered by RFC 9110 has a constant, plus `.tooManyRequests` (RFC 6585).
///
/// ```swift
/// mock.addResponses(forPath: "/teapot", responses: [.empty(status: 418)])
/// ```
public struct HTTPStatus: Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The numeric code, for example `404`.
    public let code: Int
    /// The reason phrase the server sends instead of the standard one (WireMock's
    /// `statusMessage`); `nil`: the standard one. Not part of the status's identity.
    package let reasonPhrase: String?

    /// A status with the given numeric code. Codes outside `100...599` are rejected
    /// when the response is registered.
    public init(_ code: Int) {
        self.code = code
        self.reasonPhrase = nil
    }

    /// A status with its own reason phrase on the wire (`200 Fine Thanks`).
    package init(_ code: Int, reasonPhrase: String?) {
        self.code = code
        self.reasonPhrase = reasonPhrase
    }

    public init(integerLiteral value: Int) {
        self.code = value
        self.reasonPhrase = nil
    }

    public static func == (lhs: HTTPStatus, rhs: HTTPStatus) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The numeric code (`404`).
    public var description: String { "\(code)" }

    /// Whether this is a code HTTP allows (`100...599`).
    var isValid: Bool { (100...599).contains(code) }

    /// Statuses whose responses never carry a body (RFC 9110 §6.4.1).
    var forbidsBody: Bool { (100...199).contains(code) || code == 204 || code == 304 }

    /// Whether a response with this status sends its body in answer to `method`: not to `HEAD`,
    /// never with a status that ``forbidsBody``. Both transports and the journal ask this.
    func sendsBody(to method: HTTPMethod) -> Bool { !forbidsBody && method != .head }

    // 1xx
    /// `100 Continue`.
    public static let `continue`: HTTPStatus = 100
    /// `101 Switching Protocols`.
    public static let switchingProtocols: HTTPStatus = 101
    // 2xx
    /// `200 OK`.
    public static let ok: HTTPStatus = 200
    /// `201 Created`.
    public static let created: HTTPStatus = 201
    /// `202 Accepted`.
    public static let accepted: HTTPStatus = 202
    /// `203 Non-Authoritative Information`.
    public static let nonAuthoritativeInformation: HTTPStatus = 203
    /// `204 No Content`.
    public static let noContent: HTTPStatus = 204
    /// `205 Reset Content`.
    public static let resetContent: HTTPStatus = 205
    /// `206 Partial Content`.
    public static let partialContent: HTTPStatus = 206
    // 3xx
    /// `300 Multiple Choices`.
    public static let multipleChoices: HTTPStatus = 300
    /// `301 Moved Permanently`.
    public static let movedPermanently: HTTPStatus = 301
    /// `302 Found`.
    public static let found: HTTPStatus = 302
    /// `303 See Other`.
    public static let seeOther: HTTPStatus = 303
    /// `304 Not Modified`.
    public static let notModified: HTTPStatus = 304
    /// `305 Use Proxy`.
    public static let useProxy: HTTPStatus = 305
    /// `307 Temporary Redirect`.
    public static let temporaryRedirect: HTTPStatus = 307
    /// `308 Permanent Redirect`.
    public static let permanentRedirect: HTTPStatus = 308
    // 4xx
    /// `400 Bad Request`.
    public static let badRequest: HTTPStatus = 400
    /// `401 Unauthorized`.
    public static let unauthorized: HTTPStatus = 401
    /// `402 Payment Required`.
    public static let paymentRequired: HTTPStatus = 402
    /// `403 Forbidden`.
    public static let forbidden: HTTPStatus = 403
    /// `404 Not Found`.
    public static let notFound: HTTPStatus = 404
    /// `405 Method Not Allowed`.
    public static let methodNotAllowed: HTTPStatus = 405
    /// `406 Not Acceptable`.
    public static let notAcceptable: HTTPStatus = 406
    /// `407 Proxy Authentication Required`.
    public static let proxyAuthenticationRequired: HTTPStatus = 407
    /// `408 Request Timeout`.
    public static let requestTimeout: HTTPStatus = 408
    /// `409 Conflict`.
    public static let conflict: HTTPStatus = 409
    /// `410 Gone`.
    public static let gone: HTTPStatus = 410
    /// `411 Length Required`.
    public static let lengthRequired: HTTPStatus = 411
    /// `412 Precondition Failed`.
    public static let preconditionFailed: HTTPStatus = 412
    /// `413 Content Too Large`.
    public static let contentTooLarge: HTTPStatus = 413
    /// `414 URI Too Long`.
    public static let uriTooLong: HTTPStatus = 414
    /// `415 Unsupported Media Type`.
    public static let unsupportedMediaType: HTTPStatus = 415
    /// `416 Range Not Satisfiable`.
    public static let rangeNotSatisfiable: HTTPStatus = 416
    /// `417 Expectation Failed`.
    public static let expectationFailed: HTTPStatus = 417
    /// `421 Misdirected Request`.
    public static let misdirectedRequest: HTTPStatus = 421
    /// `422 Unprocessable Content`.
    public static let unprocessableContent: HTTPStatus = 422
    /// `426 Upgrade Required`.
    public static let upgradeRequired: HTTPStatus = 426
    /// `429 Too Many Requests`.
    public static let tooManyRequests: HTTPStatus = 429
    // 5xx
    /// `500 Internal Server Error`.
    public static let internalServerError: HTTPStatus = 500
    /// `501 Not Implemented`.
    public static let notImplemented: HTTPStatus = 501
    /// `502 Bad Gateway`.
    public static let badGateway: HTTPStatus = 502
    /// `503 Service Unavailable`.
    public static let serviceUnavailable: HTTPStatus = 503
    /// `504 Gateway Timeout`.
    public static let gatewayTimeout: HTTPStatus = 504
    /// `505 HTTP Version Not Supported`.
    public static let httpVersionNotSupported: HTTPStatus = 505

    /// RFC 7231's name for ``contentTooLarge``.
    public static let payloadTooLarge: HTTPStatus = 413
    /// RFC 4918's name for ``unprocessableContent``.
    public static let unprocessableEntity: HTTPStatus = 422
}

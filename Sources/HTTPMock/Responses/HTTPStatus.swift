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

    /// A status with the given numeric code. Codes outside `100...599` are rejected
    /// when the response is registered.
    public init(_ code: Int) {
        self.code = code
    }

    public init(integerLiteral value: Int) {
        self.code = value
    }

    public var description: String { "\(code)" }

    /// Whether this is a code HTTP allows (`100...599`).
    var isValid: Bool { (100...599).contains(code) }

    /// Statuses whose responses never carry a body (RFC 9110 §6.4.1).
    var forbidsBody: Bool { (100...199).contains(code) || code == 204 || code == 304 }

    // 1xx
    public static let `continue`: HTTPStatus = 100
    public static let switchingProtocols: HTTPStatus = 101
    // 2xx
    public static let ok: HTTPStatus = 200
    public static let created: HTTPStatus = 201
    public static let accepted: HTTPStatus = 202
    public static let nonAuthoritativeInformation: HTTPStatus = 203
    public static let noContent: HTTPStatus = 204
    public static let resetContent: HTTPStatus = 205
    public static let partialContent: HTTPStatus = 206
    // 3xx
    public static let multipleChoices: HTTPStatus = 300
    public static let movedPermanently: HTTPStatus = 301
    public static let found: HTTPStatus = 302
    public static let seeOther: HTTPStatus = 303
    public static let notModified: HTTPStatus = 304
    public static let useProxy: HTTPStatus = 305
    public static let temporaryRedirect: HTTPStatus = 307
    public static let permanentRedirect: HTTPStatus = 308
    // 4xx
    public static let badRequest: HTTPStatus = 400
    public static let unauthorized: HTTPStatus = 401
    public static let paymentRequired: HTTPStatus = 402
    public static let forbidden: HTTPStatus = 403
    public static let notFound: HTTPStatus = 404
    public static let methodNotAllowed: HTTPStatus = 405
    public static let notAcceptable: HTTPStatus = 406
    public static let proxyAuthenticationRequired: HTTPStatus = 407
    public static let requestTimeout: HTTPStatus = 408
    public static let conflict: HTTPStatus = 409
    public static let gone: HTTPStatus = 410
    public static let lengthRequired: HTTPStatus = 411
    public static let preconditionFailed: HTTPStatus = 412
    public static let contentTooLarge: HTTPStatus = 413
    public static let uriTooLong: HTTPStatus = 414
    public static let unsupportedMediaType: HTTPStatus = 415
    public static let rangeNotSatisfiable: HTTPStatus = 416
    public static let expectationFailed: HTTPStatus = 417
    public static let misdirectedRequest: HTTPStatus = 421
    public static let unprocessableContent: HTTPStatus = 422
    public static let upgradeRequired: HTTPStatus = 426
    public static let tooManyRequests: HTTPStatus = 429
    // 5xx
    public static let internalServerError: HTTPStatus = 500
    public static let notImplemented: HTTPStatus = 501
    public static let badGateway: HTTPStatus = 502
    public static let serviceUnavailable: HTTPStatus = 503
    public static let gatewayTimeout: HTTPStatus = 504
    public static let httpVersionNotSupported: HTTPStatus = 505

    /// RFC 7231's name for ``contentTooLarge``.
    public static let payloadTooLarge: HTTPStatus = 413
    /// RFC 4918's name for ``unprocessableContent``.
    public static let unprocessableEntity: HTTPStatus = 422
}

import Foundation

// bstien/HTTPMock's spellings (its public API of October 2025), so code written against it
// compiles unchanged. Each deprecated one says what to write instead; the Migrating article
// (Docs/HTTPMock.docc/Migrating.md) maps them all.

extension MockResponse {
    /// bstien/HTTPMock's name for ``HTTPStatus``; the same type.
    public typealias Status = HTTPStatus
    /// bstien/HTTPMock's name for ``Lifetime``; the same type.
    public typealias Lifetime = HTTPMockLifetime
    /// bstien/HTTPMock's name for ``Delivery``; the same type.
    public typealias Delivery = HTTPMockDelivery

    /// bstien/HTTPMock's `.encodable(_:jsonEncoder:)`, in its argument order.
    @available(*, deprecated, renamed: "encodable(_:status:headers:encoder:lifetime:delivery:)")
    public static func encodable<Value: Encodable>(
        _ value: Value,
        status: HTTPStatus = .ok,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        headers: [String: String] = [:],
        jsonEncoder: JSONEncoder,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        encodable(
            value, status: status, headers: HTTPHeaders(headers), encoder: jsonEncoder, lifetime: lifetime,
            delivery: delivery, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// bstien/HTTPMock's `.file(url:contentType:)`: the `Content-Type` unless `headers` sets one.
    @available(*, deprecated, message: "pass the type as a header: .file(url: url, headers: [\"Content-Type\": type])")
    public static func file(
        url: URL,
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        contentType: String?,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        file(
            url: url, status: status, headers: headers, lifetime: lifetime, delivery: delivery,
            fileID: fileID, filePath: filePath, line: line, column: column
        )
        .withDefaultContentType(contentType)
    }

    /// bstien/HTTPMock's `.file(named:extension:)`, which looks in `Bundle.main`.
    @available(*, deprecated, message: "name the bundle: .file(named:extension:in: .module) (Bundle.main is the test runner under SwiftPM)")
    public static func file(
        named name: String,
        extension fileExtension: String? = nil,
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        contentType: String? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        file(
            named: name, extension: fileExtension, in: .main, status: status, headers: headers,
            lifetime: lifetime, delivery: delivery, fileID: fileID, filePath: filePath, line: line, column: column
        )
        .withDefaultContentType(contentType)
    }

    /// `self` with `contentType` as the type sent when no header sets one.
    func withDefaultContentType(_ contentType: String?) -> MockResponse {
        guard let contentType, case .http(var http) = payload else { return self }
        http.defaultContentType = contentType
        return replacingPayload(.http(http))
    }
}

/// ``Lifetime`` under a name no other module uses (``MockResponse/Lifetime`` refers to it).
public typealias HTTPMockLifetime = Lifetime
/// ``Delivery`` under a name no other module uses (``MockResponse/Delivery`` refers to it).
public typealias HTTPMockDelivery = Delivery

extension HTTPStatus {
    /// bstien/HTTPMock's `.other(code)`.
    @available(*, deprecated, message: "write the code itself: status: 418, or HTTPStatus(418)")
    public static func other(_ code: Int) -> HTTPStatus { HTTPStatus(code) }
}

extension JSONEncoder {
    /// bstien/HTTPMock's default encoder: `Date` as ISO 8601.
    @available(
        *, deprecated,
        message: "MockResponse.encodable already encodes Date as ISO 8601 by default; omit encoder:, or pass a JSONEncoder() you configure"
    )
    public static var mockDefault: JSONEncoder { .httpMockDefault() }
}

import Foundation

// Every factory's `headers:` also takes a `[String: String]` value, so headers kept in a
// variable (as bstien/HTTPMock users write them) need no conversion. The parameter is optional
// on purpose: a literal then still builds `HTTPHeaders` (a `Dictionary` literal would win
// otherwise, even over `@_disfavoredOverload`, measured on Swift 6.3.1), which keeps the
// literal's order and lets a repeated name replace the earlier one instead of trapping.

extension MockResponse {
    /// `encodable(_:status:headers:encoder:lifetime:delivery:fileID:filePath:line:column:)` with
    /// headers from a dictionary.
    @_disfavoredOverload
    public static func encodable<Value: Encodable>(
        _ value: Value, status: HTTPStatus = .ok, headers: [String: String]?,
        encoder: JSONEncoder = .httpMockDefault(), lifetime: Lifetime = .single, delivery: Delivery = .instant,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        encodable(
            value, status: status, headers: HTTPHeaders(headers ?? [:]), encoder: encoder, lifetime: lifetime,
            delivery: delivery, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// `dictionary(_:status:headers:lifetime:delivery:fileID:filePath:line:column:)` with
    /// headers from a dictionary.
    @_disfavoredOverload
    public static func dictionary(
        _ dictionary: [String: any Sendable], status: HTTPStatus = .ok, headers: [String: String]?,
        lifetime: Lifetime = .single, delivery: Delivery = .instant,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        self.dictionary(
            dictionary, status: status, headers: HTTPHeaders(headers ?? [:]), lifetime: lifetime,
            delivery: delivery, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// `json(_:status:headers:lifetime:delivery:)` with headers from a dictionary.
    @_disfavoredOverload
    public static func json(
        _ text: String, status: HTTPStatus = .ok, headers: [String: String]?,
        lifetime: Lifetime = .single, delivery: Delivery = .instant
    ) -> MockResponse {
        json(text, status: status, headers: HTTPHeaders(headers ?? [:]), lifetime: lifetime, delivery: delivery)
    }

    /// `plaintext(_:status:headers:lifetime:delivery:)` with headers from a dictionary.
    @_disfavoredOverload
    public static func plaintext(
        _ text: String, status: HTTPStatus = .ok, headers: [String: String]?,
        lifetime: Lifetime = .single, delivery: Delivery = .instant
    ) -> MockResponse {
        plaintext(text, status: status, headers: HTTPHeaders(headers ?? [:]), lifetime: lifetime, delivery: delivery)
    }

    /// `data(_:contentType:status:headers:lifetime:delivery:)` with headers from a dictionary.
    @_disfavoredOverload
    public static func data(
        _ data: Data, contentType: String? = nil, status: HTTPStatus = .ok, headers: [String: String]?,
        lifetime: Lifetime = .single, delivery: Delivery = .instant
    ) -> MockResponse {
        self.data(
            data, contentType: contentType, status: status, headers: HTTPHeaders(headers ?? [:]),
            lifetime: lifetime, delivery: delivery)
    }

    /// `empty(status:headers:lifetime:delivery:)` with headers from a dictionary.
    @_disfavoredOverload
    public static func empty(
        status: HTTPStatus = .ok, headers: [String: String]?,
        lifetime: Lifetime = .single, delivery: Delivery = .instant
    ) -> MockResponse {
        empty(status: status, headers: HTTPHeaders(headers ?? [:]), lifetime: lifetime, delivery: delivery)
    }

    /// `file(url:status:headers:lifetime:delivery:fileID:filePath:line:column:)` with headers
    /// from a dictionary.
    @_disfavoredOverload
    public static func file(
        url: URL, status: HTTPStatus = .ok, headers: [String: String]?,
        lifetime: Lifetime = .single, delivery: Delivery = .instant,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        file(
            url: url, status: status, headers: HTTPHeaders(headers ?? [:]), lifetime: lifetime, delivery: delivery,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// `file(named:extension:in:status:headers:lifetime:delivery:fileID:filePath:line:column:)`
    /// with headers from a dictionary.
    @_disfavoredOverload
    public static func file(
        named name: String, extension fileExtension: String? = nil, in bundle: Bundle,
        status: HTTPStatus = .ok, headers: [String: String]?,
        lifetime: Lifetime = .single, delivery: Delivery = .instant,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        file(
            named: name, extension: fileExtension, in: bundle, status: status, headers: HTTPHeaders(headers ?? [:]),
            lifetime: lifetime, delivery: delivery, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// `redirect(to:status:headers:lifetime:delivery:)` with headers from a dictionary.
    @_disfavoredOverload
    public static func redirect(
        to location: String, status: HTTPStatus = .found, headers: [String: String]?,
        lifetime: Lifetime = .single, delivery: Delivery = .instant
    ) -> MockResponse {
        redirect(to: location, status: status, headers: HTTPHeaders(headers ?? [:]), lifetime: lifetime, delivery: delivery)
    }
}

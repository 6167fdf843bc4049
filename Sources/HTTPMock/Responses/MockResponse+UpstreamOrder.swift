import Foundation

// bstien/HTTPMock's argument order: its factories take `status:, lifetime:, delivery:, headers:`,
// ours `status:, headers:, lifetime:, delivery:`. These overloads accept its order when `headers:`
// comes after `lifetime:` (the A variants) or after `delivery:` without `lifetime:` (the B
// variants), so they never compete with the factories in our order; each says what to move.

extension MockResponse {
    /// bstien/HTTPMock's argument order for `.encodable`.
    @available(
        *, deprecated, message: "HTTPMock takes headers: before lifetime: and delivery: (status:, headers:, lifetime:, delivery:); move it"
    )
    public static func encodable<Value: Encodable>(
        _ value: Value,
        status: HTTPStatus = .ok, lifetime: Lifetime, delivery: Delivery = .instant, headers: [String: String],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        encodable(
            value, status: status, headers: HTTPHeaders(headers), lifetime: lifetime, delivery: delivery,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// bstien/HTTPMock's argument order for `.encodable`.
    @available(
        *, deprecated, message: "HTTPMock takes headers: before lifetime: and delivery: (status:, headers:, lifetime:, delivery:); move it"
    )
    public static func encodable<Value: Encodable>(
        _ value: Value,
        status: HTTPStatus = .ok, delivery: Delivery, headers: [String: String],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        encodable(
            value, status: status, headers: HTTPHeaders(headers), lifetime: .single, delivery: delivery,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// bstien/HTTPMock's argument order for `.dictionary`.
    @available(
        *, deprecated, message: "HTTPMock takes headers: before lifetime: and delivery: (status:, headers:, lifetime:, delivery:); move it"
    )
    public static func dictionary(
        _ dictionary: [String: any Sendable],
        status: HTTPStatus = .ok, lifetime: Lifetime, delivery: Delivery = .instant, headers: [String: String],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        self.dictionary(
            dictionary, status: status, headers: HTTPHeaders(headers), lifetime: lifetime, delivery: delivery,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// bstien/HTTPMock's argument order for `.dictionary`.
    @available(
        *, deprecated, message: "HTTPMock takes headers: before lifetime: and delivery: (status:, headers:, lifetime:, delivery:); move it"
    )
    public static func dictionary(
        _ dictionary: [String: any Sendable],
        status: HTTPStatus = .ok, delivery: Delivery, headers: [String: String],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        self.dictionary(
            dictionary, status: status, headers: HTTPHeaders(headers), lifetime: .single, delivery: delivery,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// bstien/HTTPMock's argument order for `.plaintext`.
    @available(
        *, deprecated, message: "HTTPMock takes headers: before lifetime: and delivery: (status:, headers:, lifetime:, delivery:); move it"
    )
    public static func plaintext(
        _ text: String,
        status: HTTPStatus = .ok, lifetime: Lifetime, delivery: Delivery = .instant, headers: [String: String]
    ) -> MockResponse {
        plaintext(text, status: status, headers: HTTPHeaders(headers), lifetime: lifetime, delivery: delivery)
    }

    /// bstien/HTTPMock's argument order for `.plaintext`.
    @available(
        *, deprecated, message: "HTTPMock takes headers: before lifetime: and delivery: (status:, headers:, lifetime:, delivery:); move it"
    )
    public static func plaintext(
        _ text: String,
        status: HTTPStatus = .ok, delivery: Delivery, headers: [String: String]
    ) -> MockResponse {
        plaintext(text, status: status, headers: HTTPHeaders(headers), lifetime: .single, delivery: delivery)
    }

    /// bstien/HTTPMock's argument order for `.empty`.
    @available(
        *, deprecated, message: "HTTPMock takes headers: before lifetime: and delivery: (status:, headers:, lifetime:, delivery:); move it"
    )
    public static func empty(
        status: HTTPStatus = .ok, lifetime: Lifetime, delivery: Delivery = .instant, headers: [String: String]
    ) -> MockResponse {
        empty(status: status, headers: HTTPHeaders(headers), lifetime: lifetime, delivery: delivery)
    }

    /// bstien/HTTPMock's argument order for `.empty`.
    @available(
        *, deprecated, message: "HTTPMock takes headers: before lifetime: and delivery: (status:, headers:, lifetime:, delivery:); move it"
    )
    public static func empty(
        status: HTTPStatus = .ok, delivery: Delivery, headers: [String: String]
    ) -> MockResponse {
        empty(status: status, headers: HTTPHeaders(headers), lifetime: .single, delivery: delivery)
    }

    /// bstien/HTTPMock's argument order for `.file`.
    @available(
        *, deprecated, message: "HTTPMock takes headers: before lifetime: and delivery: (status:, headers:, lifetime:, delivery:); move it"
    )
    public static func file(
        url: URL,
        status: HTTPStatus = .ok, lifetime: Lifetime, delivery: Delivery = .instant, headers: [String: String], contentType: String? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        file(
            url: url, status: status, headers: HTTPHeaders(headers), lifetime: lifetime, delivery: delivery,
            fileID: fileID, filePath: filePath, line: line, column: column
        )
        .withDefaultContentType(contentType)
    }

    /// bstien/HTTPMock's argument order for `.file`.
    @available(
        *, deprecated, message: "HTTPMock takes headers: before lifetime: and delivery: (status:, headers:, lifetime:, delivery:); move it"
    )
    public static func file(
        url: URL,
        status: HTTPStatus = .ok, delivery: Delivery, headers: [String: String], contentType: String? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        file(
            url: url, status: status, headers: HTTPHeaders(headers), lifetime: .single, delivery: delivery,
            fileID: fileID, filePath: filePath, line: line, column: column
        )
        .withDefaultContentType(contentType)
    }

    /// bstien/HTTPMock's argument order for `.file`.
    @available(
        *, deprecated, message: "HTTPMock takes headers: before lifetime: and delivery: (status:, headers:, lifetime:, delivery:); move it"
    )
    public static func file(
        named name: String, extension fileExtension: String? = nil, in bundle: Bundle = .main,
        status: HTTPStatus = .ok, lifetime: Lifetime, delivery: Delivery = .instant, headers: [String: String], contentType: String? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        file(
            named: name, extension: fileExtension, in: bundle, status: status, headers: HTTPHeaders(headers), lifetime: lifetime,
            delivery: delivery,
            fileID: fileID, filePath: filePath, line: line, column: column
        )
        .withDefaultContentType(contentType)
    }

    /// bstien/HTTPMock's argument order for `.file`.
    @available(
        *, deprecated, message: "HTTPMock takes headers: before lifetime: and delivery: (status:, headers:, lifetime:, delivery:); move it"
    )
    public static func file(
        named name: String, extension fileExtension: String? = nil, in bundle: Bundle = .main,
        status: HTTPStatus = .ok, delivery: Delivery, headers: [String: String], contentType: String? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        file(
            named: name, extension: fileExtension, in: bundle, status: status, headers: HTTPHeaders(headers), lifetime: .single,
            delivery: delivery,
            fileID: fileID, filePath: filePath, line: line, column: column
        )
        .withDefaultContentType(contentType)
    }

}

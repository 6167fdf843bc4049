import Foundation

// `status:` takes an `HTTPStatus`: a literal (`404`) or a constant (`.notFound`) converts, an `Int`
// variable does not, and the compiler's own "cannot convert value of type 'Int'" does not say
// what to write. These overloads cannot be called (their bodies only forward); they exist so
// that mistake reads as a hint. Literals still pick the `HTTPStatus` factories: the
// type checker ranks an unavailable overload last (Tests/CompileFailures/StatusFromIntVariable.swift).

extension MockResponse {
    /// Not callable: write `status: HTTPStatus(code)` for an `Int` variable.
    @available(
        *, unavailable,
        message: "status: takes an HTTPStatus; for an Int variable write status: HTTPStatus(code) (literals and .notFound convert)"
    )
    public static func empty(
        status: Int, headers: HTTPHeaders = [:], lifetime: Lifetime = .single, delivery: Delivery = .instant
    )
        -> MockResponse
    {
        .empty(status: HTTPStatus(status), headers: headers, lifetime: lifetime, delivery: delivery)
    }

    /// Not callable: write `status: HTTPStatus(code)` for an `Int` variable.
    @available(
        *, unavailable,
        message: "status: takes an HTTPStatus; for an Int variable write status: HTTPStatus(code) (literals and .notFound convert)"
    )
    public static func plaintext(
        _ text: String, status: Int, headers: HTTPHeaders = [:], lifetime: Lifetime = .single, delivery: Delivery = .instant
    ) -> MockResponse {
        .plaintext(text, status: HTTPStatus(status), headers: headers, lifetime: lifetime, delivery: delivery)
    }

    /// Not callable: write `status: HTTPStatus(code)` for an `Int` variable.
    @available(
        *, unavailable,
        message: "status: takes an HTTPStatus; for an Int variable write status: HTTPStatus(code) (literals and .notFound convert)"
    )
    public static func json(
        _ text: String, status: Int, headers: HTTPHeaders = [:], lifetime: Lifetime = .single, delivery: Delivery = .instant
    ) -> MockResponse {
        .json(text, status: HTTPStatus(status), headers: headers, lifetime: lifetime, delivery: delivery)
    }

    /// Not callable: write `status: HTTPStatus(code)` for an `Int` variable.
    @available(
        *, unavailable,
        message: "status: takes an HTTPStatus; for an Int variable write status: HTTPStatus(code) (literals and .notFound convert)"
    )
    public static func data(
        _ data: Data, contentType: String? = nil, status: Int, headers: HTTPHeaders = [:], lifetime: Lifetime = .single,
        delivery: Delivery = .instant
    ) -> MockResponse {
        .data(data, contentType: contentType, status: HTTPStatus(status), headers: headers, lifetime: lifetime, delivery: delivery)
    }

    /// Not callable: write `status: HTTPStatus(code)` for an `Int` variable.
    @available(
        *, unavailable,
        message: "status: takes an HTTPStatus; for an Int variable write status: HTTPStatus(code) (literals and .notFound convert)"
    )
    public static func encodable<Value: Encodable>(
        _ value: Value, status: Int, headers: HTTPHeaders = [:], encoder: JSONEncoder = .httpMockDefault(),
        lifetime: Lifetime = .single, delivery: Delivery = .instant,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        .encodable(
            value, status: HTTPStatus(status), headers: headers, encoder: encoder, lifetime: lifetime, delivery: delivery, fileID: fileID,
            filePath: filePath, line: line, column: column)
    }

    /// Not callable: write `status: HTTPStatus(code)` for an `Int` variable.
    @available(
        *, unavailable,
        message: "status: takes an HTTPStatus; for an Int variable write status: HTTPStatus(code) (literals and .notFound convert)"
    )
    public static func dictionary(
        _ dictionary: [String: any Sendable], status: Int, headers: HTTPHeaders = [:], lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        .dictionary(
            dictionary, status: HTTPStatus(status), headers: headers, lifetime: lifetime, delivery: delivery, fileID: fileID,
            filePath: filePath, line: line, column: column)
    }
}

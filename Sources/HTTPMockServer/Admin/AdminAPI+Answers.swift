#if Server
import Foundation
import HTTPMock

// The admin API's answers: JSON as WireMock writes it, its error shape, and request bodies.

extension AdminAPI {
    /// The request body as JSON; an empty body is an empty object.
    static func parse(_ body: Data?) throws(WireMockMappingError) -> JSONValue {
        try parseOrdered(body).value
    }

    /// The request body as JSON with object members in the order they were sent (a mapping's
    /// `jsonBody` is answered in that order, as from a file); an empty body is an empty object.
    /// Read by the same strict reader as mapping files, so a mistake names its line and column.
    static func parseOrdered(_ body: Data?) throws(WireMockMappingError) -> OrderedJSON {
        guard let body, !body.isEmpty else { return .object([]) }
        do throws(JSONReader.Failure) {
            return try JSONReader.parseOrdered(body)
        } catch {
            throw WireMockMappingError(pointer: "", message: "the body is not JSON: \(error)")
        }
    }

    /// The request body as a JSON object.
    static func parseObject(_ body: Data?) throws(WireMockMappingError) -> [String: JSONValue] {
        let value = try parse(body)
        guard case .object(let object) = value else {
            throw WireMockMappingError(pointer: "", message: "the body must be a JSON object, got \(value)")
        }
        return object
    }

    static func encoded(_ value: JSONValue) -> Data {
        Data(value.compactBytes)
    }

    /// A mapping's metadata as the matcher of `find-by-metadata` and `remove-by-metadata` sees
    /// it: its JSON text, as a body (WireMock matches the metadata's JSON with a body pattern).
    static func metadataInput(_ metadata: JSONValue) -> MatchInput {
        .body(RequestBody(encoded(metadata)))
    }

    static func json(_ status: Int, _ value: JSONValue, method: String) -> ServedAnswer {
        direct(status, contentType: "application/json", encoded(value), method: method)
    }

    /// `value` with its members in their order (a mapping as it was written).
    static func json(_ status: Int, _ value: OrderedJSON, method: String) -> ServedAnswer {
        direct(status, contentType: "application/json", Data(value.compactJSON.utf8), method: method)
    }

    /// A status with no body (WireMock answers many admin calls so).
    static func empty(_ status: Int = 200, method: String) -> ServedAnswer {
        .direct(status: status, headers: [("Cache-Control", "no-store")], body: Data(), method: method)
    }

    static func direct(_ status: Int, contentType: String, _ body: Data, method: String) -> ServedAnswer {
        .direct(status: status, headers: [("Content-Type", contentType), ("Cache-Control", "no-store")], body: body, method: method)
    }

    static func notFound(_ message: String, method: String) -> ServedAnswer {
        json(404, ["errors": [["code": 404, "title": .string(message)]]], method: method)
    }

    /// 422 naming the field (a JSON pointer) and what is wrong, as WireMock reports it.
    static func invalid(_ error: WireMockMappingError, method: String) -> ServedAnswer {
        let title = error.pointer.isEmpty ? error.message : "\(error.pointer): \(error.message)"
        return json(
            422,
            [
                "errors": [
                    [
                        "code": 10, "source": ["pointer": .string(error.pointer)], "title": .string(title),
                        "detail": .string(error.message),
                    ]
                ]
            ], method: method)
    }

    /// `status` with WireMock's error shape and `message` as its title.
    static func error(_ status: Int, _ message: String, method: String) -> ServedAnswer {
        json(status, ["errors": [["code": .integer(status), "title": .string(message)]]], method: method)
    }

    /// The value of query parameter `name`, if given.
    static func parameter(_ name: String, in query: [URLQueryItem]) -> String? {
        query.first { $0.name == name }?.value
    }

    /// Query parameter `name` as a number ≥ 0; `nil` when absent.
    static func count(_ name: String, in query: [URLQueryItem]) throws(WireMockMappingError) -> Int? {
        guard let text = parameter(name, in: query) else { return nil }
        guard let number = Int(text), number >= 0 else {
            throw WireMockMappingError(pointer: "?" + name, message: "\(name) must be a whole number ≥ 0, got \"\(text)\"")
        }
        return number
    }
}
#endif

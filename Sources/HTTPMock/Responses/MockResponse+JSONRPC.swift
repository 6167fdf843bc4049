import Foundation

// MARK: - JSON-RPC 2.0 (MCP, LSP over HTTP)

extension MockResponse {
    /// A JSON-RPC 2.0 success answer: `200`, `application/json`, body
    /// `{"jsonrpc": "2.0", "id": <the request's id>, "result": <result>}`.
    ///
    /// The `id` is copied from the request's JSON body as it was sent (a string stays a string,
    /// a number stays the same number), so a client that sends random ids needs no `.dynamic`
    /// handler. A request without an `id` (or whose body is not a JSON object) gets `"id": null`.
    ///
    /// ```swift
    /// mock.registerResponses {
    ///     Host("mcp.example.com") {
    ///         Path("/mcp", method: .post, body: .jsonRPC(method: "tools/list")) {
    ///             MockResponse.jsonRPC(result: ["tools": [["name": "add"]]])
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// A `result` that fails to encode is reported at this call site when the response is
    /// registered, and nothing from that registration is added. The answer is computed per
    /// request (as `.dynamic` is), so its ``status`` reads `0` until it is served.
    ///
    /// - Parameters:
    ///   - result: The `result` member: any `Encodable` (encoded with `encoder`) or a ``JSONValue``.
    ///   - encoder: Encodes `result`; by default a `JSONEncoder` with ISO 8601 dates.
    ///   - lifetime: How many requests it answers.
    ///   - delivery: When it is delivered.
    ///   - fileID: The call site, for error reports; leave the default.
    ///   - filePath: The call site, for error reports; leave the default.
    ///   - line: The call site, for error reports; leave the default.
    ///   - column: The call site, for error reports; leave the default.
    public static func jsonRPC<Result: Encodable>(
        result: Result,
        encoder: JSONEncoder = .httpMockDefault(),
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        do {
            let value = try JSONValue.encoding(result, with: encoder)
            return jsonRPCAnswer(member: "result", value: value, lifetime: lifetime, delivery: delivery)
        } catch {
            return .invalid(
                "MockResponse.jsonRPC could not encode a result of type \(Result.self): \(error)",
                lifetime: lifetime, delivery: delivery,
                location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        }
    }

    /// A JSON-RPC 2.0 success answer whose `result` is a ``JSONValue`` literal:
    /// `.jsonRPC(result: ["content": [["type": "text", "text": "3"]], "isError": false])`.
    /// See `jsonRPC(result:encoder:lifetime:delivery:fileID:filePath:line:column:)`.
    ///
    /// - Parameters:
    ///   - result: The `result` member.
    ///   - lifetime: How many requests it answers.
    ///   - delivery: When it is delivered.
    public static func jsonRPC(
        result: JSONValue,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant
    ) -> MockResponse {
        jsonRPCAnswer(member: "result", value: result, lifetime: lifetime, delivery: delivery)
    }

    /// A JSON-RPC 2.0 error answer: `200`, `application/json`, body
    /// `{"jsonrpc": "2.0", "id": <the request's id>, "error": {"code": code, "message": message}}`.
    ///
    /// ```swift
    /// Path("/mcp", method: .post, body: .jsonRPC(method: "tools/call")) {
    ///     MockResponse.jsonRPCError(code: -32602, message: "Unknown tool: sub")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - code: The error code (`-32601` method not found, `-32602` invalid params, …).
    ///   - message: The error message.
    ///   - lifetime: How many requests it answers.
    ///   - delivery: When it is delivered.
    public static func jsonRPCError(
        code: Int,
        message: String,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant
    ) -> MockResponse {
        jsonRPCAnswer(
            member: "error", value: ["code": .integer(code), "message": .string(message)],
            lifetime: lifetime, delivery: delivery)
    }

    /// An answer that copies the request's `id` when the request arrives.
    private static func jsonRPCAnswer(
        member: String, value: JSONValue, lifetime: Lifetime, delivery: Delivery
    ) -> MockResponse {
        .dynamic(lifetime: lifetime, delivery: delivery) { request in
            let id = request.body.flatMap(JSONValue.parse)?["id"] ?? .null
            let envelope: JSONValue = .object(["jsonrpc": "2.0", "id": id, member: value])
            return .http(
                status: .ok, headers: HTTPHeaders(), body: .data(envelope.data),
                defaultContentType: "application/json", lifetime: .single, delivery: .instant)
        }
    }
}

/// Collects `MockResponse` values written one per line, with `if`, `switch`, `for` and
/// `#available`, into a queue.
///
/// ```swift
/// mock.addResponses(forPath: "/user") {
///     MockResponse.encodable(user)
///     if includeFailure { MockResponse.failure(URLError(.timedOut)) }
/// }
/// ```
@resultBuilder
public enum MockResponseBuilder {
    /// One response.
    public static func buildExpression(_ response: MockResponse) -> [MockResponse] { [response] }
    /// An array of responses, queued in order.
    public static func buildExpression(_ responses: [MockResponse]) -> [MockResponse] { responses }
    /// Joins the responses of a block, in order.
    public static func buildBlock(_ parts: [MockResponse]...) -> [MockResponse] { parts.flatMap { $0 } }
    /// An `if` without `else`: its responses, or none.
    public static func buildOptional(_ part: [MockResponse]?) -> [MockResponse] { part ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first part: [MockResponse]) -> [MockResponse] { part }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second part: [MockResponse]) -> [MockResponse] { part }
    /// A `for` loop: every iteration's responses, in order.
    public static func buildArray(_ parts: [[MockResponse]]) -> [MockResponse] { parts.flatMap { $0 } }
    /// An `if #available` block.
    public static func buildLimitedAvailability(_ part: [MockResponse]) -> [MockResponse] { part }
}

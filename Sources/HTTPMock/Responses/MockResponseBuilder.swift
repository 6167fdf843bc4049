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
    public static func buildExpression(_ response: MockResponse) -> [MockResponse] { [response] }
    public static func buildExpression(_ responses: [MockResponse]) -> [MockResponse] { responses }
    public static func buildBlock(_ parts: [MockResponse]...) -> [MockResponse] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [MockResponse]?) -> [MockResponse] { part ?? [] }
    public static func buildEither(first part: [MockResponse]) -> [MockResponse] { part }
    public static func buildEither(second part: [MockResponse]) -> [MockResponse] { part }
    public static func buildArray(_ parts: [[MockResponse]]) -> [MockResponse] { parts.flatMap { $0 } }
    public static func buildLimitedAvailability(_ part: [MockResponse]) -> [MockResponse] { part }
}

/// One element of a `registerResponses { … }` tree: a ``Host``, a ``Path``, a ``Headers``
/// block or a ``MockResponse``. You do not make these yourself; the result builders do.
public struct RouteComponent: Sendable {
    enum Kind: Sendable {
        case host(Host)
        case path(Path)
        case headers(Headers)
        case response(MockResponse)
    }

    let kind: Kind
}

/// Builds the top level of ``HTTPMock/registerResponses(fileID:filePath:line:column:_:)-method``:
/// `Host { … }` blocks, and `Path { … }` blocks for the instance's `defaultDomain`.
@resultBuilder
public enum RegistrationBuilder: RouteComponentBuilder {
    /// A `Host { … }` block.
    public static func buildExpression(_ host: Host) -> [RouteComponent] { [RouteComponent(kind: .host(host))] }
    /// A `Path { … }` block.
    public static func buildExpression(_ path: Path) -> [RouteComponent] { [RouteComponent(kind: .path(path))] }
    /// Refused at compile time: the message says where the element belongs.
    @available(*, unavailable, message: "a MockResponse needs a route: put it inside Path(\"/…\") { … }")
    public static func buildExpression(_ response: MockResponse) -> [RouteComponent] { [] }
    /// Refused at compile time: the message says where the element belongs.
    @available(*, unavailable, message: "Headers apply to a scope: put them inside Host(\"…\") { … } or Path(\"/…\") { … }")
    public static func buildExpression(_ headers: Headers) -> [RouteComponent] { [] }
    /// Elements built elsewhere, spliced in.
    public static func buildExpression(_ components: [RouteComponent]) -> [RouteComponent] { components }
}

/// Builds the body of a ``Host``: `Headers` and `Path` blocks.
@resultBuilder
public enum HostBuilder: RouteComponentBuilder {
    /// A `Path { … }` block.
    public static func buildExpression(_ path: Path) -> [RouteComponent] { [RouteComponent(kind: .path(path))] }
    /// A `Headers` block, for the enclosing scope.
    public static func buildExpression(_ headers: Headers) -> [RouteComponent] { [RouteComponent(kind: .headers(headers))] }
    /// Refused at compile time: the message says where the element belongs.
    @available(*, unavailable, message: "a MockResponse needs a path: put it inside Path(\"/…\") { … } (use Path(\"/\") for the root)")
    public static func buildExpression(_ response: MockResponse) -> [RouteComponent] { [] }
    /// Refused at compile time: the message says where the element belongs.
    @available(*, unavailable, message: "hosts do not nest: close this Host { … } before opening another")
    public static func buildExpression(_ host: Host) -> [RouteComponent] { [] }
    /// Elements built elsewhere, spliced in.
    public static func buildExpression(_ components: [RouteComponent]) -> [RouteComponent] { components }
}

/// Builds the body of a ``Path``: its responses (queued in order), `Headers` blocks and nested
/// `Path` blocks.
@resultBuilder
public enum PathBuilder: RouteComponentBuilder {
    /// A response, queued for the enclosing path.
    public static func buildExpression(_ response: MockResponse) -> [RouteComponent] { [RouteComponent(kind: .response(response))] }
    /// A `Path { … }` block.
    public static func buildExpression(_ path: Path) -> [RouteComponent] { [RouteComponent(kind: .path(path))] }
    /// A `Headers` block, for the enclosing scope.
    public static func buildExpression(_ headers: Headers) -> [RouteComponent] { [RouteComponent(kind: .headers(headers))] }
    /// Refused at compile time: the message says where the element belongs.
    @available(*, unavailable, message: "a Host cannot be inside a Path: close the Path { … } first")
    public static func buildExpression(_ host: Host) -> [RouteComponent] { [] }
    /// Elements built elsewhere, spliced in.
    public static func buildExpression(_ components: [RouteComponent]) -> [RouteComponent] { components }
    /// An array of responses, queued in order.
    public static func buildExpression(_ responses: [MockResponse]) -> [RouteComponent] {
        responses.map { RouteComponent(kind: .response($0)) }
    }
}

/// The control flow every DSL builder accepts (`if`, `if`/`else`, `switch`, `for`,
/// `#available`), shared; each builder only says which elements it takes.
public protocol RouteComponentBuilder {}

extension RouteComponentBuilder {
    /// Joins the elements of a block.
    public static func buildBlock(_ parts: [RouteComponent]...) -> [RouteComponent] { parts.flatMap { $0 } }
    /// An `if` without `else`: its elements, or none.
    public static func buildOptional(_ part: [RouteComponent]?) -> [RouteComponent] { part ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first part: [RouteComponent]) -> [RouteComponent] { part }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second part: [RouteComponent]) -> [RouteComponent] { part }
    /// A `for` loop: every iteration's elements, in order.
    public static func buildArray(_ parts: [[RouteComponent]]) -> [RouteComponent] { parts.flatMap { $0 } }
    /// An `if #available` block.
    public static func buildLimitedAvailability(_ part: [RouteComponent]) -> [RouteComponent] { part }
}

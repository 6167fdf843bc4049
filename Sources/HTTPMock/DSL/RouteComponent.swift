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
    public static func buildExpression(_ host: Host) -> [RouteComponent] { [RouteComponent(kind: .host(host))] }
    public static func buildExpression(_ path: Path) -> [RouteComponent] { [RouteComponent(kind: .path(path))] }
    @available(*, unavailable, message: "a MockResponse needs a route: put it inside Path(\"/…\") { … }")
    public static func buildExpression(_ response: MockResponse) -> [RouteComponent] { [] }
    @available(*, unavailable, message: "Headers apply to a scope: put them inside Host(\"…\") { … } or Path(\"/…\") { … }")
    public static func buildExpression(_ headers: Headers) -> [RouteComponent] { [] }
    public static func buildExpression(_ components: [RouteComponent]) -> [RouteComponent] { components }
}

/// Builds the body of a ``Host``: `Headers` and `Path` blocks.
@resultBuilder
public enum HostBuilder: RouteComponentBuilder {
    public static func buildExpression(_ path: Path) -> [RouteComponent] { [RouteComponent(kind: .path(path))] }
    public static func buildExpression(_ headers: Headers) -> [RouteComponent] { [RouteComponent(kind: .headers(headers))] }
    @available(*, unavailable, message: "a MockResponse needs a path: put it inside Path(\"/…\") { … } (use Path(\"/\") for the root)")
    public static func buildExpression(_ response: MockResponse) -> [RouteComponent] { [] }
    @available(*, unavailable, message: "hosts do not nest: close this Host { … } before opening another")
    public static func buildExpression(_ host: Host) -> [RouteComponent] { [] }
    public static func buildExpression(_ components: [RouteComponent]) -> [RouteComponent] { components }
}

/// Builds the body of a ``Path``: its responses (queued in order), `Headers` blocks and nested
/// `Path` blocks.
@resultBuilder
public enum PathBuilder: RouteComponentBuilder {
    public static func buildExpression(_ response: MockResponse) -> [RouteComponent] { [RouteComponent(kind: .response(response))] }
    public static func buildExpression(_ path: Path) -> [RouteComponent] { [RouteComponent(kind: .path(path))] }
    public static func buildExpression(_ headers: Headers) -> [RouteComponent] { [RouteComponent(kind: .headers(headers))] }
    @available(*, unavailable, message: "a Host cannot be inside a Path: close the Path { … } first")
    public static func buildExpression(_ host: Host) -> [RouteComponent] { [] }
    public static func buildExpression(_ components: [RouteComponent]) -> [RouteComponent] { components }
    public static func buildExpression(_ responses: [MockResponse]) -> [RouteComponent] {
        responses.map { RouteComponent(kind: .response($0)) }
    }
}

/// The control flow every DSL builder accepts (`if`, `if`/`else`, `switch`, `for`,
/// `#available`), shared; each builder only says which elements it takes.
public protocol RouteComponentBuilder {}

extension RouteComponentBuilder {
    public static func buildBlock(_ parts: [RouteComponent]...) -> [RouteComponent] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [RouteComponent]?) -> [RouteComponent] { part ?? [] }
    public static func buildEither(first part: [RouteComponent]) -> [RouteComponent] { part }
    public static func buildEither(second part: [RouteComponent]) -> [RouteComponent] { part }
    public static func buildArray(_ parts: [[RouteComponent]]) -> [RouteComponent] { parts.flatMap { $0 } }
    public static func buildLimitedAvailability(_ part: [RouteComponent]) -> [RouteComponent] { part }
}

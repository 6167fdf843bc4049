// bstien/HTTPMock's builder element types and its arrays in builders, so that code built on
// them compiles. HTTPMock's builders take the elements themselves.

/// bstien/HTTPMock's element of a `Path { … }` block.
///
/// ```swift
/// let elements: [PathElement] = [.headers(Headers(["X-Env": "Test"])), .response(.plaintext("hi"))]
/// Path("/greeting") { elements }
/// ```
@available(*, deprecated, message: "write the MockResponse, Path or Headers itself in the Path { … } block")
public enum PathElement: Sendable {
    /// A response, queued for the path.
    case response(MockResponse)
    /// A nested path.
    case child(Path)
    /// Headers for the path's scope.
    case headers(Headers)

    var component: RouteComponent {
        switch self {
        case .response(let response): RouteComponent(kind: .response(response))
        case .child(let path): RouteComponent(kind: .path(path))
        case .headers(let headers): RouteComponent(kind: .headers(headers))
        }
    }
}

/// bstien/HTTPMock's element of a `Host { … }` block.
///
/// ```swift
/// let elements: [HostElement] = [.headers(Headers(["X-Env": "Test"])), .path(Path("/a") { MockResponse.empty() })]
/// Host("api.example.com") { elements }
/// ```
@available(*, deprecated, message: "write the Path or Headers itself in the Host { … } block")
public enum HostElement: Sendable {
    /// A path of the host.
    case path(Path)
    /// Headers for every path of the host.
    case headers(Headers)

    var component: RouteComponent {
        switch self {
        case .path(let path): RouteComponent(kind: .path(path))
        case .headers(let headers): RouteComponent(kind: .headers(headers))
        }
    }
}

extension RegistrationBuilder {
    /// An array of hosts, in order.
    public static func buildExpression(_ hosts: [Host]) -> [RouteComponent] {
        hosts.map { RouteComponent(kind: .host($0)) }
    }
}

extension HostBuilder {
    /// An array of paths, in order.
    public static func buildExpression(_ paths: [Path]) -> [RouteComponent] {
        paths.map { RouteComponent(kind: .path($0)) }
    }

    /// bstien/HTTPMock's element array.
    @available(*, deprecated, message: "write the Path or Headers itself in the Host { … } block")
    public static func buildExpression(_ elements: [HostElement]) -> [RouteComponent] { elements.map(\.component) }
}

extension PathBuilder {
    /// An array of nested paths, in order.
    public static func buildExpression(_ paths: [Path]) -> [RouteComponent] {
        paths.map { RouteComponent(kind: .path($0)) }
    }

    /// bstien/HTTPMock's element array.
    @available(*, deprecated, message: "write the MockResponse, Path or Headers itself in the Path { … } block")
    public static func buildExpression(_ elements: [PathElement]) -> [RouteComponent] { elements.map(\.component) }
}

/// Response headers for a scope of a `registerResponses { … }` tree.
///
/// - Directly under a `Host`: every path of the host (whatever `cascade` says).
/// - Under a `Path`: with `cascade: true` (the default) that path's responses and every nested
///   path's; with `cascade: false` that path's own responses only.
///
/// A `Headers` block applies to its whole scope wherever it stands in it. Later blocks in the
/// same scope override earlier ones on the same name; inner scopes override outer ones; a
/// response's own `headers:` override them all. Names are case-insensitive.
///
/// ```swift
/// Host("api.example.com") {
///     Headers(["X-Env": "Test"])
///     Path("/admin") {
///         Headers(["X-Env": "AdminOnly"], cascade: false)
///         MockResponse.empty(status: .unauthorized)        // X-Env: AdminOnly
///         Path("/audit") { MockResponse.encodable(audit) }  // X-Env: Test
///     }
/// }
/// ```
public struct Headers: Sendable {
    let fields: HTTPHeaders
    let cascade: Bool

    public init(_ fields: HTTPHeaders, cascade: Bool = true) {
        self.fields = fields
        self.cascade = cascade
    }
}

extension HTTPMock {
    /// ``HTTPMock/Host``, for where Foundation's `Host` makes the bare name ambiguous.
    public typealias Host = HTTPMockHost
    /// ``HTTPMock/Path``, the nested spelling of the DSL's `Path`.
    public typealias Path = HTTPMockPath
    /// ``HTTPMock/Headers``, the nested spelling of the DSL's `Headers`.
    public typealias Headers = HTTPMockHeaders
}

/// The DSL's `Host`, under a name no other module uses.
public typealias HTTPMockHost = Host
/// The DSL's `Path`, under a name no other module uses.
public typealias HTTPMockPath = Path
/// The DSL's `Headers`, under a name no other module uses.
public typealias HTTPMockHeaders = Headers

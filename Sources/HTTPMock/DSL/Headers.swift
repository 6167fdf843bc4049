/// Response headers for a scope of a `registerResponses { … }` tree.
///
/// - Directly under a `Host`: every path of the host (whatever `cascade` says).
/// - Under a `Path`: with `cascade: false` (the default, as in bstien/HTTPMock) that path's own
///   responses only; with `cascade: true` also every nested path's.
///
/// A `Headers` block applies to its whole scope wherever it stands in it. Later blocks in the
/// same scope override earlier ones on the same name; inner scopes override outer ones; a
/// response's own `headers:` override them all. Names are case-insensitive.
///
/// ```swift
/// Host("api.example.com") {
///     Headers(["X-Env": "Test"])
///     Path("/admin") {
///         Headers(["X-Env": "AdminOnly"])                  // this path only
///         MockResponse.empty(status: .unauthorized)        // X-Env: AdminOnly
///         Path("/audit") { MockResponse.encodable(audit) }  // X-Env: Test
///     }
/// }
/// ```
public struct Headers: Sendable, Equatable {
    let fields: HTTPHeaders
    let cascade: Bool

    /// - Parameters:
    ///   - fields: The headers.
    ///   - cascade: Under a `Path`, whether nested paths get them too (`false` by default).
    ///     Under a `Host` they always reach every path.
    public init(_ fields: HTTPHeaders, cascade: Bool = false) {
        self.fields = fields
        self.cascade = cascade
    }

    /// Headers from a dictionary variable, sorted by name. (Optional so that a literal still
    /// builds `HTTPHeaders`, keeping its order.)
    ///
    /// - Parameters:
    ///   - fields: The headers; `nil` is none.
    ///   - cascade: Under a `Path`, whether nested paths get them too (`false` by default).
    @_disfavoredOverload
    public init(_ fields: [String: String]?, cascade: Bool = false) {
        self.init(HTTPHeaders(fields ?? [:]), cascade: cascade)
    }

    /// The headers as a dictionary, as bstien/HTTPMock exposes them (a repeated name keeps its
    /// last value).
    ///
    /// ```swift
    /// Headers(["X-Env": "Test"]).values   // ["X-Env": "Test"]
    /// ```
    public var values: [String: String] {
        Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// Whether nested paths get these headers too: bstien/HTTPMock's name for `cascade`.
    ///
    /// ```swift
    /// Headers(["X-Env": "Test"], cascade: true).shouldCascade   // true
    /// ```
    public var shouldCascade: Bool { cascade }

    /// bstien/HTTPMock's spelling.
    @available(*, deprecated, renamed: "init(_:cascade:)")
    public init(_ fields: [String: String], shouldCascade: Bool) {
        self.init(HTTPHeaders(fields), cascade: shouldCascade)
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

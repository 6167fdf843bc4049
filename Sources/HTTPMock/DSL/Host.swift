/// A host in a `registerResponses { … }` tree; its body holds `Path` and `Headers` blocks.
///
/// ```swift
/// mock.registerResponses {
///     Host("api.example.com") {
///         Headers(["X-Env": "Test"])            // every path of this host
///         Path("/profile") { MockResponse.encodable(profile) }
///     }
/// }
/// ```
///
/// Foundation also has a type named `Host`; where both are visible and the compiler cannot
/// tell them apart, write `HTTPMock.Host`.
public struct Host: Sendable {
    let name: String
    let components: [RouteComponent]
    let location: SourceLocation

    /// - Parameters:
    ///   - name: The host, compared case-insensitively; may name a port (`localhost:8080`).
    ///   - content: `Headers` and `Path` blocks.
    ///   - fileID: The call site, for error reports; leave the default.
    ///   - filePath: The call site, for error reports; leave the default.
    ///   - line: The call site, for error reports; leave the default.
    ///   - column: The call site, for error reports; leave the default.
    public init(
        _ name: String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        @HostBuilder _ content: () -> [RouteComponent]
    ) {
        self.name = name
        self.components = content()
        self.location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

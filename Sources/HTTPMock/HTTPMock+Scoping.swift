extension HTTPMock {
    @TaskLocal static var scoped: HTTPMock?

    /// The instance of the current test: the one the `.httpMock` trait or `withHTTPMock` made
    /// for the running task, or ``shared`` outside them.
    public static var current: HTTPMock { scoped ?? shared }
}

/// Runs `body` with a fresh instance (also reachable as ``HTTPMock/current``), then calls
/// ``HTTPMock/verify(fileID:filePath:line:column:)`` on it, whether `body` returns or throws.
///
/// ```swift
/// func testLoadsProfile() async throws {
///     try await withHTTPMock { mock in
///         mock.addResponses(forPath: "/profile", responses: [.encodable(profile)])
///         let client = ProfileClient(session: mock.urlSession)
///         XCTAssertEqual(try await client.load(), profile)
///     }   // fails the test if a request went unmatched or a response was never requested
/// }
/// ```
@discardableResult
public func withHTTPMock<Result>(
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
    _ body: (HTTPMock) async throws -> Result
) async rethrows -> Result {
    let mock = HTTPMock()
    mock.registry.isVerifiedAtScopeEnd.withLock { $0 = true }
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    do {
        let result = try await HTTPMock.$scoped.withValue(mock) { try await body(mock) }
        mock.verify(at: location)
        return result
    } catch {
        mock.verify(at: location)
        throw error
    }
}

/// The synchronous form of ``withHTTPMock(fileID:filePath:line:column:_:)-nla7``.
@discardableResult
public func withHTTPMock<Result>(
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
    _ body: (HTTPMock) throws -> Result
) rethrows -> Result {
    let mock = HTTPMock()
    mock.registry.isVerifiedAtScopeEnd.withLock { $0 = true }
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    do {
        let result = try HTTPMock.$scoped.withValue(mock) { try body(mock) }
        mock.verify(at: location)
        return result
    } catch {
        mock.verify(at: location)
        throw error
    }
}

// expected-warning: 'addResponses(forPath:host:queryItems:queryMatching:responses:fileID:filePath:line:column:)' is deprecated: renamed to 'addResponses(forPath:host:query:matching:responses:)'
// expected-warning: 'addResponses(forPath:host:queryMatching:responses:fileID:filePath:line:column:)' is deprecated: renamed to 'addResponses(forPath:host:matching:responses:)'
// expected-warning: 'init(_:queryItems:queryMatching:fileID:filePath:line:column:_:)' is deprecated: replaced by 'init(_:query:matching:_:)'
// expected-warning: 'init(_:shouldCascade:)' is deprecated: replaced by 'init(_:cascade:)'
// expected-warning: 'registerResponses(host:fileID:filePath:line:column:_:)' is deprecated: wrap the paths in a Host
// expected-warning: 'other' is deprecated: write the code itself: status: 418, or HTTPStatus(418)
// expected-warning: is deprecated: renamed to 'encodable(_:status:headers:encoder:lifetime:delivery:)'
// expected-warning: 'mockDefault' is deprecated: MockResponse.encodable already encodes Date as ISO 8601
// expected-warning: is deprecated: pass the type as a header: .file(url: url, headers: ["Content-Type": type])
// expected-warning: is deprecated: name the bundle: .file(named:extension:in: .module)
// expected-warning: 'throwError' is deprecated: use .mock(.failure(error)) or .fail(URLError.Code)
// expected-warning: 'fatalError' is deprecated: renamed to 'failTest'
// expected-warning: 'data(for:)' is deprecated: call urlSession.data(for: request)
// expected-warning: 'plaintext(_:status:lifetime:delivery:headers:)' is deprecated: HTTPMock takes headers: before lifetime: and delivery:
// expected-warning: 'empty(status:delivery:headers:)' is deprecated: HTTPMock takes headers: before lifetime: and delivery:
// expected-warning: 'HTTPMockLog' is deprecated: set logHandler on the HTTPMock instance
// expected-warning: 'PathElement' is deprecated: write the MockResponse, Path or Headers itself
// expected-warning: 'HostElement' is deprecated: write the Path or Headers itself
//
// bstien/HTTPMock's spellings: this file must compile, and each line above must be among the
// warnings (checked by .ci/compile-failures). Not part of any target.
import HTTPMock

struct Item: Encodable { var id = 1 }

func upstream(_ mock: HTTPMock, url: URL) async throws {
    mock.addResponses(forPath: "/a", host: "api.example.com", queryItems: ["q": "1"], queryMatching: .exact, responses: [.empty()])
    mock.addResponses(forPath: "/b", queryMatching: .contains, responses: [.empty()])
    mock.registerResponses {
        Host("api.example.com") {
            Path("/c", queryItems: ["q": "1"], queryMatching: .contains) {
                Headers(["X-A": "1"], shouldCascade: true)
                MockResponse.empty(status: .other(418))
            }
        }
    }
    mock.registerResponses(host: "api.example.com") {
        Path("/d") { MockResponse.encodable(Item(), jsonEncoder: .mockDefault) }
        Path("/e") { MockResponse.file(url: url, contentType: "application/json") }
        Path("/f") { MockResponse.file(named: "user", extension: "json") }
    }
    mock.unmockedPolicy = .throwError(URLError(.notConnectedToInternet))
    mock.unmockedPolicy = .fatalError
    _ = try await mock.data(for: URLRequest(url: url))
    mock.addResponses(
        forPath: "/g",
        responses: [
            .plaintext("x", lifetime: .eternal, headers: ["A": "1"]),
            .empty(delivery: .instant, headers: ["A": "1"]),
        ])
}

// Upstream's logging switch (set in every upstream test suite's `init`), its element types and
// arrays in its builders.
func upstreamLoggingAndElements() {
    HTTPMockLog.isEnabled = false
    HTTPMockLog.level = .error
    let level: HTTPMockLog.Level = .trace
    _ = level.rawValue
    HTTPMockLog.error("e")
    HTTPMockLog.warning("w")
    HTTPMockLog.info("i")
    HTTPMockLog.debug("d")
    HTTPMockLog.trace("t")
    let headers = Headers(["X-A": "1"])
    let values: [String: String] = headers.values
    _ = (values, headers.shouldCascade, headers == Headers(["X-A": "1"], cascade: true))
    let paths = [Path("/a") { MockResponse.empty() }]
    let hosts = [Host("one.example.com") { paths }]
    let pathElements: [PathElement] = [.response(.empty()), .child(Path("/b") { MockResponse.empty() }), .headers(headers)]
    let hostElements: [HostElement] = [.path(Path("/c") { pathElements }), .headers(headers)]
    HTTPMock.shared.registerResponses {
        hosts
        Host("two.example.com") { hostElements }
    }
}

import Foundation

/// A route that another target of this package (HTTPMockServer's Voodoo loader) declares; it
/// goes through the same validation as `loadMocks` and `addResponses`.
package struct PackageRoute: Sendable {
    package var path: String
    package var host: String?
    package var method: HTTPMethod?
    var predicate: (@Sendable (MockRequest) -> Bool)?
    var responses: [MockResponse]
    /// Where the route was declared (a file path), and its line.
    package var file: String
    package var line: Int
    /// Why a request fails `predicate`, in the near-miss report; `nil`: "the predicate
    /// returned false".
    var explanation: (@Sendable (MockRequest) -> String?)?
    /// A route the loader adds for its own purposes (not one the user wrote): near-miss reports
    /// leave it out.
    var isInternal: Bool

    package init(
        path: String, host: String?, method: HTTPMethod?, predicate: (@Sendable (MockRequest) -> Bool)? = nil,
        responses: [MockResponse], file: String, line: Int, explanation: (@Sendable (MockRequest) -> String?)? = nil,
        isInternal: Bool = false
    ) {
        self.explanation = explanation
        self.isInternal = isInternal
        self.path = path
        self.host = host
        self.method = method
        self.predicate = predicate
        self.responses = responses
        self.file = file
        self.line = line
    }
}

extension HTTPMock {
    /// Validates every route and registers them all, or throws naming every mistake and
    /// registers none.
    package func registerAllOrThrow(_ routes: [PackageRoute], operation: String) throws {
        let definitions = routes.map { route in
            RouteDefinition(
                path: route.path, host: route.host, method: route.method, query: nil, matching: .exact,
                headers: nil, body: nil, predicate: route.predicate, responses: route.responses,
                location: SourceLocation(fileID: route.file, filePath: route.file, line: route.line, column: 1),
                predicateExplanation: route.explanation, isInternal: route.isInternal)
        }
        try Registration.registerOrThrow(definitions, on: registry, defaultDomain: defaultDomain, operation: operation)
    }

    /// Records a registration mistake that did not stop the registration (a Voodoo script that
    /// does not compile) as a test failure at the registering call site.
    package func reportRegistrationMistake(_ message: String, fileID: String, filePath: String, line: Int, column: Int) {
        Reporter.fail(message, at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// What a §16 template sees for `request` (`request`, `store`, `now`, `uuid`).
    package func templateContext(for request: MockRequest) -> JSONValue {
        TemplateNames.context(for: request, store: store)
    }
}

import Foundation

extension HTTPMock {
    /// Validates every spec and registers them all, after removing the routes whose identities
    /// `replacing` lists, or throws naming every mistake and registers (and removes) none: how
    /// another target of this package (Voodoo's loader, WireMock's mappings) registers routes,
    /// through the same ``Registration`` as `loadMocks` and `addResponses`.
    /// - Parameters:
    ///   - code: the error's code; `operation`: what was being done, the error's first words.
    /// - Returns: each spec's route identity (its registration order), in order; `nil` for a
    ///   spec that registered no route.
    @discardableResult
    package func register(
        _ specs: [RouteSpec], replacing: Set<Int> = [], code: HTTPMockError.Code, operation: String
    ) throws -> [Int?] {
        try Registration.registerOrThrow(
            specs, on: registry, defaultDomain: defaultDomain, errors: .init(code: code, operation: operation), replacing: replacing)
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

import Foundation

extension PackageTemplate {
    init(parsed template: Template) { self.template = template }

    /// Parses `source` in `dialect` (WireMock's Handlebars: the helpers are found and checked
    /// here, once); `partials` as in ``init(_:partials:)``.
    /// - Throws: `HTTPMockError` whose message starts with `line:column:` and names the tag.
    package init(_ source: String, dialect: TemplateDialect, partials: ((String) throws -> String?)? = nil) throws {
        do {
            self.init(parsed: try Template(parsing: source, dialect: dialect, partials: partials))
        } catch {
            throw HTTPMockError(.mockTree, error.message)
        }
    }

    /// Renders with `context` (a dialect's model) under the template budget: in place while
    /// small, else off the cooperative pool, stopped when the awaiting task is cancelled (its
    /// request timed out or went away). `context` is called once per attempt.
    /// - Throws: `HTTPMockError` saying why the render stopped (a helper's mistake, the budget).
    package func render(_ context: @Sendable () -> TemplateValue) async throws -> String {
        do {
            return try await template.renderQuickly(context)
        } catch let stopped as Template.RenderStopped {
            throw HTTPMockError(.invalidRegistration, "template: \(stopped)")
        }
    }

    /// Renders with `context` in place, under the full budget.
    package func render(value context: TemplateValue) throws -> String {
        do {
            return try template.render(value: context)
        } catch {
            throw HTTPMockError(.invalidRegistration, "template: \(error)")
        }
    }
}

extension MockResponse {
    /// A rendered answer for other targets of this package: `body` with exactly `headers`
    /// (`defaultContentType` only when `headers` has no `Content-Type`; `nil`: none is added).
    package static func rendered(_ body: Data, status: HTTPStatus, headers: HTTPHeaders, defaultContentType: String?) -> MockResponse {
        .http(
            status: status, headers: headers, body: .data(body), defaultContentType: defaultContentType, lifetime: .single,
            delivery: .instant)
    }

    /// The `Content-Type` HTTPMock gives a file with this extension.
    package static func contentType(forPathExtension pathExtension: String) -> String {
        ContentType.forPathExtension(pathExtension)
    }
}

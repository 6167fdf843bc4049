import Foundation

/// A Mustache template parsed without checking its names (names unknown at load time render
/// empty), for other targets of this package.
package struct PackageTemplate: Sendable {
    let template: Template

    /// Parses `source`; the error message starts with `line:column:`.
    ///
    /// `partials` finds the source of `{{> name}}` by its name, or returns `nil` when there is
    /// none (an error naming it); the caller reads and confines (Voodoo's template folder), and
    /// an error it throws is quoted in the parse error. Each partial is parsed once, here: a
    /// partial may include another; a cycle or a chain deeper than 32 is an error naming the
    /// chain (`a → b → a`). Without `partials`, a partial tag is an error.
    package init(_ source: String, partials: ((String) throws -> String?)? = nil) throws {
        do {
            template = try Template(parsing: source, partials: partials)
        } catch {
            throw HTTPMockError(.mockTree, error.message)
        }
    }

    /// Renders with `context`, under the same step and output budget as `.template`:
    /// a runaway section throws an `HTTPMockError` saying why instead of burning a core.
    package func render(_ context: JSONValue) throws -> String {
        do {
            return try template.render(context)
        } catch {
            throw HTTPMockError(.invalidRegistration, "template: \(error)")
        }
    }
}

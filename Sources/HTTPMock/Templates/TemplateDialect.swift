import Foundation

/// What differs between the template languages one engine reads: HTTPMock's own
/// and Voodoo's Mustache, WireMock's Handlebars. The caller supplies it with the template.
package struct TemplateDialect: Sendable {
    /// Mustache reads dotted names only; Handlebars also reads helper calls, literals,
    /// sub-expressions, `.[n]` segments, `{{else}}`, `{{~…~}}` and the built-in block helpers
    /// `#if`, `#unless`, `#each` and `#with`.
    package enum Syntax: Sendable {
        case mustache
        case handlebars
    }

    var syntax: Syntax
    /// Whether `{{…}}` escapes HTML (`{{{…}}}` and `{{&…}}` never do).
    var escapesHTML: Bool
    /// Whether a block tag alone on its line takes the line with it (the Mustache
    /// specification's rule; Handlebars.java as WireMock configures it keeps the line).
    var removesStandaloneLines: Bool
    /// The helpers a tag may call, by name.
    var helpers: [String: TemplateHelper]

    package init(syntax: Syntax, escapesHTML: Bool, removesStandaloneLines: Bool, helpers: [String: TemplateHelper] = [:]) {
        self.syntax = syntax
        self.escapesHTML = escapesHTML
        self.removesStandaloneLines = removesStandaloneLines
        self.helpers = helpers
    }

    /// HTTPMock's own (§16) and Voodoo's: Mustache, nothing escaped, standalone lines removed.
    static let mustache = TemplateDialect(syntax: .mustache, escapesHTML: false, removesStandaloneLines: true)

    var style: TemplateValue.Style { syntax == .mustache ? .mustache : .handlebars }
}

/// A helper a dialect provides: `{{name arg 'literal' key=value}}`, `(name …)` inside another
/// call, or a block `{{#name …}}…{{else}}…{{/name}}`.
package struct TemplateHelper: Sendable {
    /// What the helper does as a block.
    package enum BlockUse: Sendable {
        /// Like a section over its result: a list repeats the block, a truthy value renders it
        /// with the value as context, a false one renders the `{{else}}` part.
        case section
        /// A condition (`#eq`, `#contains`): a truthy result renders the block in the current
        /// context, else the `{{else}}` part.
        case condition
        /// The rendered block is the helper's input (`{{#trim}} … {{/trim}}`), in
        /// ``TemplateHelperCall/blockContent``.
        case content
    }

    var blockUse: BlockUse
    /// Checks a call site once, at parse time, and returns what every call there can reuse
    /// (a compiled pattern, a date formatter); a thrown message is a parse error at the tag.
    var prepare: (@Sendable (TemplateHelperSite) throws(TemplateHelperError) -> (any Sendable)?)?
    /// Computes the value for one call.
    var call: @Sendable (inout TemplateHelperCall) throws(TemplateHelperError) -> TemplateValue

    package init(
        blockUse: BlockUse = .section,
        prepare: (@Sendable (TemplateHelperSite) throws(TemplateHelperError) -> (any Sendable)?)? = nil,
        call: @escaping @Sendable (inout TemplateHelperCall) throws(TemplateHelperError) -> TemplateValue
    ) {
        self.blockUse = blockUse
        self.prepare = prepare
        self.call = call
    }
}

/// A helper's mistake: at parse time a parse error at the tag, at render time the render stops
/// naming the helper.
package struct TemplateHelperError: Error, Sendable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// A helper call as written, for ``TemplateHelper/prepare``: each argument's value when it
/// is a literal, `nil` when it is read per request.
package struct TemplateHelperSite: Sendable {
    package let name: String
    package let positional: [TemplateValue?]
    package let hash: [(key: String, value: TemplateValue?)]

    /// The literal `key=` argument, if written as a literal.
    package func literal(_ key: String) -> TemplateValue? { hash.first { $0.key == key }?.value ?? nil }
    /// Whether `key=` is given at all.
    package func has(_ key: String) -> Bool { hash.contains { $0.key == key } }
}

/// One call of a helper: its arguments evaluated for this request.
package struct TemplateHelperCall {
    package let name: String
    package let positional: [TemplateValue]
    package let hash: [(key: String, value: TemplateValue)]
    /// What ``TemplateHelper/prepare`` returned for this call site.
    package let prepared: (any Sendable)?
    /// The current context (`this`).
    let this: TemplateValue
    /// The rendered block, for a ``TemplateHelper/BlockUse/content`` helper used as a block.
    package let blockContent: String?
    /// Variables the helper defines for the rest of the template (`regexExtract … 'parts'`).
    package var assignments: [(name: String, value: TemplateValue)] = []

    init(
        name: String, positional: [TemplateValue], hash: [(key: String, value: TemplateValue)], prepared: (any Sendable)?,
        this: TemplateValue, blockContent: String?
    ) {
        self.name = name
        self.positional = positional
        self.hash = hash
        self.prepared = prepared
        self.this = this
        self.blockContent = blockContent
    }

    /// The `key=` argument.
    package func hash(_ key: String) -> TemplateValue? { hash.first { $0.key == key }?.value }
    /// The positional argument at `index`.
    package func argument(_ index: Int) -> TemplateValue? { index < positional.count ? positional[index] : nil }
}

import Foundation

/// A parsed template, in one of the dialects of ``TemplateDialect``.
///
/// Mustache (HTTPMock's own, Voodoo's): variables `{{name}}` (also `{{{name}}}` and
/// `{{&name}}`), sections `{{#name}}…{{/name}}`, inverted sections `{{^name}}…{{/name}}`,
/// comments `{{! … }}` and partials `{{> name}}` (read through a resolver the caller supplies:
/// the engine reads no file). Delimiter changes are not supported.
///
/// Handlebars (WireMock's), on top: paths with `.[n]`, `[segment literals]`, `this`, `../`
/// and `@index`/`@key`/`@first`/`@last`/`@root`; literals; helper calls with positional and
/// `key=value` arguments and `(sub-expressions)`; block helpers `#if`, `#unless`, `#each`,
/// `#with` and the dialect's own, with `{{else}}` (and `{{else if …}}`); `{{!-- … --}}` and
/// `{{~ … ~}}`.
///
/// Pure logic: parsing reports the line and column of a mistake; the dialect's helpers are
/// found and checked once, at parse time.
///
/// Standalone block, comment and partial tags (alone on their line, with only spaces or tabs
/// around them) remove their whole line, as the Mustache specification says, unless the
/// dialect keeps them (Handlebars.java as WireMock runs it); a standalone partial's
/// indentation is put before each of its lines.
struct Template: Sendable {
    /// A path: dotted words (`request.query.id`), `.[n]` and `[literal]` segments in
    /// Handlebars; `parts` is empty for the current context (`.`, `this`).
    struct Name: Sendable {
        let text: String
        let parts: [String]
        /// How many contexts up (`../`) the lookup starts.
        var parent = 0
        /// A data variable (`@index`, `@key`, `@first`, `@last`, `@root`): `parts[0]` names it.
        var isData = false
        /// `this.x`, `./x`: looked up in the current context only.
        var explicitThis = false
    }

    /// A helper call: the helper found at parse time and what it prepared.
    struct Call: Sendable {
        let name: String
        let helper: TemplateHelper
        let positional: [Expression]
        let hash: [(key: String, value: Expression)]
        let prepared: (any Sendable)?
    }

    enum Expression: Sendable {
        case path(Name)
        case literal(TemplateValue)
        case call(Call)
    }

    enum BlockKind: Sendable {
        /// `{{#name}}`, `{{^name}}`: over the value of a path.
        case section(Name)
        case ifTrue(Expression)
        case unless(Expression)
        /// `#each list as |item index|`: the block parameters' names, if any.
        case each(Expression, parameters: [String])
        case with(Expression, parameters: [String])
        case helper(Call)
    }

    enum Node: Sendable {
        case text(String)
        /// `{{…}}` (escaped when the dialect escapes) or `{{{…}}}`.
        case value(Expression, escaped: Bool)
        /// `body` when the block holds, else `inverse` (`{{else}}`, or an inverted section's content).
        case block(BlockKind, body: [Node], inverse: [Node])
        /// The partial at this index of `partials`, rendered in the current context.
        case partial(Int)
    }

    /// Finds a partial's source by its name, or `nil` when there is none. The caller loads and
    /// confines (Voodoo's template folder, WireMock's `__files/`); an error it throws is a parse
    /// error at the partial's tag, quoting the error.
    typealias PartialResolver = (String) throws -> String?

    /// Partials including partials deeper than this are a parse error naming the chain.
    static let maximumPartialDepth = 32

    struct ParseError: Error, Sendable, CustomStringConvertible {
        let message: String
        /// Set once the message names the partial chain it happened in: the template at the
        /// root only puts its tag's position in front.
        var namesItsPartials = false
        var description: String { message }
    }

    let nodes: [Node]
    /// Every partial the template includes, each parsed once (per indentation), whatever the
    /// number of tags naming it.
    let partials: [[Node]]
    let style: TemplateValue.Style

    /// Parses `source` in `dialect`. `checkTopLevelName` is asked about every name outside
    /// any section (names inside a section may resolve against the section's value); a message
    /// it returns is an error at that name's position. `partials` resolves `{{> name}}`;
    /// without it a partial tag is an error. A partial may include another; a cycle, or a
    /// chain deeper than ``maximumPartialDepth``, is an error naming the chain (`a → b → a`).
    init(
        parsing source: String, dialect: TemplateDialect = .mustache, checkTopLevelName: ((Name) -> String?)? = nil,
        partials: PartialResolver? = nil
    ) throws(ParseError) {
        let table = partials.map(PartialTable.init)
        var parser = Parser(source, dialect: dialect, check: checkTopLevelName, partials: table, chain: [])
        nodes = try parser.parse().nodes
        self.partials = table?.entries ?? []
        style = dialect.style
    }

    /// Text as is, integers without a decimal point, `null` empty, lists and objects as JSON.
    static func interpolation(of value: JSONValue) -> String {
        switch value {
        case .null: return ""
        case .string(let string): return string
        case .bool(let bool): return bool ? "true" : "false"
        case .integer(let integer): return String(integer)
        case .double(let double):
            if double.rounded() == double, abs(double) < 1e15 { return String(Int(double)) }
            return "\(double)"
        case .array, .object:
            return String(decoding: value.data, as: UTF8.self)
        }
    }
}

/// The partials of one template while it is parsed: each (name, indentation) parsed once.
final class PartialTable {
    let resolve: Template.PartialResolver
    var entries: [[Template.Node]] = []
    /// How deep blocks nest inside each entry, partials included.
    var nesting: [Int] = []
    var indices: [String: Int] = [:]

    init(_ resolve: @escaping Template.PartialResolver) { self.resolve = resolve }
}

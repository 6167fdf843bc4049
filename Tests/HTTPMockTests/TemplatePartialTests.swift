import Testing

@testable import HTTPMock

/// Mustache partials `{{> name}}` (SPEC §20, §21): resolved through the caller's resolver,
/// parsed once at registration, cycles and depth refused with the chain. Cases from the
/// Mustache specification's partials.yml, written as our own tests.
@Suite("Mustache engine: partials through a caller's resolver")
struct TemplatePartialTests {
    /// Counts how often each partial was asked for.
    final class Library: @unchecked Sendable {
        let sources: [String: String]
        var asked: [String: Int] = [:]
        init(_ sources: [String: String]) { self.sources = sources }
        func resolve(_ name: String) -> String? {
            asked[name, default: 0] += 1
            return sources[name]
        }
    }

    func render(_ template: String, _ data: JSONValue, _ partials: [String: String]) throws -> String {
        let library = Library(partials)
        return try Template(parsing: template, partials: library.resolve).render(data)
    }

    func message(_ template: String, _ partials: [String: String]) -> String {
        do {
            _ = try Template(parsing: template, partials: Library(partials).resolve)
            return "parsed"
        } catch {
            return error.message
        }
    }

    @Test("a partial renders in the current context, inside sections too")
    func basic() throws {
        #expect(try render(#""{{>text}}""#, [:], ["text": "from partial"]) == #""from partial""#)
        #expect(try render(#""{{> partial}}""#, ["text": "content"], ["partial": "*{{text}}*"]) == #""*content*""#)
        #expect(
            try render("{{#items}}[{{> item}}]{{/items}}", ["items": [["n": 1], ["n": 2]]], ["item": "{{n}}"]) == "[1][2]")
        #expect(try render("{{>a}}", ["x": "X"], ["a": "a({{>b}})", "b": "b({{x}})"]) == "a(b(X))")
        // Comments in a partial vanish like anywhere else.
        #expect(try render("{{>c}}", [:], ["c": "1{{! no }}2"]) == "12")
    }

    @Test("standalone partial tags take their line and indent every line of the partial")
    func standalone() throws {
        #expect(try render("|\r\n{{>partial}}\r\n|", [:], ["partial": ">"]) == "|\r\n>|")
        #expect(try render("  {{>partial}}\n>", [:], ["partial": ">\n>"]) == "  >\n  >>")
        #expect(try render(">\n  {{>partial}}", [:], ["partial": ">\n>"]) == ">\n  >\n  >")
        #expect(
            try render(
                "\\\n {{>partial}}\n/\n", ["content": "<\n->"], ["partial": "|\n{{{content}}}\n|\n"]) == "\\\n |\n <\n->\n |\n/\n")
        // Not standalone: no indentation, the line stays.
        #expect(try render("  {{data}}  {{> partial}}\n", ["data": "|"], ["partial": ">\n>"]) == "  |  >\n>\n")
    }

    @Test("each partial is asked for and parsed once, however many tags name it")
    func parsedOnce() throws {
        let library = Library(["row": "{{.}},", "table": "{{#rows}}{{>row}}{{/rows}}"])
        let template = try Template(parsing: "{{>table}}{{>table}}{{>row}}", partials: library.resolve)
        #expect(library.asked == ["table": 1, "row": 1])
        #expect(try template.render(["rows": [1, 2]]) == "1,2,1,2,{\"rows\":[1,2]},")
    }

    @Test("a cycle is an error naming the chain, at the tag that starts it")
    func cycles() {
        #expect(message("x\n {{>a}}", ["a": "{{>b}}", "b": "{{>a}}"]) == "2:2: partials form a cycle: a → b → a")
        #expect(message("{{>self}}", ["self": "again {{>self}}"]) == "1:1: partials form a cycle: self → self")
        // Data that would end a recursion does not make a cycle acceptable: partials are parsed once, at registration.
        #expect(message("{{>node}}", ["node": "{{#kids}}{{>node}}{{/kids}}"]) == "1:1: partials form a cycle: node → node")
    }

    @Test("partials nested more than 32 deep are an error naming the chain; 32 are fine")
    func depth() throws {
        var sources: [String: String] = [:]
        for level in 0..<40 { sources["p\(level)"] = "\(level){{>p\(level + 1)}}" }
        sources["p32"] = "end"
        #expect(try render("{{>p1}}", [:], sources) == (1...31).map(String.init).joined() + "end")
        sources["p32"] = "32{{>p33}}"
        let chain = (1...33).map { "p\($0)" }.joined(separator: " → ")
        #expect(message("{{>p1}}", sources) == "1:1: partials are nested more than 32 deep: \(chain)")
    }

    @Test("a missing partial, a resolver's error and a malformed partial are errors naming where")
    func errors() {
        #expect(message("ab {{> missing}}", [:]) == "1:4: no partial named missing")
        #expect(message("{{>a}}", ["a": "x\n{{>gone}}"]) == "1:1: in the partial a, 2:1: no partial named gone")
        #expect(
            message("{{>a}}", ["a": "{{>b}}", "b": "\n  {{#open}}"])
                == "1:1: in the partial a → b, 2:3: {{#open}} is never closed with {{/open}}")
        #expect(message("{{>}}", [:]) == "1:1: {{>}} does not name a partial")
        #expect(message("{{> a b}}", [:]) == "1:1: {{>a b}} does not name a partial")
        struct Refused: Error, CustomStringConvertible { var description: String { "../secret is outside the template folder" } }
        do {
            _ = try Template(parsing: "{{> ../secret}}", partials: { _ throws in throw Refused() })
            Issue.record("parsed")
        } catch {
            #expect(error.message == "1:1: the partial ../secret cannot be read: ../secret is outside the template folder")
        }
        // No resolver (HTTPMock's own `.template`): partials are refused, as before.
        #expect(throws: Template.ParseError.self) { try Template(parsing: "{{>a}}") }
    }

    @Test("sections nested through partials count toward the 100-deep bound")
    func nestingThroughPartials() {
        let sixty = String(repeating: "{{#a}}", count: 60) + String(repeating: "{{/a}}", count: 60)
        #expect(
            message(String(repeating: "{{#a}}", count: 50) + "{{>deep}}" + String(repeating: "{{/a}}", count: 50), ["deep": sixty])
                == "1:301: sections are nested more than 100 deep (through the partial deep)")
        #expect(message("{{>deep}}", ["deep": sixty]) == "parsed")
    }

    @Test("PackageTemplate takes the caller's resolver (Voodoo's template folder)")
    func packageTemplate() throws {
        let template = try PackageTemplate("[{{> books}}]", partials: { $0 == "books" ? "{{#list}}{{title}};{{/list}}" : nil })
        #expect(try template.render(["list": [["title": "Dune"], ["title": "Emma"]]]) == "[Dune;Emma;]")
        #expect(throws: HTTPMockError.self) { try PackageTemplate("{{> nope}}", partials: { _ in nil }) }
    }
}

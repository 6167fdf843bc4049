import Testing

@testable import HTTPMock

/// The Handlebars half of the one engine (SPEC §21), with a small helper table of its own:
/// WireMock's helpers are tested in HTTPMockServerTests. Expected outputs are Handlebars.java's
/// as WireMock 2.35.1 renders them (compared with the jar; see WireMockTemplatingTests).
@Suite("Template engine: the Handlebars dialect")
struct TemplateHandlebarsTests {
    static let helpers: [String: TemplateHelper] = [
        "upper": TemplateHelper { call in .string((call.argument(0)?.text(.handlebars) ?? "").uppercased()) },
        "concat": TemplateHelper { call in
            let separator = call.hash("separator")?.text(.handlebars) ?? ""
            return .string(call.positional.map { $0.text(.handlebars) }.joined(separator: separator))
        },
        "eq": TemplateHelper(blockUse: .condition) { call in
            .bool(call.argument(0)?.text(.handlebars) == call.argument(1)?.text(.handlebars))
        },
        "trim": TemplateHelper(blockUse: .content) { call in
            .string((call.blockContent ?? call.argument(0)?.text(.handlebars) ?? "").trimmingCharacters(in: .whitespacesAndNewlines))
        },
        "list": TemplateHelper { call in .array(call.positional) },
        "define": TemplateHelper { call in
            call.assignments.append((call.argument(0)?.text(.handlebars) ?? "", call.argument(1) ?? .null))
            return .string("")
        },
        "strict": TemplateHelper(
            prepare: { site throws(TemplateHelperError) in
                guard case .string(let mode)? = site.literal("mode") else { return nil }
                guard mode == "on" || mode == "off" else { throw TemplateHelperError("mode must be on or off, got \(mode)") }
                return mode
            },
            call: { call in .string("mode=\(call.prepared as? String ?? "dynamic")") }),
    ]

    static let dialect = TemplateDialect(syntax: .handlebars, escapesHTML: true, removesStandaloneLines: false, helpers: helpers)

    func render(_ template: String, _ data: JSONValue = [:]) throws -> String {
        try Template(parsing: template, dialect: Self.dialect).render(data)
    }

    func message(_ template: String) -> String {
        do {
            _ = try Template(parsing: template, dialect: Self.dialect)
            return "parsed"
        } catch {
            return error.message
        }
    }

    @Test("paths: dots, .[n], [segment literals], numbers, this, ../ and @root")
    func paths() throws {
        let data: JSONValue = ["a": ["b": ["c": "deep"]], "list": ["x", "y"], "headers": ["X-Trace": "t1", "a b": "sp"]]
        #expect(
            try render("{{a.b.c}}|{{a/b/c}}|{{list.[1]}}|{{list.1}}|{{list.[5]}}|{{headers.[X-Trace]}}|{{headers.X-Trace}}", data)
                == "deep|deep|y|y||t1|t1")
        #expect(
            try render("{{headers.[a b]}}|{{#with a.b}}{{c}}|{{this.c}}|{{./c}}|{{../list.[0]}}|{{@root.list.[0]}}{{/with}}", data)
                == "sp|deep|deep|deep|x|x")
        // The first part is looked up outwards, as Handlebars.java does; `this.` stays in the current context.
        #expect(try render("{{#with a}}{{list.[0]}}/{{this.list}}{{/with}}", data) == "x/")
    }

    @Test("{{…}} escapes & < > \" ' ` = as Handlebars does; {{{…}}} and {{&…}} do not")
    func escaping() throws {
        let data: JSONValue = ["s": "a&b<c>d\"e'f`g=h"]
        #expect(try render("{{s}}", data) == "a&amp;b&lt;c&gt;d&quot;e&#x27;f&#x60;g&#x3D;h")
        #expect(try render("{{{s}}}|{{& s}}", data) == "a&b<c>d\"e'f`g=h|a&b<c>d\"e'f`g=h")
        #expect(try render("{{upper s}}|{{{upper s}}}", data) == "A&amp;B&lt;C&gt;D&quot;E&#x27;F&#x60;G&#x3D;H|A&B<C>D\"E'F`G=H")
    }

    @Test("#if, #unless, {{else}}, {{else if}}, {{^}}; 0 and empty lists are false")
    func conditionals() throws {
        let data: JSONValue = ["yes": true, "zero": 0, "empty": [], "text": "t", "none": nil]
        #expect(try render("{{#if yes}}Y{{else}}N{{/if}}|{{#if zero}}Y{{else}}N{{/if}}|{{#if empty}}Y{{^}}N{{/if}}", data) == "Y|N|N")
        #expect(try render("{{#unless none}}U{{else}}V{{/unless}}|{{#if text}}{{text}}{{/if}}", data) == "U|t")
        #expect(try render("{{#if none}}1{{else if zero}}2{{else if text}}3{{else}}4{{/if}}", data) == "3")
        #expect(try render("{{#if none}}1{{else if zero}}2{{else}}4{{/if}}", data) == "4")
        #expect(try render("{{#if (eq text 't')}}same{{/if}}|{{#eq text 'u'}}same{{else}}differs{{/eq}}", data) == "same|differs")
    }

    @Test("#each over lists and objects: this, @index, @key, @first, @last; {{else}} for an empty list")
    func each() throws {
        let data: JSONValue = ["list": ["a", "b", "c"], "object": ["k1": 1, "k2": 2], "empty": []]
        #expect(
            try render("{{#each list}}{{@index}}={{this}}{{#if @first}}({{@first}}){{/if}}{{#if @last}}({{@last}}){{/if}};{{/each}}", data)
                == "0=a(first);1=b;2=c(last);")
        #expect(try render("{{#each object}}{{@key}}:{{this}},{{/each}}", data) == "k1:1,k2:2,")
        #expect(try render("{{#each empty}}x{{else}}nothing{{/each}}", data) == "nothing")
        #expect(try render("{{#each (list 1 2)}}[{{this}}]{{/each}}") == "[1][2]")
        #expect(try render("{{#each list}}{{#each ../list}}{{../this}}{{this}} {{/each}}{{/each}}", data) == "aa ab ac ba bb bc ca cb cc ")
        // Block parameters, as WireMock's documentation writes them.
        #expect(try render("{{#each list as |item|}}{{item}};{{/each}}", data) == "a;b;c;")
        #expect(try render("{{#each object as |value key|}}{{key}}={{value}} {{/each}}", data) == "k1=1 k2=2 ")
        #expect(
            try render("{{#each list as |item i|}}{{#each ../list as |other|}}{{i}}{{item}}{{other}} {{/each}}{{/each}}", data).hasPrefix(
                "0aa 0ab"))
        #expect(try render("{{#with object as |o|}}{{o.k2}}{{/with}}", data) == "2")
    }

    @Test("helper calls: positional and key=value arguments, literals, sub-expressions, block content, assignments")
    func helpers() throws {
        #expect(try render("{{concat 'a' \"b\" 1 2.5 true null separator='-'}}") == "a-b-1-2.5-true-")
        #expect(try render("{{concat (upper 'x') (concat 'y' (upper 'z'))}}") == "XyZ")
        #expect(try render("[{{#trim}}   padded {{upper 'v'}}  \n{{/trim}}]") == "[padded V]")
        #expect(try render("{{define 'v' (list 'p' 'q')}}{{v.[1]}}|{{v}}") == "q|[p, q]")
        #expect(try render("{{concat 'a}}b' \"it's\"}}") == "a}}bit&#x27;s")
        #expect(try render("{{strict mode='on'}}|{{strict}}") == "mode&#x3D;on|mode&#x3D;dynamic")
        // A name without arguments that is no helper is a path.
        #expect(try render("{{missing}}|{{other.name}}") == "|")
    }

    @Test("comments, {{!-- --}} holding }}, ~ whitespace control; standalone lines kept (Handlebars.java as WireMock runs it)")
    func whitespace() throws {
        #expect(try render("a{{! note }}b{{!-- holds }} too --}}c") == "abc")
        #expect(try render("a\n{{#if true}}\nb\n{{/if}}\nc") == "a\n\nb\n\nc")
        #expect(try render("a  \n  {{~ 'x' ~}}  \n  b") == "axb")
        #expect(try render("[ {{~#if true~}} x {{~/if~}} ]") == "[x]")
    }

    @Test("parse errors name the tag, its position and what is wrong")
    func errors() {
        #expect(message("ab {{random 'Address.city'}}") == "1:4: {{random 'Address.city'}}: unknown helper random")
        #expect(message("{{upper (nope 1)}}") == "1:1: {{upper (nope 1)}}: unknown helper nope")
        #expect(message("{{upper (nope)}}") == "1:1: {{upper (nope)}}: (nope) calls no helper (unknown helper nope)")
        #expect(message("\n {{strict mode='loud'}}") == "2:2: {{strict mode='loud'}}: strict: mode must be on or off, got loud")
        #expect(message("{{#if a}}x{{/unless}}") == "1:11: {{/unless}} closes {{#if}} opened at 1:1")
        #expect(message("{{#each}}x{{/each}}") == "1:1: {{#each}}: #each takes one argument, got 0")
        #expect(message("x{{else}}") == "1:2: {{else}} is outside any block")
        #expect(message("{{#if a}}1{{else}}2{{else}}3{{/if}}") == "1:20: {{else}}: {{#if}} opened at 1:1 has an else already")
        #expect(message("{{upper 'x}}") == "1:1: {{ is never closed with }}")
        #expect(message("{{upper (upper 'x'}}") == "1:1: {{upper (upper 'x'}}: ( is never closed with )")
        #expect(message("{{#if a}}") == "1:1: {{#if}} is never closed with {{/if}}")
        #expect(message("{{'lit' 1}}") == "1:1: {{'lit' 1}}: a literal takes no arguments")
        #expect(message("{{#if a as |b|}}{{/if}}") == "1:1: {{#if a as |b|}}: only #each and #with take block parameters")
        let deep = "{{upper " + String(repeating: "(upper ", count: 40) + "'x'" + String(repeating: ")", count: 40) + "}}"
        #expect(message(deep).hasSuffix("sub-expressions are nested more than 32 deep"))
    }

    @Test("the budget holds for helpers and #each like for sections")
    func budget() throws {
        let template = try Template(parsing: "{{#each big}}{{#each ../big}}{{upper 'x'}}{{/each}}{{/each}}", dialect: Self.dialect)
        let context: JSONValue = ["big": .array(Array(repeating: .integer(1), count: 1_000))]
        #expect { try template.render(context, limits: Template.Limits(steps: 10_000)) } throws: { error in
            (error as? Template.RenderStopped)?.description.contains("stopped after 10000 steps") == true
        }
    }

    @Test("Java's Double.toString layout for doubles")
    func javaDoubles() {
        #expect(TemplateValue.javaText(11) == "11.0")
        #expect(TemplateValue.javaText(2.5) == "2.5")
        #expect(TemplateValue.javaText(0.3) == "0.3")
        #expect(TemplateValue.javaText(-1.25) == "-1.25")
        #expect(TemplateValue.javaText(0.001) == "0.001")
        #expect(TemplateValue.javaText(0.0001) == "1.0E-4")
        #expect(TemplateValue.javaText(1e7) == "1.0E7")
        #expect(TemplateValue.javaText(12_345_678.9) == "1.23456789E7")
        #expect(TemplateValue.javaText(8.392708720476623e306) == "8.392708720476623E306")
        #expect(TemplateValue.javaText(9_999_999) == "9999999.0")
    }
}

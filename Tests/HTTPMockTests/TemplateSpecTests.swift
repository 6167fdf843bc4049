import Testing

@testable import HTTPMock

/// Cases derived from the official Mustache specification (mustache/spec, specs/interpolation.yml,
/// sections.yml, inverted.yml, comments), written as our own tests. Left out on purpose: the
/// HTML-escaping cases (HTTPMock never escapes: bodies are JSON and text), partials, delimiter
/// changes and lambdas (not supported; the first two are a parse error).
@Suite("Mustache engine: cases from the Mustache specification")
struct TemplateSpecTests {
    func render(_ template: String, _ data: JSONValue) throws -> String {
        try Template(parsing: template).render(data)
    }

    // MARK: interpolation.yml

    @Test("interpolation: text, variables, numbers, null, missing names")
    func interpolation() throws {
        #expect(try render("Hello from {Mustache}!\n", [:]) == "Hello from {Mustache}!\n")
        #expect(try render("Hello, {{subject}}!\n", ["subject": "world"]) == "Hello, world!\n")
        // No HTML escaping in HTTPMock: all three forms give the raw text.
        let special: JSONValue = ["forbidden": "& \" < >"]
        #expect(try render("{{forbidden}}|{{{forbidden}}}|{{&forbidden}}", special) == "& \" < >|& \" < >|& \" < >")
        #expect(try render(#""{{mph}} miles an hour!""#, ["mph": 85]) == #""85 miles an hour!""#)
        #expect(try render(#""{{{mph}}} miles an hour!""#, ["mph": 85]) == #""85 miles an hour!""#)
        #expect(try render(#""{{power}} jiggawatts!""#, ["power": 1.210]) == #""1.21 jiggawatts!""#)
        #expect(try render("I ({{cannot}}) be seen!", ["cannot": nil]) == "I () be seen!")
        #expect(try render("I ({{&cannot}}) be seen!", [:]) == "I () be seen!")
    }

    @Test("interpolation: dotted names")
    func dottedNames() throws {
        let person: JSONValue = ["person": ["name": "Joe"]]
        #expect(try render(#""{{person.name}}" == "{{#person}}{{name}}{{/person}}""#, person) == #""Joe" == "Joe""#)
        #expect(try render(#""{{{person.name}}}" == "{{#person}}{{{name}}}{{/person}}""#, person) == #""Joe" == "Joe""#)
        let deep: JSONValue = ["a": ["b": ["c": ["d": ["e": ["name": "Phil"]]]]]]
        #expect(try render(#""{{a.b.c.d.e.name}}" == "Phil""#, deep) == #""Phil" == "Phil""#)
        #expect(try render(#""{{a.b.c}}" == """#, ["a": [:]]) == #""" == """#)
        // Broken chain: the first part found, the rest is not looked up further out.
        let broken: JSONValue = ["a": ["b": [:]], "c": ["name": "Jim"]]
        #expect(try render(#""{{a.b.c.name}}" == """#, broken) == #""" == """#)
        // Initial resolution: the first part resolves against the innermost context.
        let initial: JSONValue = [
            "a": ["b": ["c": ["d": ["e": ["name": "Phil"]]]]],
            "b": ["c": ["d": ["e": ["name": "Wrong"]]]],
        ]
        #expect(try render(#""{{#a}}{{b.c.d.e.name}}{{/a}}" == "Phil""#, initial) == #""Phil" == "Phil""#)
        // Context precedence: a miss inside the found value is a miss.
        let precedence: JSONValue = ["a": ["b": [:]], "b": ["c": "ERROR"]]
        #expect(try render("{{#a}}{{b.c}}{{/a}}", precedence) == "")
    }

    @Test("interpolation: implicit iterator and whitespace")
    func implicitIteratorAndWhitespace() throws {
        #expect(try render("Hello, {{.}}!\n", "world") == "Hello, world!\n")
        #expect(try render(#""{{.}} miles an hour!""#, 85) == #""85 miles an hour!""#)
        #expect(try render("| {{string}} |", ["string": "---"]) == "| --- |")
        #expect(try render("  {{string}}\n", ["string": "---"]) == "  ---\n")  // variables are never standalone
        #expect(try render("|{{ string }}|{{{ string }}}|{{& string }}|", ["string": "---"]) == "|---|---|---|")
    }

    // MARK: sections.yml

    @Test("sections: truthiness, context, lists")
    func sections() throws {
        #expect(try render(#""{{#boolean}}This should be rendered.{{/boolean}}""#, ["boolean": true]) == #""This should be rendered.""#)
        #expect(try render(#""{{#boolean}}This should not be rendered.{{/boolean}}""#, ["boolean": false]) == #""""#)
        #expect(try render(#""{{#null}}This should not be rendered.{{/null}}""#, ["null": nil]) == #""""#)
        #expect(try render(#""{{#context}}Hi {{name}}.{{/context}}""#, ["context": ["name": "Joe"]]) == #""Hi Joe.""#)
        let parents: JSONValue = ["a": "foo", "b": "wrong", "sec": ["b": "bar"], "c": ["d": "baz"]]
        #expect(try render(#""{{#sec}}{{a}}, {{b}}, {{c.d}}{{/sec}}""#, parents) == #""foo, bar, baz""#)
        #expect(try render(#""{{#foo}}{{.}} is {{foo}}{{/foo}}""#, ["foo": "bar"]) == #""bar is bar""#)
        let tops: JSONValue = [
            "tops": [
                [
                    "tname": ["upper": "A", "lower": "a"],
                    "middles": [["mname": "1", "bottoms": [["bname": "x"], ["bname": "y"]]]],
                ]
            ]
        ]
        #expect(
            try render(
                "{{#tops}}{{#middles}}{{tname.lower}}{{mname}}.{{#bottoms}}{{tname.upper}}{{mname}}{{bname}}.{{/bottoms}}{{/middles}}{{/tops}}",
                tops)
                == "a1.A1x.A1y.")
        #expect(try render(#""{{#list}}{{item}}{{/list}}""#, ["list": [["item": 1], ["item": 2], ["item": 3]]]) == #""123""#)
        #expect(try render(#""{{#list}}Yay lists!{{/list}}""#, ["list": []]) == #""""#)
        #expect(try render(#""{{#section}}foo{{/section}}""#, ["section": "123"]) == #""foo""#)  // strings are not lists
        #expect(try render("| A {{#bool}}B {{#bool}}C{{/bool}} D{{/bool}} E |", ["bool": true]) == "| A B C D E |")
        #expect(try render("| A {{#bool}}B {{#bool}}C{{/bool}} D{{/bool}} E |", ["bool": false]) == "| A  E |")
        #expect(try render("[{{#missing}}Found key 'missing'!{{/missing}}]", [:]) == "[]")
    }

    @Test("sections: implicit iterators and dotted names")
    func sectionIterators() throws {
        #expect(try render(#""{{#list}}({{.}}){{/list}}""#, ["list": ["a", "b", "c", "d", "e"]]) == #""(a)(b)(c)(d)(e)""#)
        #expect(try render(#""{{#list}}({{.}}){{/list}}""#, ["list": [1, 2, 3, 4, 5]]) == #""(1)(2)(3)(4)(5)""#)
        #expect(try render(#""{{#list}}({{.}}){{/list}}""#, ["list": [1.10, 2.20, 3.30, 4.40, 5.50]]) == #""(1.1)(2.2)(3.3)(4.4)(5.5)""#)
        #expect(try render(#""{{#list}}({{#.}}{{.}}{{/.}}){{/list}}""#, ["list": [[1, 2, 3], ["a", "b", "c"]]]) == #""(123)(abc)""#)
        #expect(try render(#""{{#a.b.c}}Here{{/a.b.c}}" == "Here""#, ["a": ["b": ["c": true]]]) == #""Here" == "Here""#)
        #expect(try render(#""{{#a.b.c}}Here{{/a.b.c}}" == """#, ["a": ["b": ["c": false]]]) == #""" == """#)
        #expect(try render(#""{{#a.b.c}}Here{{/a.b.c}}" == """#, ["a": [:]]) == #""" == """#)
    }

    @Test("sections: whitespace and standalone lines")
    func sectionWhitespace() throws {
        let yes: JSONValue = ["boolean": true]
        #expect(try render(" | {{#boolean}}\t|\t{{/boolean}} | \n", yes) == " | \t|\t | \n")
        #expect(try render(" | {{#boolean}} {{! Important Whitespace }}\n {{/boolean}} | \n", yes) == " |  \n  | \n")
        #expect(try render(" {{#boolean}}YES{{/boolean}}\n {{#boolean}}GOOD{{/boolean}}\n", yes) == " YES\n GOOD\n")
        #expect(try render("| This Is\n{{#boolean}}\n|\n{{/boolean}}\n| A Line\n", yes) == "| This Is\n|\n| A Line\n")
        #expect(try render("| This Is\n  {{#boolean}}\n|\n  {{/boolean}}\n| A Line\n", yes) == "| This Is\n|\n| A Line\n")
        #expect(try render("|\r\n{{#boolean}}\r\n{{/boolean}}\r\n|", yes) == "|\r\n|")
        #expect(try render("  {{#boolean}}\n#{{/boolean}}\n/", yes) == "#\n/")
        #expect(try render("#{{#boolean}}\n/\n  {{/boolean}}", yes) == "#\n/\n")
        #expect(try render("|{{# boolean }}={{/ boolean }}|", yes) == "|=|")
        let doubled = "{{#bool}}\n* first\n{{/bool}}\n* {{two}}\n{{#bool}}\n* third\n{{/bool}}\n"
        #expect(try render(doubled, ["bool": true, "two": "second"]) == "* first\n* second\n* third\n")
    }

    @Test("sections: deeply nested contexts")
    func deeplyNested() throws {
        let data: JSONValue = ["a": ["one": 1], "b": ["two": 2], "c": ["three": 3, "d": ["four": 4, "five": 5]]]
        let template = """
            {{#a}}
            {{one}}
            {{#b}}
            {{one}}{{two}}{{one}}
            {{#c}}
            {{one}}{{two}}{{three}}{{two}}{{one}}
            {{#d}}
            {{one}}{{two}}{{three}}{{four}}{{three}}{{two}}{{one}}
            {{#five}}
            {{one}}{{two}}{{three}}{{four}}{{five}}{{four}}{{three}}{{two}}{{one}}
            {{one}}{{two}}{{three}}{{four}}{{.}}6{{.}}{{four}}{{three}}{{two}}{{one}}
            {{one}}{{two}}{{three}}{{four}}{{five}}{{four}}{{three}}{{two}}{{one}}
            {{/five}}
            {{one}}{{two}}{{three}}{{four}}{{three}}{{two}}{{one}}
            {{/d}}
            {{one}}{{two}}{{three}}{{two}}{{one}}
            {{/c}}
            {{one}}{{two}}{{one}}
            {{/b}}
            {{one}}
            {{/a}}

            """
        #expect(try render(template, data) == "1\n121\n12321\n1234321\n123454321\n12345654321\n123454321\n1234321\n12321\n121\n1\n")
    }

    // MARK: inverted.yml

    @Test("inverted sections")
    func inverted() throws {
        #expect(try render(#""{{^boolean}}This should be rendered.{{/boolean}}""#, ["boolean": false]) == #""This should be rendered.""#)
        #expect(try render(#""{{^boolean}}This should not be rendered.{{/boolean}}""#, ["boolean": true]) == #""""#)
        #expect(try render(#""{{^null}}This should be rendered.{{/null}}""#, ["null": nil]) == #""This should be rendered.""#)
        #expect(try render(#""{{^context}}Hi {{name}}.{{/context}}""#, ["context": ["name": "Joe"]]) == #""""#)
        #expect(try render(#""{{^list}}{{n}}{{/list}}""#, ["list": [["n": 1], ["n": 2], ["n": 3]]]) == #""""#)
        #expect(try render(#""{{^list}}Yay lists!{{/list}}""#, ["list": []]) == #""Yay lists!""#)
        #expect(
            try render("{{#bool}}\n* first\n{{/bool}}\n* {{two}}\n{{^bool}}\n* third\n{{/bool}}\n", ["bool": false, "two": "second"])
                == "* second\n* third\n")
        #expect(try render("| A {{^bool}}B {{^bool}}C{{/bool}} D{{/bool}} E |", ["bool": false]) == "| A B C D E |")
        #expect(try render("| A {{^bool}}B {{^bool}}C{{/bool}} D{{/bool}} E |", ["bool": true]) == "| A  E |")
        #expect(try render("[{{^missing}}Found key 'missing'!{{/missing}}]", [:]) == "[Found key 'missing'!]")
        #expect(try render(#""{{^a.b.c}}Not Here{{/a.b.c}}" == """#, ["a": ["b": ["c": true]]]) == #""" == """#)
        #expect(try render(#""{{^a.b.c}}Not Here{{/a.b.c}}" == "Not Here""#, ["a": ["b": ["c": false]]]) == #""Not Here" == "Not Here""#)
        #expect(try render(#""{{^a.b.c}}Not Here{{/a.b.c}}" == "Not Here""#, ["a": [:]]) == #""Not Here" == "Not Here""#)
        let no: JSONValue = ["boolean": false]
        #expect(try render(" | {{^boolean}}\t|\t{{/boolean}} | \n", no) == " | \t|\t | \n")
        #expect(try render(" {{^boolean}}NO{{/boolean}}\n {{^boolean}}WAY{{/boolean}}\n", no) == " NO\n WAY\n")
        #expect(try render("| This Is\n{{^boolean}}\n|\n{{/boolean}}\n| A Line\n", no) == "| This Is\n|\n| A Line\n")
        #expect(try render("|\r\n{{^boolean}}\r\n{{/boolean}}\r\n|", no) == "|\r\n|")
        #expect(try render("  {{^boolean}}\n^{{/boolean}}\n/", no) == "^\n/")
        #expect(try render("|{{^ boolean }}={{/ boolean }}|", no) == "|=|")
    }

    @Test("comments vanish, standalone comment lines too")
    func comments() throws {
        #expect(try render("12345{{! Comment Block! }}67890", [:]) == "1234567890")
        #expect(try render("12345{{!\n  This is a\n  multi-line comment...\n}}67890\n", [:]) == "1234567890\n")
        #expect(try render("Begin.\n{{! Comment Block! }}\nEnd.\n", [:]) == "Begin.\nEnd.\n")
        #expect(try render("Begin.\n  {{! Indented Comment Block! }}\nEnd.\n", [:]) == "Begin.\nEnd.\n")
        #expect(try render("  12 {{! 34 }}\n", [:]) == "  12 \n")
    }

    // MARK: errors

    @Test("malformed templates fail with line and column")
    func errors() {
        func message(_ template: String) -> String {
            do {
                _ = try Template(parsing: template)
                return "parsed"
            } catch {
                return error.message
            }
        }
        #expect(message("ab\n  {{#items}}x") == "2:3: {{#items}} is never closed with {{/items}}")
        #expect(message("{{#a}}{{/b}}") == "1:7: {{/b}} closes {{#a}} opened at 1:1")
        #expect(message("x{{/a}}") == "1:2: {{/a}} closes no open section")
        #expect(message("x\ny {{name") == "2:3: {{ is never closed with }}")
        #expect(message("{{>partial}}") == "1:1: partials ({{>…}}) are not supported")
        #expect(message("{{=<% %>=}}") == "1:1: delimiter changes ({{=…=}}) are not supported")
        #expect(message("{{}}") == "1:1: {{}} has no name")
    }
}

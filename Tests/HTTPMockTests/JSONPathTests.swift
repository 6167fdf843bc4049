import Foundation
import Testing

@testable import HTTPMock

/// White-box tests of the JSONPath evaluator against Jayway JsonPath's documented examples (the
/// README's bookstore) and further expressions, each expectation as Jayway 2.7 (the version in
/// WireMock 2.35.1's jar) printed it when run on the same document.
@Suite("JSONPath (Jayway's dialect)")
struct JSONPathTests {
    static let store: OrderedJSON = {
        let text = """
            {"store": {
                "book": [
                    {"category": "reference", "author": "Nigel Rees", "title": "Sayings of the Century", "price": 8.95},
                    {"category": "fiction", "author": "Evelyn Waugh", "title": "Sword of Honour", "price": 12.99},
                    {"category": "fiction", "author": "Herman Melville", "title": "Moby Dick", "isbn": "0-553-21311-3", "price": 8.99},
                    {"category": "fiction", "author": "J. R. R. Tolkien", "title": "The Lord of the Rings", "isbn": "0-395-19395-8", "price": 22.99}
                ],
                "bicycle": {"color": "red", "price": 19.95}
             },
             "expensive": 10}
            """
        return (try? JSONReader.parseOrdered(text)) ?? .scalar(.null)
    }()

    static let items: OrderedJSON = {
        let text = """
            {"items": [{"id": 1, "n": null, "f": false, "t": true, "s": "10", "tags": ["a", "b"], "o": {"k": 1}},
                       {"id": 2, "f": true, "s": "x", "tags": [], "big": 12345678901, "d": 1.0E10, "e": 0.0001, "g": 100.0},
                       {"id": 3, "tags": ["b"]}],
             "a": null, "e": [], "m": {}}
            """
        return (try? JSONReader.parseOrdered(text)) ?? .scalar(.null)
    }()

    static func run(_ path: String, on document: OrderedJSON) throws -> JSONPath.Outcome {
        try JSONPath(path).evaluate(document)
    }

    /// The README's table, with Jayway's answers written as compact JSON (numbers as Java prints them).
    @Test(
        "the Jayway README's bookstore examples",
        arguments: [
            ("$.store.book[*].author", #"["Nigel Rees","Evelyn Waugh","Herman Melville","J. R. R. Tolkien"]"#),
            ("$..author", #"["Nigel Rees","Evelyn Waugh","Herman Melville","J. R. R. Tolkien"]"#),
            ("$.store..price", "[8.95,12.99,8.99,22.99,19.95]"),
            ("$..book[2].title", #"["Moby Dick"]"#),
            ("$..book[-2].title", #"["Moby Dick"]"#),
            ("$..book[0,1].title", #"["Sayings of the Century","Sword of Honour"]"#),
            ("$..book[:2].title", #"["Sayings of the Century","Sword of Honour"]"#),
            ("$..book[1:2].title", #"["Sword of Honour"]"#),
            ("$..book[-2:].title", #"["Moby Dick","The Lord of the Rings"]"#),
            ("$..book[2:].title", #"["Moby Dick","The Lord of the Rings"]"#),
            ("$..book[?(@.isbn)].title", #"["Moby Dick","The Lord of the Rings"]"#),
            ("$.store.book[?(@.price < 10)].title", #"["Sayings of the Century","Moby Dick"]"#),
            ("$..book[?(@.price <= $['expensive'])].title", #"["Sayings of the Century","Moby Dick"]"#),
            ("$..book[?(@.author =~ /.*REES/i)].title", #"["Sayings of the Century"]"#),
            ("$..book.length()", "4"),
        ])
    func readme(path: String, expected: String) throws {
        let outcome = try Self.run(path, on: Self.store)
        #expect(Self.text(outcome) == expected, "\(path)")
    }

    @Test(
        "filters, unions, slices, functions and missing members as Jayway answers them",
        arguments: [
            ("$.store.book.length()", "4"),
            ("$.store.book[:-1].price", "[8.95,12.99,8.99]"),
            ("$.store.book[-9:].price", "[8.95,12.99,8.99,22.99]"),
            ("$.store.book[-9]", "missing"),
            ("$.store.book[9]", "missing"),
            ("$.store.book[*].isbn", #"["0-553-21311-3","0-395-19395-8"]"#),
            ("$.store.book[0].isbn", "missing"),
            ("$.nothing", "missing"),
            ("$.store.bicycle.color", #""red""#),
            ("$['store']['bicycle']['color']", #""red""#),
            (#"$["store"]["bicycle"].color"#, #""red""#),
            ("$.store['bicycle','book'].color", #"["red"]"#),
            ("$.store.book[?(@.category == 'fiction' && @.price > 10)].title", #"["Sword of Honour","The Lord of the Rings"]"#),
            ("$.store.book[?(@.category == 'reference' || @.price > 20)].title", #"["Sayings of the Century","The Lord of the Rings"]"#),
            ("$.store.book[?(!(@.price > 10))].title", #"["Sayings of the Century","Moby Dick"]"#),
            ("$.store.book[?(@.category in ['reference','x'])].title", #"["Sayings of the Century"]"#),
            ("$.store.book[?(@.category nin ['reference'])].title", #"["Sword of Honour","Moby Dick","The Lord of the Rings"]"#),
            ("$.store.book[?(@.isbn empty false)].title", #"["Moby Dick","The Lord of the Rings"]"#),
            ("$.store.book[?(@.title size 9)].title", #"["Moby Dick"]"#),
            ("$.store.book[?(@.price == '8.95')].title", #"["Sayings of the Century"]"#),
            ("$.store.book[?(@.price != 8.95)].title", #"["Sword of Honour","Moby Dick","The Lord of the Rings"]"#),
            ("$..[?(@.price > 19)].price", "[22.99,19.95]"),
            ("$.store.book[?(@.isbn == null)].title", "[]"),
            ("$.store.book[?(@.nope != 'x')].title", #"["Sayings of the Century","Sword of Honour","Moby Dick","The Lord of the Rings"]"#),
            ("$.store.*.price", "[19.95]"),
            (
                "$.store.book[*]['author','title']",
                #"[{"author":"Nigel Rees","title":"Sayings of the Century"},{"author":"Evelyn Waugh","title":"Sword of Honour"},{"author":"Herman Melville","title":"Moby Dick"},{"author":"J. R. R. Tolkien","title":"The Lord of the Rings"}]"#
            ),
            ("$.store.book[?(@['price'] > 20)].title", #"["The Lord of the Rings"]"#),
            ("$[?(@.expensive)].expensive", "[10]"),
            ("$.store.bicycle[?(@.color == 'red')].price", "[19.95]"),
            ("$..price.min()", "8.95"),
            ("$..price.max()", "22.99"),
            ("$..price.sum()", "73.87"),
            ("$.store.book[?(@.price > $.expensive)].title", #"["Sword of Honour","The Lord of the Rings"]"#),
            ("$.store.book[?(@.title =~ /moby.*/)].title", "[]"),
            ("$.store.book[?(@.title =~ /Moby/)].title", "[]"),
            ("$.store.book[?(@.author anyof ['Nigel Rees'])].title", "[]"),
            ("$.store.book[*].price.length()", "[null,null,null,null]"),
            ("$.store.book[?(@.price < 10 && !(@.category == 'reference'))].title", #"["Moby Dick"]"#),
            ("$.store.book[?(@.price in [8.95, 22.99])].title", #"["Sayings of the Century","The Lord of the Rings"]"#),
            ("$.store.book[?(@.price > '10')].title", "[]"),
            ("$.store.book[?(@.title > 'S')].title", #"["Sayings of the Century","Sword of Honour","The Lord of the Rings"]"#),
            ("$.store.book[? (@.price < 10)].title", #"["Sayings of the Century","Moby Dick"]"#),
            ("$.store.book[?(10 > @.price)].title", #"["Sayings of the Century","Moby Dick"]"#),
            ("$.store.book[?(!@.isbn)].title", #"["Sayings of the Century","Sword of Honour"]"#),
            ("$.store.bicycle.*", #"["red",19.95]"#),
            ("$.store.book[?(@.tags)]", "[]"),
            (#"$.store.book[?(@.author == "Nigel Rees")].title"#, #"["Sayings of the Century"]"#),
            ("$.store.book[?(@.price === 8.95)].title", #"["Sayings of the Century"]"#),
            ("$.store.book[*].author[0]", "[]"),
            ("$.store.book.author", "missing"),
            ("$.store.book[00].price", "8.95"),
            ("$.store.book[ 0 ].price", "8.95"),
            ("$.store.book[?(@.price<10)][?(@.isbn)].title", #"["Moby Dick"]"#),
            ("$.store.book[-1:].title", #"["The Lord of the Rings"]"#),
            ("store.bicycle.color", #""red""#),
        ])
    func jayway(path: String, expected: String) throws {
        #expect(Self.text(try Self.run(path, on: Self.store)) == expected, "\(path)")
    }

    @Test(
        "existence, null, booleans, lists and numbers as Jayway answers them",
        arguments: [
            ("$.items[?(@.n)].id", "[1]"),
            ("$.items[?(@.f)].id", "[1,2]"),
            ("$.items[?(@.n == null)].id", "[1]"),
            ("$.items[?(@.f == false)].id", "[1]"),
            ("$.items[?(@.t == 'true')].id", "[]"),
            ("$.items[?(@.s == 10)].id", "[1]"),
            ("$.items[?(@.s === 10)].id", "[]"),
            ("$.items[?(@.id =~ /1/)].id", "[1]"),
            ("$.items[?(@.tags contains 'a')].id", "[1]"),
            ("$.items[?(@.s contains '1')].id", "[1]"),
            ("$.items[?(@.tags subsetof ['a','b','c'])].id", "[1,2,3]"),
            ("$.items[?(@.tags anyof ['b'])].id", "[1,3]"),
            ("$.items[?(@.tags noneof ['b'])].id", "[2]"),
            ("$.items[?(@.tags size 2)].id", "[1]"),
            ("$.items[?(@.tags empty true)].id", "[2]"),
            (#"$.items[?(@.o == {"k":1})].id"#, "[1]"),
            ("$.items[?(@.tags == ['a','b'])].id", "[1]"),
            ("$.items[?(@..k)].id", "[1,2,3]"),
            ("$.items[?(@.id in [1, '2'])].id", "[1,2]"),
            ("$.items[?(@.id > 1 && @.id < 3 || @.id == 1)].id", "[1,2]"),
            ("$.items[?(@.id == 1 || @.id == 2 && @.f == false)].id", "[1]"),
            ("$.items[1].big", "12345678901"),
            ("$.items[1].d", "1.0E10"),
            ("$.items[1].e", "1.0E-4"),
            ("$.items[1].g", "100.0"),
            ("$.a", "null"),
            ("$.e", "[]"),
            ("$.m", "{}"),
            ("$.items[*].n", "[null]"),
            ("$.items[0].tags[-1]", #""b""#),
            ("$.items[0].o[0]", "missing"),
            ("$.items.length()", "3"),
            ("$.items[0].s.length()", "null"),
            ("$.items[?(@.tags[0] == 'b')].id", "[3]"),
            ("$.items[?(@.tags[*] == 'b')].id", "[]"),
            ("$.items[?(@.id)]..k", "[1]"),
            ("$..[0].id", "[1]"),
            ("$..tags[0]", #"["a","b"]"#),
            ("$.items[?(@.s < 'y')].id", "[1,2]"),
            ("$.items[?(@.s nin ['10'])].id", "[2,3]"),
            ("$.items[?(@.id == $.items[1].id)].id", "[2]"),
            ("$.items[?(@.s =~ /X/i)].id", "[2]"),
            ("$.items[?(@.tags.length() == 2)].id", "[1]"),
            ("$.items[0:2].id", "[1,2]"),
        ])
    func values(path: String, expected: String) throws {
        #expect(Self.text(try Self.run(path, on: Self.items)) == expected, "\(path)")
    }

    @Test("a deep wildcard visits a value, then its children, as Jayway's scan does")
    func deepScanOrder() throws {
        let document = try JSONReader.parseOrdered(#"{"a": {"b": [1, {"c": 2}]}, "d": 3}"#)
        // a and d; then a's children; then b's; then the object's.
        #expect(Self.text(try Self.run("$..*", on: document)) == #"[{"b":[1,{"c":2}]},3,[1,{"c":2}],1,{"c":2},2]"#)
    }

    @Test("slices honour a step, RFC 9535's way (Jayway ignores it)")
    func slicesWithSteps() throws {
        let document = OrderedJSON([0, 1, 2, 3, 4, 5] as JSONValue)
        #expect(Self.text(try Self.run("$[0:6:2]", on: document)) == "[0,2,4]")
        #expect(Self.text(try Self.run("$[::-1]", on: document)) == "[5,4,3,2,1,0]")
        #expect(Self.text(try Self.run("$[4:1:-2]", on: document)) == "[4,2]")
        #expect(Self.text(try Self.run("$[0:6:0]", on: document)) == "[]")
    }

    @Test("definite and indefinite paths are told apart")
    func definiteness() throws {
        #expect(try JSONPath("$.a.b[0]['c']").isDefinite)
        for path in ["$..a", "$.a[*]", "$.a.*", "$.a[0,1]", "$.a[1:]", "$.a[?(@.b)]", "$['a','b']"] {
            #expect(try !JSONPath(path).isDefinite, "\(path)")
        }
    }

    @Test(
        "a malformed path is an error naming the position",
        arguments: [
            ("$.store.book[", "expected"),
            ("$.a[?(@.b == )]", "expected a path"),
            ("$.a[?(@.b == 'x']", "expected )"),
            ("$.a.nosuch()", "unknown function nosuch()"),
            ("$.a.concat('x')", "functions with arguments are not supported"),
            ("$.a.nosuch()", "unknown function"),
            ("$.a[:]", "a slice needs a start or an end"),
            ("$.a[?(@.b =~ /(/)]", "is not a regular expression"),
            ("$.a[?(@.b == 'x)]", "a string is not closed"),
            ("$.a..", "a name is expected after .."),
        ])
    func parseErrors(path: String, fragment: String) {
        #expect {
            _ = try JSONPath(path)
        } throws: { error in
            "\(error)".contains(fragment) && "\(error)".contains("JSONPath \"")
        }
    }

    @Test("hostile paths and documents are bounded: nesting, length and evaluation steps")
    func bounds() async throws {
        let deep = "$.a" + String(repeating: "[?(@.b", count: 40) + String(repeating: ")]", count: 40)
        #expect(throws: JSONPath.ParseError.self) { try JSONPath(deep) }
        #expect(throws: JSONPath.ParseError.self) { try JSONPath("$." + String(repeating: "a", count: JSONPath.maximumLength + 1)) }
        // A filter with a deep scan inside a deep scan is quadratic in the document; with a
        // nest of them it would be exponential, and the budget ends it.
        let wide = OrderedJSON(JSONValue.array((0..<2_000).map { .object(["x": .array([.integer($0)])]) }))
        let nested = try JSONPath("$..[?($..* == 1)]")
        let outcome = try await offCooperativePool { nested.evaluate(wide) }
        #expect(outcome == .exceededBudget)
    }

    @Test("Java's Double.toString layout for numbers compared as text")
    func javaNumbers() {
        let cases: [(Double, String)] = [
            (8.95, "8.95"), (100, "100.0"), (1e10, "1.0E10"), (0.0001, "1.0E-4"), (0.001, "0.001"), (1234567.5, "1234567.5"),
            (12345678.9, "1.23456789E7"), (-2.5, "-2.5"), (0, "0.0"), (73.87, "73.87"), (14.774000000000001, "14.774000000000001"),
        ]
        for (number, text) in cases { #expect(JSONValue.double(number).javaText == text, "\(number)") }
    }

    /// Compact JSON as Jayway's answers were written above; `missing` for a definite path that found nothing.
    static func text(_ outcome: JSONPath.Outcome) -> String {
        switch outcome {
        case .value(let value): return value.compactJSON
        case .list(let values): return OrderedJSON.array(values).compactJSON
        case .missing: return "missing"
        case .exceededBudget: return "exceeded"
        case .failed(let message): return "failed: \(message)"
        }
    }
}

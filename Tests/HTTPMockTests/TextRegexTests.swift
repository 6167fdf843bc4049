import Foundation
import Testing

@testable import HTTPMock

/// White-box tests of the regular-expression engine against `java.util.regex` (what WireMock
/// and Jayway use): each expectation is what `Pattern.compile(p).matcher(s).matches()` printed
/// on OpenJDK 17 (`nil`: Java refuses the pattern).
@Suite("TextRegex (Java's syntax, bounded)")
struct TextRegexTests {
    @Test(
        "whole-string matches agree with java.util.regex",
        arguments: [
            (#"/api/users/[0-9]+"#, #"/api/users/42"#, true),
            (#"/api/users/[0-9]+"#, #"/api/users/4x"#, false),
            (#"/api/.*"#, #"/api/"#, true),
            (#"(a+)+$"#, #"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"#, false),
            (#"(a+)+$"#, #"aaaa"#, true),
            (#"(?i)/API/Users"#, #"/api/users"#, true),
            (#"(?i)/API/Usérs"#, #"/api/usérs"#, true),
            (#"(?i)/API/USÉRS"#, #"/api/usérs"#, false),
            (#"[a-z&&[^aeiou]]+"#, #"bcd"#, true),
            (#"[a-z&&[^aeiou]]+"#, #"bad"#, false),
            (#"[^/]+"#, #"abc"#, true),
            (#"[^/]+"#, #"a/c"#, false),
            (#"\d{3}-\d{4}"#, #"555-1234"#, true),
            (#"\d{3}-\d{4}"#, #"555-12345"#, false),
            (#"a{2,3}"#, #"aaaa"#, false),
            (#"a{2,}"#, #"aaaaa"#, true),
            (#"a{,3}"#, #"a"#, nil),
            (#"x{"#, #"x{"#, nil),
            (#"/users/{id}"#, #"/users/{id}"#, nil),
            (#"\Q.*\E"#, #".*"#, true),
            (#"\Q.*\E"#, #"ab"#, false),
            (#"(\w+) \1"#, #"hello hello"#, true),
            (#"(\w+) \1"#, #"hello world"#, false),
            (#"(?<w>\w+)-\k<w>"#, #"ab-ab"#, true),
            (#"foo(?=bar)bar"#, #"foobar"#, true),
            (#"(?!foo).*"#, #"bar"#, true),
            (#"(?!foo).*"#, #"foobar"#, false),
            (#".*(?<=\.json)"#, #"a.json"#, true),
            (#".*(?<=\.json)"#, #"a.xml"#, false),
            (#"(?>a+)a"#, #"aaa"#, false),
            (#"a*+a"#, #"aaa"#, false),
            (#"a++b"#, #"aab"#, true),
            (#"^abc$"#, #"abc"#, true),
            (#"abc$"#, #"abc\n"#, false),
            (#"a.c"#, #"a\nc"#, false),
            (#"(?s)a.c"#, #"a\nc"#, true),
            (#"\bfoo\b"#, #"foo"#, true),
            (#"[\w.-]+@[\w-]+\.\w+"#, #"me@x.org"#, true),
            (#"\p{L}+"#, #"héllo"#, true),
            (#"\p{Lu}\p{Ll}+"#, #"Hello"#, true),
            (#"\p{Alpha}+"#, #"héllo"#, false),
            (#"[[:alpha:]]+"#, #"abc"#, false),
            (#"a|b|cd"#, #"cd"#, true),
            (#"(a|ab)(c|bcd)(d*)"#, #"abcd"#, true),
            (#".*"#, #""#, true),
            (#"a?"#, #""#, true),
            (#"(a*)*"#, #"aaaa"#, true),
            (#"(a|b)*c"#, #"ababababababababababc"#, true),
            (#"\x41\u0042\x{43}"#, #"ABC"#, true),
            (#"[\]]"#, #"]"#, true),
            (#"[a\-z]"#, #"-"#, true),
            (#"[a-]"#, #"-"#, true),
            (#"\s+"#, #" \n"#, true),
            (#"\S"#, #"é"#, true),
            (#"(?x) a b c # comment"#, #"abc"#, true),
            (#"(?i:ab)c"#, #"ABc"#, true),
            (#"(?i:ab)c"#, #"ABC"#, false),
            (#"\."#, #"."#, true),
            (#"[]a]"#, #"]"#, true),
            (#"\w+"#, #"é"#, false),
            (#"\R"#, #"\r\n"#, true),
            (#"(?m)^a$"#, #"a"#, true),
            (#"(?U)\w"#, #"é"#, true),
        ] as [(String, String, Bool?)])
    func agreesWithJava(pattern: String, input: String, expected: Bool?) {
        let text = input.replacingOccurrences(of: "\\r", with: "\r").replacingOccurrences(of: "\\n", with: "\n")
        guard let expected else {
            #expect(throws: TextRegex.SyntaxError.self, "\(pattern)") { try TextRegex(pattern) }
            return
        }
        do {
            let regex = try TextRegex(pattern)
            #expect(regex.matchesWhole(text) == expected, "\(pattern) against \(input)")
        } catch {
            Issue.record("\(pattern): \(error)")
        }
    }

    @Test("catastrophic patterns cost linear time on the Pike VM: (a+)+$ against 10,000 characters")
    func noExponentialBlowUp() throws {
        let regex = try TextRegex("(a+)+$")
        #expect(regex.isLinear)
        let input = String(repeating: "a", count: 10_000) + "!"
        #expect(regex.evaluate(input) == .noMatch)
        // The bound the engine promises: input length × program size, far below the budget.
        #expect(regex.cost(forLength: input.count) < TextRegex.stepBudget / 4)
    }

    @Test("a backtracking pattern gives up after its step budget instead of running away")
    func backtrackingBudget() throws {
        // A back-reference forces the backtracking machine; nested quantifiers make it exponential.
        let regex = try TextRegex("((a+)+)\\1!")
        #expect(!regex.isLinear)
        // (Without the "!" every match holds, the text is refused before the machine runs.)
        #expect(regex.evaluate(String(repeating: "a", count: 64) + "b!") == .gaveUp)
        #expect(regex.evaluate(String(repeating: "a", count: 64)) == .noMatch)
        #expect(regex.evaluate("aa!") == .match)
        #expect(regex.evaluate("a!") == .noMatch)
        #expect(try TextRegex("(a+)\\1").evaluate("aaaa") == .match)
    }

    @Test("the literal prefix every match starts with, for the route index")
    func literalPrefixes() throws {
        let cases: [(String, String, Bool)] = [
            ("/api/users/[0-9]+", "/api/users/", false), ("/api/users", "/api/users", true), ("^/api/v1/.*", "/api/v1/", false),
            ("(?i)/api", "/", false), ("(?i)api", "", false), ("/a(b|c)", "/a", false), ("(/api)/x", "/api/x", true),
            ("/api\\?q=.*", "/api?q=", false),
            ("/x{2}y", "/xxy", true), ("/x+", "/x", false), (".*", "", false), ("\\Q/a.b\\E", "/a.b", true),
        ]
        for (pattern, prefix, literal) in cases {
            let regex = try TextRegex(pattern)
            #expect(regex.literalPrefix == prefix, "\(pattern)")
            #expect(regex.isLiteral == literal, "\(pattern)")
        }
    }

    @Test("a syntax error names what is wrong and where")
    func syntaxErrors() {
        #expect {
            _ = try TextRegex("/users/{id}")
        } throws: { error in
            "\(error)".contains("{") && "\(error)".contains("character 8")
        }
        #expect(throws: TextRegex.SyntaxError.self) { try TextRegex("(a") }
        #expect(throws: TextRegex.SyntaxError.self) { try TextRegex("a)") }
        #expect(throws: TextRegex.SyntaxError.self) { try TextRegex("[a") }
        #expect(throws: TextRegex.SyntaxError.self) { try TextRegex("(?<=a+)b") }
        #expect(throws: TextRegex.SyntaxError.self) { try TextRegex(String(repeating: "(", count: 500)) }
    }
}

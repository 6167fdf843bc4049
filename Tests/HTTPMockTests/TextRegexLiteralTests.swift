import Foundation
import Testing

@testable import HTTPMock

/// The literal texts every match of a pattern contains, the route index that files URL
/// patterns by them, and the fixes of issue 43 (items 3, 21, 22).
@Suite("TextRegex: required literals, the literal gate, issue 43")
struct TextRegexLiteralTests {
    private static func literals(_ pattern: String) throws -> Set<String> {
        Set(try TextRegex(pattern).requiredLiterals.map { String(decoding: $0, as: UTF8.self) })
    }

    @Test(
        "required literals: what every match contains, conservatively",
        arguments: [
            ("/api/v[0-9]+/items/[a-z]+-999", ["/api/v", "/items/", "-999"]),
            ("/api/users", ["/api/users"]),
            ("/a(b|c)d", ["/a", "d"]),
            ("/a(bx|cx)d", ["/a", "xd"]),
            ("(foo|bar)", []),
            ("/x(abc)?/y", ["/x", "/y"]),
            ("/x(abc)*/y", ["/x", "/y"]),
            ("/x(abc)+/y", ["/xabc", "abc/y"]),
            ("/x(a.c){2}/y", ["/xa", "ca", "c/y"]),
            ("(?i)/users/[0-9]+", ["/"]),
            ("(?i)/123/abc", ["/123/"]),
            ("/API(?i)/users", ["/API/"]),
            ("[a-z]+", []),
            (".*", []),
            ("\\Q/a.b\\E.*", ["/a.b"]),
            ("\\./\\$x", ["./$x"]),
            ("^/api/v1$", ["/api/v1"]),
            ("/x\\b(?=y)y", ["/xy"]),
            ("(\\w+)-\\1", ["-"]),
            ("/é[0-9]", ["/é"]),
            ("/a{0}b", ["/b"]),
            ("/a{3}", ["/aaa"]),
            ("x|", []),
        ] as [(String, [String])])
    func extraction(pattern: String, expected: [String]) throws {
        #expect(try Self.literals(pattern) == Set(expected), "\(pattern)")
    }

    @Test("a text without a required literal is refused before the machine runs; with them all, the machine decides")
    func prefilter() throws {
        let regex = try TextRegex("/api/v[0-9]+/items/[a-z]+-999")
        #expect(regex.evaluate("/api/v3/items/xyz-999") == .match)
        #expect(regex.evaluate("/api/v3/items/xyz-99") == .noMatch)
        #expect(regex.evaluate("/api/v3/items/xyz-9990") == .noMatch)
        #expect(regex.evaluate("/api/v3/item/xyz-999") == .noMatch)
        // A whole match ends with what every match ends with.
        let suffixed = try TextRegex("/a/[0-9]+-9")
        #expect(suffixed.evaluate("/a/1-9") == .match)
        #expect(suffixed.evaluate("/a/1-99") == .noMatch)
        #expect(try TextRegex("/a/[0-9]+-9$").evaluate("/a/1-9\n") == .noMatch)
        // Java agrees on each: the literals only refuse what the pattern refuses.
        for text in ["/api/v/items/a-999", "/api/v12/items/-999", "/api/v1/items/abc9-999"] {
            #expect(regex.evaluate(text) == .noMatch, "\(text)")
        }
    }

    /// A route key under `host` whose URL rule is `pattern` (as WireMock's mappings are filed).
    private static func key(_ pattern: String, host: String = "**", urlPattern: Bool = false) throws -> RouteKey {
        let regex = try TextRegex(pattern)
        let url: RequestConditions.URLRule = urlPattern ? .urlPattern(regex) : .pathPattern(regex)
        return RouteKey(
            host: try HostPattern.parse(host), path: try PathPattern.parse("/**"),
            conditions: RequestConditions(url: url, conditions: []))
    }

    /// A small deterministic generator (SplitMix64), so a failure reproduces.
    private struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("1,000 URL patterns: the index's candidates hold every route a linear scan finds, for 3,000 random paths")
    func gateAgreesWithLinearScan() throws {
        var generator = Seeded(state: 46)
        func shape(_ kind: Int, _ number: Int) -> String {
            switch kind {
            case 0: return "/api/v[0-9]+/items/[a-z]+-" + String(number)
            case 1: return "/api/v[0-9]+/items/[a-z]+-" + String(number) + "(/.*)?"
            case 2: return "/(users|people)/" + String(number) + "/[a-z]+"
            case 3: return "(?i)/Orders/" + String(number % 37) + "/.*"
            case 4: return "/[a-z]+/x" + String(number % 50) + "y"
            case 5: return ".*-" + String(number % 20)
            case 6: return "/files/[^/]+\\.json"
            default: return "/q\\?id=" + String(number % 30)
            }
        }
        var regexes: [TextRegex] = []
        var urlPatterns: [Bool] = []
        var index = RouteIndex()
        for number in 0..<1_000 {
            let kind = Int(generator.next() % 8)
            let pattern = shape(kind, number)
            let isURLPattern = kind == 7
            let key = try Self.key(pattern, urlPattern: isURLPattern)
            index.insert(key, at: number)
            regexes.append(try TextRegex(pattern))
            urlPatterns.append(isURLPattern)
        }
        let words = ["api", "v3", "v12", "items", "xyz", "users", "people", "orders", "Orders", "files", "a.json", "q", "x7y", "ab"]
        for _ in 0..<3_000 {
            var path = ""
            for _ in 0..<(1 + generator.next() % 4) {
                path += "/" + words[Int(generator.next() % UInt64(words.count))]
                if generator.next() % 3 == 0 { path += "-\(generator.next() % 1_000)" }
            }
            if generator.next() % 4 == 0 { path += "/\(generator.next() % 1_000)" }
            let query: String? = generator.next() % 5 == 0 ? "id=\(generator.next() % 40)" : nil
            let raw = path.isEmpty ? "/" : path
            let candidates = Set(
                index.candidates(
                    host: "example.com", port: nil, path: RoutePath.normalize(raw), rawPath: raw, rawQuery: query,
                    segments: { RoutePath.decodedSegments(raw) }))
            let full = query.map { raw + "?" + $0 } ?? raw
            let matching = Set(regexes.indices.filter { regexes[$0].matchesWhole(urlPatterns[$0] ? full : raw) })
            #expect(matching.isSubset(of: candidates), "\(full): \(matching.subtracting(candidates).map { regexes[$0].pattern })")
        }
        // The slow shape of issue 46: only the routes filed under a piece of the path remain.
        let found = index.candidates(
            host: "example.com", port: nil, path: "/api/v3/items/xyz-999", rawPath: "/api/v3/items/xyz-999", rawQuery: nil,
            segments: { ["api", "v3", "items", "xyz-999"] })
        #expect(found.count < 100, "\(found.count) candidates")
    }

    @Test("path templates are filed by their parameters' literals, looked up in the decoded path")
    func parameterGate() throws {
        var index = RouteIndex()
        for number in 0..<300 {
            let matcher: ValueMatcher =
                number % 2 == 0 ? .matches(try TextRegex("[a-z]+-\(number)")) : .equalTo("id-\(number)", caseInsensitive: false)
            let conditions = RequestConditions(
                url: nil, conditions: [.init(.pathParameter("id"), .single(matcher))], parameterPattern: "/items/:id")
            index.insert(
                RouteKey(host: try HostPattern.parse("**"), path: try PathPattern.parse("/items/:id"), conditions: conditions), at: number)
        }
        func found(_ normalized: String) -> Set<Int> {
            Set(
                index.candidates(
                    host: "h", port: nil, path: normalized, rawPath: "/", rawQuery: nil,
                    segments: { RoutePath.segments(ofNormalized: normalized) }))
        }
        #expect(found("/items/abc-42").contains(42))
        #expect(found("/items/abc-42").count < 10)
        #expect(found("/items/id-43").contains(43))
        #expect(!found("/items/abc-43").contains(43))
        #expect(found("/items/x").isEmpty)
    }

    @Test("the gate keeps hosts apart: a literal host, a host with a port, a host pattern")
    func gateHosts() throws {
        var index = RouteIndex()
        index.insert(try Self.key("/a/[0-9]+-x", host: "one.example"), at: 0)
        index.insert(try Self.key("/a/[0-9]+-x", host: "one.example:8080"), at: 1)
        index.insert(try Self.key("/a/[0-9]+-x", host: "*.example"), at: 2)
        func found(_ host: String, _ port: Int?) -> Set<Int> {
            Set(index.candidates(host: host, port: port, path: "/a/1-x", rawPath: "/a/1-x", rawQuery: nil, segments: { ["a", "1-x"] }))
        }
        #expect(found("one.example", 80) == [0, 2])
        #expect(found("one.example", 8080) == [0, 1, 2])
        #expect(found("two.example", 8080) == [2])
        #expect(found("other.org", nil) == [])
    }

    @Test("43.22: \\uD83D\\uDE00 (a surrogate pair) is one code point, 😀; a lone surrogate is a pattern error")
    func surrogatePairs() throws {
        #expect(try TextRegex("\\uD83D\\uDE00").matchesWhole("😀"))
        #expect(try TextRegex("a\\uD83D\\uDE00+b").matchesWhole("a😀😀b"))
        #expect(try TextRegex("[\\uD83D\\uDE00-\\uD83D\\uDE4F]").matchesWhole("🙂"))
        #expect(try !TextRegex("\\uD83D\\uDE00").matchesWhole("\u{FFFD}\u{FFFD}"))
        for lone in ["\\uD83D", "\\uD83Dx", "\\uDE00", "\\uD83D\\u0041"] {
            #expect(throws: TextRegex.SyntaxError.self, "\(lone)") { try TextRegex(lone) }
        }
    }

    @Test("43.21: a linear pattern matches a 330 KB body; only backtracking patterns stop at the budget")
    func linearPatternsHaveNoBudget() throws {
        let body = String(repeating: "abcdefghij\n", count: 30_000)
        #expect(try TextRegex("(?s).*").evaluate(body) == .match)
        #expect(try TextRegex("[a-j\\n]+").evaluate(body) == .match)
        #expect(try TextRegex("(?s).*j\\n").evaluate(body) == .match)
        #expect(try TextRegex("(?s).*k").evaluate(body) == .noMatch)
    }

    @Test("43.3: repetition counts that multiply past Int.max in a look-around are an error, not a trap")
    func lookAroundLengthsSaturate() {
        for pattern in [
            "/x(?=((((a{100000}){100000}){100000}){100000}))",
            "/x(?<=((((a{100000}){100000}){100000}){100000}))",
            "(?=(((((a{100000}){100000}){100000}){100000}){100000}))x",
        ] {
            #expect(throws: TextRegex.SyntaxError.self, "\(pattern)") { try TextRegex(pattern) }
        }
        let huge = RegexNode.repeated(.set(.single(97)), min: 1 << 40, max: 1 << 40, greedy: true, possessive: false)
        let lengths = RegexCompiler.lengths(of: .repeated(huge, min: 1 << 40, max: 1 << 40, greedy: true, possessive: false))
        #expect(lengths.min == Int.max && lengths.max == nil)
    }
}

import Foundation
import Testing

@testable import HTTPMock

/// White-box tests of the value matchers every front end shares; each expectation is what
/// WireMock 2.35.1's jar answered for the same matcher and value (3.x's matchers per its
/// documentation).
@Suite("Value matchers (WireMock's semantics)")
struct ValueMatcherTests {
    static func body(_ text: String?) -> MatchInput { .body(RequestBody(text.map { Data($0.utf8) })) }

    static func json(_ expected: JSONValue, order: Bool = false, extra: Bool = false) throws -> ValueMatcher {
        .equalToJSON(try JSONEquality(expected: expected, ignoreArrayOrder: order, ignoreExtraElements: extra))
    }

    @Test("contains compares code points, a NUL included (Foundation's contains cut the needle at a NUL, and trapped)")
    func containsWithNUL() throws {
        #expect(!ValueMatcher.contains("q\0").matches(.text("abq")))
        #expect(ValueMatcher.doesNotContain("q\0").matches(.text("abq")))
        #expect(ValueMatcher.contains("q\0").matches(.text("abq\0z")))
        #expect(ValueMatcher.contains("").matches(.text("abq")) && !ValueMatcher.doesNotContain("").matches(.text("abq")))
        // The input that trapped in Foundation's range(of:) (fuzzing, through XPath's contains()).
        #expect("x\u{FFFD}.q".firstByteRange(of: "q\0") == nil)
        let text = "ab\u{FFFD}cd\u{FFFD}"
        #expect(text.firstByteRange(of: "cd").map { String(text[$0]) } == "cd")
        #expect(text.firstByteRange(of: "\u{FFFD}").map { text.distance(from: text.startIndex, to: $0.lowerBound) } == 2)
        // XPath's contains(), substring-before() and substring-after() use the same search.
        let tree = try XMLTree(parsing: "<a>x\u{FFFD}.q</a>")
        #expect(try XPath("//a[contains(., '.q')]").selectNodes(in: tree)?.count == 1)
        #expect(try XPath("//a[substring-after(., '.') = 'q']").selectNodes(in: tree)?.count == 1)
        #expect(try XPath("//a[substring-before(., '.q') = 'x\u{FFFD}']").selectNodes(in: tree)?.count == 1)
    }

    @Test("missing values: only absent, doesNotMatch and doesNotContain hold")
    func missingValues() throws {
        let missing = MatchInput.text(nil)
        #expect(!ValueMatcher.equalTo("a", caseInsensitive: false).matches(missing))
        #expect(!ValueMatcher.contains("").matches(missing))
        #expect(ValueMatcher.doesNotMatch(try TextRegex("a")).matches(missing))
        #expect(ValueMatcher.doesNotContain("a").matches(missing))
        #expect(ValueMatcher.absent.matches(missing))
        #expect(ValueMatcher.or([.equalTo("a", caseInsensitive: false), .absent]).matches(missing))
        // An empty body is an absent one, which equalTo "" does not match.
        #expect(ValueMatcher.absent.matches(Self.body("")))
        #expect(!ValueMatcher.absent.matches(Self.body("x")))
        #expect(!ValueMatcher.equalTo("", caseInsensitive: false).matches(Self.body(nil)))
    }

    @Test("matches is whole-value; equalTo may ignore case; and / or / not")
    func stringMatchers() throws {
        #expect(!ValueMatcher.matches(try TextRegex("b")).matches(.text("abc")))
        #expect(ValueMatcher.matches(try TextRegex(".*b.*")).matches(.text("abc")))
        #expect(ValueMatcher.equalTo("ABC", caseInsensitive: true).matches(.text("abc")))
        #expect(ValueMatcher.and([.contains("a"), .contains("b")]).matches(.text("ab")))
        #expect(ValueMatcher.not(.equalTo("a", caseInsensitive: false)).matches(.text("b")))
    }

    @Test("equalToJson: numbers by value, extra elements at the end, order ignored at every depth, json-unit placeholders")
    func equalToJson() throws {
        let body = { (text: String) in Self.body(text) }
        #expect(try Self.json(["a": 1]).matches(body(#"{"a":1.0}"#)))
        #expect(try !Self.json(["a": [1, 2]], extra: true).matches(body(#"{"a":[0,1,2]}"#)))
        #expect(try Self.json(["a": [1, 2]], extra: true).matches(body(#"{"a":[1,2,3]}"#)))
        #expect(try !Self.json(["a": [1, 3]], extra: true).matches(body(#"{"a":[1,2,3]}"#)))
        #expect(try Self.json(["a": [3, 1]], order: true, extra: true).matches(body(#"{"a":[1,2,3]}"#)))
        #expect(try Self.json(["a": [[1, 2], [3]]], order: true).matches(body(#"{"a":[[3],[2,1]]}"#)))
        #expect(try Self.json(["a": [["x": 1]]], extra: true).matches(body(#"{"a":[{"x":1,"y":2},{"x":3}]}"#)))
        #expect(try Self.json(["a": "${json-unit.any-string}"]).matches(body(#"{"a":"zz"}"#)))
        #expect(try !Self.json(["a": "${json-unit.any-string}"]).matches(body(#"{"a":3}"#)))
        #expect(try !Self.json(["a": "${json-unit.any-string}"]).matches(body(#"{"a":null}"#)))
        #expect(try Self.json(["a": "${json-unit.any-number}"]).matches(body(#"{"a":3.5}"#)))
        #expect(try !Self.json(["a": "${json-unit.any-number}"]).matches(body(#"{"a":"3"}"#)))
        #expect(try Self.json(["a": "${json-unit.any-boolean}"]).matches(body(#"{"a":false}"#)))
        #expect(try !Self.json(["a": "${json-unit.ignore}", "b": 1]).matches(body(#"{"b":1}"#)))
        #expect(try Self.json(["a": "${json-unit.ignore}", "b": 1]).matches(body(#"{"a":{"q":1},"b":1}"#)))
        #expect(try Self.json(["a": "${json-unit.regex}[a-z]+"]).matches(body(#"{"a":"abc"}"#)))
        #expect(try !Self.json(["a": "${json-unit.regex}[0-9]+"]).matches(body(#"{"a":12}"#)))
        #expect(try !Self.json(["a": .null, "b": 1]).matches(body(#"{"b":1}"#)))
        #expect(try Self.json(["a": 1]).matches(body("{'a': 1}")))  // bodies are read leniently
        #expect(try !Self.json([:]).matches(body("")))
    }

    @Test("matchesJsonPath: presence, sub-matchers on each element, absent for nothing, equalToJson on the whole")
    func matchesJsonPath() throws {
        func path(_ text: String, _ matcher: ValueMatcher? = nil) throws -> ValueMatcher { .jsonPath(try JSONPath(text), matcher) }
        let equal = { (text: String) in ValueMatcher.equalTo(text, caseInsensitive: false) }
        #expect(try !path("$.a").matches(Self.body(#"{"a":null}"#)))
        #expect(try !path("$.a").matches(Self.body(#"{"a":[]}"#)))
        #expect(try !path("$.a").matches(Self.body(#"{"a":{}}"#)))
        #expect(try path("$.a").matches(Self.body(#"{"a":false}"#)))
        #expect(try !path("$.a[?(@.b == 2)]").matches(Self.body(#"{"a":[{"b":1}]}"#)))
        #expect(try path("$.a[*].b", equal("3")).matches(Self.body(#"{"a":[{"b":2},{"b":3}]}"#)))
        #expect(try !path("$.a[*].b", equal("[2,3]")).matches(Self.body(#"{"a":[{"b":2},{"b":3}]}"#)))
        #expect(try path("$.a", equal("3")).matches(Self.body(#"{"a":[2,3]}"#)))
        #expect(try !path("$.a", equal(#"{"b":1}"#)).matches(Self.body(#"{"a":{"b":1}}"#)))
        #expect(try !path("$.a[*]", try Self.json(["b": 3])).matches(Self.body(#"{"a":[{"b":2},{"b":3}]}"#)))
        #expect(try path("$.a[*]", try Self.json([["b": 2], ["b": 3]])).matches(Self.body(#"{"a":[{"b":2},{"b":3}]}"#)))
        #expect(try !path("$.z", .doesNotMatch(try TextRegex("x"))).matches(Self.body(#"{"a":1}"#)))
        #expect(try path("$.a[*]", .doesNotMatch(try TextRegex("2"))).matches(Self.body(#"{"a":[2,3]}"#)))
        #expect(try path("$.z", .absent).matches(Self.body(#"{"a":1}"#)))
        #expect(try path("$.a", .absent).matches(Self.body(#"{"a":null}"#)))
        #expect(try path("$.a", equal("1.0")).matches(Self.body(#"{"a":1.0}"#)))
        #expect(try path("$.a", equal("1.0E10")).matches(Self.body(#"{"a":1e10}"#)))
        #expect(try path("a.b").matches(Self.body(#"{"a":{"b":1}}"#)))
        #expect(try !path("$.a").matches(Self.body("nope")))
    }

    @Test("numbers and dates, as WireMock 3 documents and 2.35 compares them")
    func numbersAndDates() throws {
        #expect(ValueMatcher.number(.equalTo, 5).matches(.text("5.0")))
        #expect(ValueMatcher.number(.lessThanOrEqual, 20).matches(.text("19.5")))
        #expect(!ValueMatcher.number(.greaterThan, 0).matches(.text("abc")))
        func date(
            _ relation: DateTimeCondition.Relation, _ expected: String, format: String? = nil,
            truncate: DateTimeCondition.Truncation? = nil,
            offset: (Int, DateTimeCondition.Unit)? = nil
        ) throws -> ValueMatcher {
            .dateTime(
                try DateTimeCondition(
                    relation: relation, expected: expected, actualFormat: format, offset: offset.map { ($0.0, $0.1) },
                    truncateActual: truncate))
        }
        #expect(try date(.before, "now").matches(.text("2021-06-14T12:13:14Z")))
        #expect(try date(.after, "2021-06-14T12:00:00").matches(.text("2021-06-14T12:13:14")))
        #expect(try date(.after, "2021-06-14T12:00:00Z").matches(.text("2021-06-14T12:13:14")))
        #expect(try !date(.after, "2021-06-14T12:00:00Z").matches(.text("2021-06-14T13:13:14+02:00")))
        #expect(try date(.equalTo, "2021-06-14T00:00:00Z", format: "dd/MM/yyyy").matches(.text("14/06/2021")))
        #expect(try date(.equalTo, "2021-06-14T12:13:14Z").matches(.text("Mon, 14 Jun 2021 12:13:14 GMT")))
        #expect(try date(.equalTo, "2021-06-14T00:00:00Z").matches(.text("2021-06-14")))
        #expect(try date(.before, "now", offset: (-1, .days)).matches(.text("2000-06-14T12:13:14Z")))
        #expect(try date(.equalTo, "2021-06-01T00:00:00Z", truncate: .firstDayOfMonth).matches(.text("2021-06-14T12:13:14Z")))
        #expect(try date(.equalTo, "2021-06-14T12:13:14Z", format: "unix").matches(.text("1623672794")))
        #expect(try date(.equalTo, "2021-06-14T12:13:14Z", format: "epoch").matches(.text("1623672794000")))
        #expect(try !date(.before, "now").matches(.text("garbage")))
        #expect(try date(.after, "now -5 years").matches(.text("2025-01-01T00:00:00Z")))
        #expect(try !date(.before, "now").matches(.text(nil)))
        #expect(throws: PatternError.self) { try date(.before, "next tuesday") }
    }

    @Test("multipart bodies are split per RFC 2046: quoted boundary, preamble, LF-only lines, the closing delimiter")
    func multipartParts() throws {
        let body =
            "preamble\r\n--b1\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nfirst\r\n--b1\nContent-Type: text/plain\n\nsecond\n--b1--\r\nepilogue"
        let parts = try #require(Multipart.parts(of: Data(body.utf8), boundary: "b1"))
        #expect(parts.count == 2)
        #expect(parts[0].headers["Content-Disposition"] == #"form-data; name="a""#)
        #expect(parts[0].body == Data("first".utf8))
        #expect(parts[1].headers["content-type"] == "text/plain")
        #expect(parts[1].body == Data("second".utf8))
        #expect(Multipart.boundary(in: #"multipart/form-data; boundary="b1""#) == "b1")
        #expect(Multipart.boundary(in: "application/json") == nil)
        #expect(Multipart.parts(of: Data("no delimiter".utf8), boundary: "b1") == nil)
        let any = MultipartCondition(
            matchingType: .any, headers: [(name: "Content-Disposition", matcher: .single(.contains("name=\"a\"")))], bodyPatterns: [])
        let all = MultipartCondition(
            matchingType: .all, headers: [(name: "Content-Disposition", matcher: .single(.contains("form-data")))], bodyPatterns: [])
        #expect(any.matches(parts))
        #expect(!all.matches(parts))
        #expect(!any.matches(nil))
    }
}

#if Server
import Foundation
import Testing

@testable import HTTPMock
@testable import HTTPMockServer

/// White-box tests of the XML reader, the XPath evaluator and WireMock's XML matchers; each
/// expectation is what WireMock 2.35.1's jar answered for the same mapping and body.
@Suite("XML and XPath (WireMock's equalToXml and matchesXPath)")
struct XMLMatcherTests {
    static func xpath(
        _ expression: String, _ body: String, namespaces: [String: String]? = nil, _ matcher: ValueMatcher? = nil
    ) throws -> Bool {
        let xpath = try XPath(expression, namespaces: namespaces)
        return XPathMatcher(xpath: xpath, matcher: matcher).matches(.body(RequestBody(Data(body.utf8))))
    }

    static func equalToXML(_ expected: String, _ body: String, placeholders: Bool = false, exempted: Set<String> = []) throws -> Bool {
        let tree = try XMLTree(parsing: expected)
        let matcher = XMLEqualityMatcher(
            expectedText: expected, expected: tree, placeholders: placeholders ? try XMLPlaceholders(in: tree) : nil, exempted: exempted)
        return matcher.matches(.body(RequestBody(Data(body.utf8))))
    }

    @Test(
        "equalToXml: similar as XMLUnit says, as WireMock 2.35.1 answered",
        arguments: [
            ("<a><b>1</b><c x=\"1\" y=\"2\"/></a>", "<a>\n  <b>1</b>\n  <c y=\"2\" x=\"1\"></c>\n</a>", true),
            ("<a><b>1</b><c/></a>", "<a><c/><b>1</b></a>", true),
            ("<p:a xmlns:p=\"urn:x\"><p:b>1</p:b></p:a>", "<q:a xmlns:q=\"urn:x\"><q:b>1</q:b></q:a>", true),
            ("<p:a xmlns:p=\"urn:x\"/>", "<a xmlns=\"urn:x\"/>", true),
            ("<a><b>1</b></a>", "<a><!-- c --><b>1</b></a>", true),
            ("<a>x&lt;y</a>", "<a><![CDATA[x<y]]></a>", true),
            ("<a>hello</a>", "<a> hello </a>", true),
            ("<a>${xmlunit.ignore}</a>", "<a>zzz</a>", false),
            ("<a><b/></a>", "<a><b></a>", false),
            ("<a/>", "<a x=\"1\"/>", false),
            ("<a/>", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a/>", true),
            ("<a></a>", "<a/>", true),
            ("<a><b/></a>", "<a><b/><b/></a>", false),
            ("<a>1</a>", "<a>2</a>", false),
            ("<a xmlns=\"urn:x\"/>", "<a/>", false),
        ])
    func equalToXml(expected: String, body: String, matches: Bool) throws {
        #expect(try Self.equalToXML(expected, body) == matches, "\(expected) vs \(body)")
    }

    @Test("equalToXml placeholders, with enablePlaceholders")
    func placeholders() throws {
        #expect(try Self.equalToXML("<a>${xmlunit.ignore}</a>", "<a>zzz</a>", placeholders: true))
        #expect(try Self.equalToXML("<a>${xmlunit.isNumber}</a>", "<a>12.5</a>", placeholders: true))
        #expect(try !Self.equalToXML("<a>${xmlunit.isNumber}</a>", "<a>x</a>", placeholders: true))
        #expect(try Self.equalToXML("<a>${xmlunit.matchesRegex([a-z]+)}</a>", "<a>abc</a>", placeholders: true))
        #expect(try Self.equalToXML("<a id=\"${xmlunit.ignore}\"/>", "<a id=\"7\"/>", placeholders: true))
        #expect(try Self.equalToXML("<a><b/><c/></a>", "<a><b/></a>", exempted: ["CHILD_NODELIST_LENGTH", "CHILD_LOOKUP"]))
    }

    @Test(
        "matchesXPath: node-sets only, elements printed as WireMock prints them, any node may match",
        arguments: [
            ("//b", "<a><b>1</b></a>", nil, true),
            ("//z", "<a><b>1</b></a>", nil, false),
            ("//b[.='1']", "<a><b>1</b></a>", nil, true),
            ("count(//b) = 1", "<a><b>1</b></a>", nil, false),
            ("//b = '1'", "<a><b>1</b></a>", nil, false),
            ("//b/text()", "<a><b>1</b></a>", "1", true),
            ("//b", "<a><b>1</b></a>", "1", false),
            ("//b", "<a><b>1</b></a>", "<b>1</b>\n", true),
            ("//a", "<a><b>1</b></a>", "<a>\n  <b>1</b>\n</a>\n", true),
            ("//b/text()", "<a><b>1</b><b>2</b></a>", "2", true),
            ("//b/@id", "<a><b id='1'/><b id='2'/></a>", "2", true),
            ("/a/b[2][@id='2']", "<a><b id='1'/><b id='2'/></a>", nil, true),
            ("//b[starts-with(@id,'x') and string-length(.) > 2]", "<a><b id='xy'>abc</b></a>", nil, true),
            ("//b", "<a xmlns=\"urn:s\"><b/></a>", nil, true),
            ("//a", "not xml", nil, false),
            ("//b", "<a><b></a>", nil, false),
            ("//b[last()]/@id", "<a><b id='1'/><b id='2'/></a>", "2", true),
            ("//b[not(@id)]", "<a><b id='1'/></a>", nil, false),
            ("//*[local-name()='b']", "<a xmlns:t=\"urn:s\"><t:b/></a>", nil, true),
            ("/a/b/following-sibling::c", "<a><b/><c/></a>", nil, true),
            ("//c/ancestor::a", "<a><b><c/></b></a>", nil, true),
            ("//b[position() = 1 or @id = '9']", "<a><b/></a>", nil, true),
            ("(//b)[2]", "<a><b>1</b><b>2</b></a>", "<b>2</b>\n", true),
            ("sum(//n) > 5", "<a><n>3</n><n>4</n></a>", nil, false),
        ] as [(String, String, String?, Bool)])
    func matchesXPath(expression: String, body: String, equalTo: String?, matches: Bool) throws {
        let matcher = equalTo.map { ValueMatcher.equalTo($0, caseInsensitive: false) }
        #expect(try Self.xpath(expression, body, matcher) == matches, "\(expression) on \(body)")
    }

    @Test("matchesXPath with xPathNamespaces compares namespace URIs; without, a prefix is refused")
    func namespaces() throws {
        #expect(try Self.xpath("//s:b", "<a xmlns:t=\"urn:s\"><t:b/></a>", namespaces: ["s": "urn:s"]))
        #expect(try !Self.xpath("//b", "<a xmlns=\"urn:s\"><b/></a>", namespaces: ["s": "urn:s"]))
        #expect(try !Self.xpath("//s:b", "<a xmlns:s=\"urn:t\"><s:b/></a>", namespaces: ["s": "urn:s"]))
        #expect(throws: XPath.SyntaxError.self) { try XPath("//s:b", namespaces: [:]) }
        // Without declared namespaces a prefixed test never matches (WireMock: no match).
        #expect(try !Self.xpath("//s:b", "<a xmlns:s=\"urn:s\"><s:b/></a>"))
        #expect(try !Self.xpath("//s:b", "<a><b/></a>"))
    }

    @Test(
        "an XPath that is not one is an error at registration, never a crash",
        arguments: ["//[", "//item[", "foo(", "//a[@", "1 +", "//a/child::", "$x", "//a | 1 +", "bogus-function()"])
    func malformedXPath(expression: String) {
        #expect(throws: XPath.SyntaxError.self, "\(expression)") { try XPath(expression) }
    }

    @Test("the XML reader refuses what FoundationXML would repair or expand")
    func strictReader() {
        for text in [
            "<a><b></a>", "<a>", "not xml", "<a></a><b/>", "<a>&unknown;</a>", "<a x='1' x='2'/>",
            "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/hostname\">]><r>&x;</r>",
            String(repeating: "<a>", count: 600) + String(repeating: "</a>", count: 600),
        ] {
            #expect(throws: XMLTree.ParseError.self, "\(text.prefix(40))") { try XMLTree(parsing: text) }
        }
        #expect(throws: Never.self) { try XMLTree(parsing: "<?xml version=\"1.0\"?><!DOCTYPE html><a>&amp;&#65;&#x42;</a>") }
        #expect((try? XMLTree(parsing: "<a>&amp;&#65;&#x42;</a>")).map { $0.stringValue(0) } == "&AB")
    }

    @Test("an XPath evaluation is bounded in steps")
    func boundedEvaluation() async throws {
        let body = "<a>" + String(repeating: "<b><c/></b>", count: 2_000) + "</a>"
        // Each of 6,000 nodes scans all 6,000 for the predicate: 36 million steps, cut at 500,000
        // (off the cooperative pool: the budget is burnt on purpose, seconds in a debug build).
        #expect(try await !blocking { try Self.xpath("//*[count(//*) > 0 and count(//*) < 0]", body) })
    }

    @Test("150,000 attributes on one element are read in linear time, and a duplicate among them is still refused (issue 43.6)")
    func manyAttributes() async throws {
        let attributes = (0..<150_000).map { " a\($0)=\"\($0)\"" }.joined()
        let document = "<r\(attributes)/>"
        // Quadratic (each name searched in the list so far), this took many minutes; linear, a
        // second or so in a debug build. Off the cooperative pool, with a bound far above either.
        let parsed = try await withTimeout(seconds: 300) { () -> Int in try XMLTree(parsing: document).nodes.count }
        #expect(parsed > 150_000, "\(parsed)")
        #expect(throws: XMLTree.ParseError.self) { try XMLTree(parsing: "<r a=\"1\" b=\"2\" a=\"3\"/>") }
        let unterminated = "<r><!--" + String(repeating: "-", count: 2_000_000) + "</r>"
        #expect(throws: XMLTree.ParseError.self) { try XMLTree(parsing: unterminated) }
    }

    /// `body` on a thread of its own; fails when it has not returned after `seconds`.
    func withTimeout<T: Sendable>(seconds: TimeInterval, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        let result = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let outcome = Result { try body() }
            result.withLock { $0 = outcome }
            done.signal()
        }
        let finished = try await blocking { done.wait(timeout: .now() + seconds) == .success }
        guard finished, let outcome = result.withLock({ $0 }) else { throw CLITestError("did not finish within \(seconds) s") }
        return try outcome.get()
    }
}
#endif

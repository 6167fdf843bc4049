#if Server
import Foundation
import HTTPMock
import Testing

@testable import HTTPMockServer

/// WireMock's templating dialect, helper by helper (SPEC §21). Expected outputs were compared
/// with WireMock 2.35.1 (`java -jar wiremock-standalone-2.35.1.jar --global-response-templating`,
/// the jar PyPI's `wiremock` ships), dates with a fixed clock, random values by shape; the
/// comments in `Sources/HTTPMockServer/WireMock/Templating/` list the jar's outputs.
@Suite("WireMock templating: the request model and every helper, as WireMock 2.35.1 renders them")
struct WireMockTemplatingTests {
    /// 2026-11-26T21:19:56.245Z.
    static let fixed = Date(timeIntervalSince1970: 1_795_727_996.245)

    func request(
        _ url: String = "http://127.0.0.1:8080/t/x?a=1&a=2", method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: String? = nil
    ) -> MockRequest {
        MockRequest(
            method: method, target: MockRequest.Target(URL(string: url)!), headers: headers, body: body.map { Data($0.utf8) })
    }

    func render(_ template: String, _ request: MockRequest? = nil, parameters: JSONValue = [:], seed: UInt64 = 7) throws -> String {
        let templating = WireMockTemplating(clock: { Self.fixed }, random: WireMockRandom(seed: seed))
        let parsed = try PackageTemplate(template, dialect: templating.dialect)
        return try parsed.render(
            value: WireMockTemplating.context(for: request ?? self.request(), parameters: TemplateValue(wireMockParameters: parameters)))
    }

    func parseError(_ template: String) -> String {
        do {
            _ = try PackageTemplate(template, dialect: WireMockTemplating.live.dialect)
            return "parsed"
        } catch {
            return (error as? HTTPMockError)?.message ?? "\(error)"
        }
    }

    @Test(
        "request model: url, path, pathSegments, query (first of repeats, .[n]), method, headers in any case, cookies, body, baseUrl, host, port, scheme"
    )
    func requestModel() throws {
        let request = request(
            "http://127.0.0.1:8080/t/x/y?a=1&a=2&b=3", method: .post,
            headers: ["X-A": "v&1", "Cookie": "c=1; c=2; d=3", "Content-Type": "text/plain"], body: "hello=1")
        #expect(
            try render(
                "{{request.url}}|{{request.path}}|{{request.path.[0]}}|{{request.pathSegments.[1]}}|{{request.pathSegments}}|{{size request.path}}",
                request) == "/t/x/y?a&#x3D;1&amp;a&#x3D;2&amp;b&#x3D;3|/t/x/y|t|x|/t/x/y|3")
        #expect(
            try render(
                "{{request.query.a}}|{{request.query.a.[1]}}|{{request.query.a.1}}|{{size request.query.a}}|{{request.query.nope}}", request
            )
                == "1|2|2|2|")
        #expect(
            try render(
                "{{request.method}}|{{request.headers.X-A}}|{{request.headers.[x-a]}}|{{request.headers.x-a}}|{{request.cookies.c}}",
                request)
                == "POST|v&amp;1|v&amp;1|v&amp;1|1")
        #expect(
            try render("{{request.body}}|{{request.baseUrl}}|{{request.host}}|{{request.port}}|{{request.scheme}}", request)
                == "hello&#x3D;1|http://127.0.0.1:8080|127.0.0.1|8080|http")
        #expect(try render("{{#each request.query.a}}{{@index}}={{this}};{{/each}}", request) == "0=1;1=2;")
        #expect(
            try render("{{#each request.pathSegments}}{{@index}}:{{this}}{{#if @first}}F{{/if}}{{#if @last}}L{{/if}};{{/each}}", request)
                == "0:tF;1:x;2:yL;")
        #expect(
            try render("{{parameters.a}}|{{parameters.n.b}}|{{parameters}}", parameters: ["a": "A&", "n": ["b": 2]])
                == "A&amp;|2|{a&#x3D;A&amp;, n&#x3D;{b&#x3D;2}}")
        #expect(try render("{{request.path.[1]}}", self.request("http://127.0.0.1:8080/files/a%2Fb")) == "a/b")
    }

    @Test("escaping: {{…}} escapes & < > \" ' ` = like Handlebars.java, {{{…}}} does not; block tags keep their lines")
    func escaping() throws {
        let request = request(method: .post, body: "<&\"'`=>")
        #expect(try render("{{request.body}}|{{{request.body}}}", request) == "&lt;&amp;&quot;&#x27;&#x60;&#x3D;&gt;|<&\"'`=>")
        #expect(try render("{{base64 'hello'}}|{{{base64 'hello'}}}") == "aGVsbG8&#x3D;|aGVsbG8=")
        #expect(try render("a\n{{#if true}}\nb\n{{/if}}\nc") == "a\n\nb\n\nc")
        #expect(try render("e\n   {{~request.method~}}   \nf") == "eGETf")
    }

    @Test("text helpers: trim, upper, lower, capitalize, base64, urlEncode, size, join")
    func textHelpers() throws {
        #expect(
            try render("{{trim '  x  '}}|{{#trim}}  in block  {{/trim}}|{{upper 'ab'}}|{{lower 'AB'}}|{{capitalize 'hello world'}}")
                == "x|in block|AB|ab|Hello World")
        #expect(
            try render("{{base64 'aGVsbG8=' decode=true}}|{{base64 'hi' padding=false}}|{{#base64}}block{{/base64}}")
                == "hello|aGk|YmxvY2s=")
        #expect(try render("{{urlEncode 'a b&c=d/é'}}|{{urlEncode 'a%20b+c' decode=true}}") == "a+b%26c%3Dd%2F%C3%A9|a b c")
        #expect(try render("{{size 'abc'}}|{{size request.query.a}}") == "3|2")
        let body = request(method: .post, body: #"{"list":[1,"two",3.5],"obj":{"a":1,"b":[true,null]}}"#)
        #expect(
            try render(
                "{{join (jsonPath request.body '$.list') ','}}|{{join request.query.a '-'}}|{{join 'x' 'y' ';' prefix='[' suffix=']'}}|{{join 'a' 'b' 'c'}}",
                body) == "1,two,3.5|1-2|[x;y]|acb")
        #expect(try render("{{size (jsonPath request.body '$.list')}}|{{size (jsonPath request.body '$.obj')}}", body) == "3|2")
    }

    @Test("logic helpers: eq, neq, gt, gte, lt, lte, and, or, not; as blocks; yes= and no=")
    func logicHelpers() throws {
        #expect(
            try render(
                "{{eq 1 1}}|{{eq 'a' 'b'}}|{{eq 1 '1'}}|{{neq 1 2}}|{{gt 2 1}}|{{lt 2 1}}|{{gt 'b' 'a'}}|{{gte 2 2}}|{{lte 1 2}}|{{gt '10' '9'}}|{{gt 10 9}}"
            )
                == "true|false|false|true|true|false|true|true|true|false|true")
        #expect(
            try render("{{and true false}}|{{or false 'x'}}|{{not false}}|{{not 'x'}}|{{#and true true}}A{{/and}}")
                == "false|true|true|false|A")
        #expect(
            try render(
                "{{#eq request.query.a '1'}}Y{{else}}N{{/eq}}|{{#if (eq 1 1)}}I{{/if}}|{{eq 1 1 yes='Y' no='N'}}|{{eq 1 2 yes='Y' no='N'}}")
                == "Y|I|Y|N")
    }

    @Test("contains, matches, regexExtract (with groups into a variable, default=), lookup, val, formData")
    func matchingHelpers() throws {
        let list = request(method: .post, body: #"["a","b"]"#)
        #expect(
            try render(
                "{{contains 'abc' 'b'}}|{{contains (jsonPath request.body '$') 'b'}}|{{#contains 'abc' 'z'}}Y{{else}}N{{/contains}}", list)
                == "true|true|N")
        #expect(
            try render("{{matches 'abc' '[a-c]+'}}|{{matches 'abcd' 'b'}}|{{#matches '123' '[0-9]+'}}NUM{{/matches}}") == "true|false|NUM")
        #expect(
            try render(
                "{{regexExtract 'abc123def' '[0-9]+'}}|{{regexExtract 'abc' '[0-9]+'}}|{{regexExtract 'a1b22' '([a-z])([0-9]+)' 'parts'}}{{parts.0}}-{{parts.1}}-{{parts.[1]}}|{{regexExtract 'x' 'y' default='D'}}"
            )
                == "123|[ERROR: Nothing matched [0-9]+]|a-1-1|D")
        // A catastrophic pattern gives up within its budget instead of hanging the render.
        #expect(try render("{{regexExtract '\(String(repeating: "a", count: 40))c' '(a+)+b' default='gave up'}}") == "gave up")
        #expect(try render("{{lookup request.query 'a'}}|{{lookup (jsonPath request.body '$') 1}}", list) == "1|b")
        #expect(try render("{{val request.query.nope default='d'}}|{{val request.query.a}}|{{val 'v' assign='x'}}{{x}}") == "d|1|v")
        let form = request(method: .post, body: "a=1&b=x&b=y&c=%3Cz+w%3E")
        #expect(
            try render(
                "{{formData request.body 'f'}}{{f.a}}|{{f.b}}|{{f.b.[1]}}|{{f.c}}|{{formData request.body 'g' urlDecode=true}}{{{g.c}}}|{{size f.b}}",
                form)
                == "1|x|y|%3Cz+w%3E|<z w>|2")
    }

    @Test("jsonPath: scalars, lists as compact JSON, objects as Jackson's pretty JSON, #each with @key, missing and default=")
    func jsonPath() throws {
        let body = request(
            method: .post, body: #"{"list":[1,"two",3.5],"obj":{"a":1,"b":[true,null]},"n":12,"f":1.50,"s":"x<y","b":false,"nul":null}"#)
        #expect(
            try render(
                "{{jsonPath request.body '$.list[0]'}}|{{jsonPath request.body '$.n'}}|{{jsonPath request.body '$.f'}}|{{jsonPath request.body '$.s'}}|{{jsonPath request.body '$.b'}}|{{jsonPath request.body '$.nul'}}|{{jsonPath request.body '$.missing'}}",
                body) == "1|12|1.5|x&lt;y|false||")
        #expect(
            try render("{{jsonPath request.body '$.list'}}|{{{jsonPath request.body '$.list[*]'}}}", body)
                == "[1,&quot;two&quot;,3.5]|[1,\"two\",3.5]")
        #expect(try render("{{{jsonPath request.body '$.obj'}}}", body) == "{\n  \"a\" : 1,\n  \"b\" : [ true, null ]\n}")
        #expect(try render("{{#each (jsonPath request.body '$.obj')}}{{@key}}={{this}};{{/each}}", body) == "a=1;b=[true,null];")
        #expect(
            try render("{{#each (jsonPath request.body '$.list')}}{{@index}}{{this}}{{#if @last}}L{{/if}},{{/each}}", body)
                == "01,1two,23.5L,")
        #expect(
            try render(
                "{{jsonPath request.body '$.missing' default='none'}}|{{jsonPath request.body '$.a'}}",
                request(method: .post, body: "not json")) == "none|")
        #expect(parseError("{{jsonPath request.body '$.a[?(@.b ==' }}").contains("is not a JSONPath"))
    }

    @Test(
        "xPath: text and attribute values, elements as Java's transformer prints them, #each over a node-set, errors as WireMock writes them"
    )
    func xPath() throws {
        let body = request(method: .post, body: #"<a><b>hi</b><c id="1">x</c><c id="2">y</c><d><e>1</e><f/></d></a>"#)
        #expect(
            try render(
                "{{xPath request.body '/a/b/text()'}}|{{xPath request.body '/a/c/text()'}}|{{xPath request.body '//c/@id'}}|{{xPath request.body '/a/nope'}}",
                body) == "hi|x|1|")
        #expect(try render("{{{xPath request.body '//d'}}}", body) == "<d>\n  <e>1</e>\n  <f/>\n</d>\n")
        #expect(try render("{{xPath request.body '/a/b'}}", body) == "&lt;b&gt;hi&lt;/b&gt;\n")
        #expect(try render("{{#each (xPath request.body '/a/c/text()')}}[{{this}}]{{/each}}", body) == "[x][y]")
        #expect(try render("{{xPath request.body 'count(/a/c)'}}", body) == "[ERROR: count(/a/c) is not a valid XPath expression]")
        #expect(try render("{{xPath request.body '/a'}}", request(method: .post, body: "not xml")) == "[ERROR: not xml is not valid XML]")
        #expect(parseError("{{xPath request.body '/a['}}").contains("is not an XPath"))
    }

    @Test("toJson, jsonArrayAdd (WireMock 3's helpers)")
    func jsonHelpers() throws {
        let body = request(method: .post, body: #"{"items":[{"id":1}],"obj":{"z":1,"a":[2]}}"#)
        #expect(
            try render("{{{toJson (jsonPath request.body '$.obj')}}}|{{{toJson 'x'}}}|{{{toJson 3}}}", body)
                == "{\n  \"z\" : 1,\n  \"a\" : [ 2 ]\n}|\"x\"|3")
        #expect(try render("{{{jsonArrayAdd (jsonPath request.body '$.items') '{\"id\":2}'}}}", body) == #"[{"id":1},{"id":2}]"#)
        #expect(try render("{{{jsonArrayAdd '[1,2,3]' 4 maxItems=2}}}|{{{jsonArrayAdd '[1]' '[2,3]' flatten=true}}}") == "[3,4]|[1,2,3]")
        // A block helper's output is not escaped (Handlebars.java: `{{#base64}}block{{/base64}}` → YmxvY2s=).
        #expect(try render("{{#jsonArrayAdd '[]'}}{\"a\": 1}{{/jsonArrayAdd}}") == #"[{"a":1}]"#)
    }

    @Test("math: BigDecimal arithmetic as WireMock 2.35.1 does it")
    func math() throws {
        #expect(
            try render(
                "{{math 1 '+' 2}}|{{math 5 '/' 2}}|{{math 5.5 '*' 2}}|{{math 7 '%' 3}}|{{math 1.0 '+' 2}}|{{math '3' '-' '10'}}|{{math 10 '/' 4}}|{{math 0.1 '+' 0.2}}|{{math 2 '*' 1.5}}|{{math 10 '/' 3.0}}|{{math 10.0 '/' 4}}"
            )
                == "3|3|11.0|1|3.0|-7|3|0.3|3.0|3|2.5")
        #expect(
            try render(
                "{{math 1.5 '-' 0.25}}|{{math 7.5 '%' 2}}|{{math 2 '+' '1e2'}}|{{math -1 '*' 3}}|{{math 9 '/' 7}}|{{math request.query.a '+' 1}}|{{math 'abc' '+' 1}}"
            ) == "1.25|1.5|102|-3|1|2|1")
        #expect(
            try render("{{math 1 '+'}}")
                == "[ERROR: All maths functions require two operands and an operator as parameters e.g. 3 &#x27;+&#x27; 2]")
        #expect(throws: HTTPMockError.self) { try render("{{math 10 '/' 0}}") }
    }

    @Test("request.requestLine: method, scheme, host, port, path, segments, query, url and baseUrl as the jar renders them (issue 44.6)")
    func requestLine() throws {
        let request = request("http://localhost:18080/probe?a=1&a=2&b=3")
        #expect(
            try render(
                "{{request.requestLine.port}}|{{request.requestLine.method}}|{{request.requestLine.scheme}}|{{request.requestLine.host}}|"
                    + "{{request.requestLine.path}}|{{request.requestLine.pathSegments.[0]}}|{{request.requestLine.query.a}}|"
                    + "{{request.requestLine.url}}|{{request.requestLine.baseUrl}}", request)
                == "18080|GET|http|localhost|/probe|probe|1|/probe?a&#x3D;1&amp;a&#x3D;2&amp;b&#x3D;3|http://localhost:18080")
    }

    /// Each row was answered by the WireMock 2.35.1 jar to `{{math request.query.a request.query.o request.query.b}}`
    /// (issue 43.23): exact `BigDecimal` arithmetic, then Java's `intValue()`/`longValue()`
    /// (low bits only) for a whole result and `doubleValue()` otherwise.
    @Test(
        "math on operands beyond 64 bits, scales and signs: exact BigDecimal, reduced as the jar reduces it",
        arguments: [
            ("a=1234567890123456789012345678901234567890&o=%2B&b=1234567890123456789012345678901234567890", "6447113069200807332"),
            ("a=1234567890123456789012345678901234567890&o=*&b=1234567890123456789012345678901234567890", "3927718353326642244"),
            ("a=9223372036854775807&o=*&b=9223372036854775807", "1"), ("a=9223372036854775807&o=%2B&b=1", "0"),
            ("a=-1234567890123456789012345678901234567890&o=/&b=7", "1346380551"), ("a=-5000000000&o=-&b=0", "-705032704"),
            ("a=3000000000&o=%2B&b=0", "3000000000"), ("a=2&o=x&b=3", "6"), ("a=7&o=%25&b=0.5", "0.0"), ("a=1e2&o=%25&b=3", "1"),
            ("a=-7.5&o=%25&b=2", "-1.5"), ("a=10&o=/&b=0.3", "33"), ("a=1e300&o=-&b=1", "-1"), ("a=2.5&o=/&b=-2", "-1.3"),
            ("a=-2.5&o=/&b=2", "-1.3"), ("a=1.25&o=/&b=0.5", "2.5"), ("a=100&o=%25&b=-7", "2"), ("a=5E-3&o=*&b=2", "0.01"),
            ("a=%205&o=%2B&b=1", "1"), ("a=0.000&o=%2B&b=0", "0.0"), ("a=1e300&o=*&b=1e300", "Infinity"), ("a=1.50&o=%2B&b=1", "2.5"),
            ("a=nan&o=%2B&b=1", "1"), ("a=1e-5&o=%2B&b=1", "1.00001"),
        ])
    func mathBeyondSixtyFourBits(query: String, expected: String) throws {
        let template = "{{math request.query.a request.query.o request.query.b}}"
        #expect(try render(template, request("http://127.0.0.1:8080/m?" + query)) == expected, "\(query)")
    }

    @Test("math refuses operands past its bounds (1,000 digits, scale ±1,000) with an error naming them, never a trap")
    func mathBounds() throws {
        let template = "{{math request.query.a '*' request.query.b}}"
        let huge = String(repeating: "9", count: 1_001)
        #expect(throws: HTTPMockError.self) { try render(template, request("http://127.0.0.1:8080/m?a=\(huge)&b=2")) }
        #expect(throws: HTTPMockError.self) { try render(template, request("http://127.0.0.1:8080/m?a=1e99999999999&b=2")) }
        #expect(throws: HTTPMockError.self) { try render(template, request("http://127.0.0.1:8080/m?a=1e-5000&b=2")) }
        let largest = String(repeating: "9", count: 1_000)
        #expect(
            try render("{{math request.query.a '/' request.query.b}}", request("http://127.0.0.1:8080/m?a=\(largest)&b=\(largest)")) == "1")
    }

    @Test(
        "dates out of Java's Instant range, epochs that are not whole numbers, offsets of a billion years: errors, never traps (issue 43.2)"
    )
    func datesOutOfRange() throws {
        for (template, query) in [
            ("{{date (parseDate request.query.t format='unix') format='epoch'}}", "t=1e300"),
            ("{{date (parseDate request.query.t format='unix') format='epoch'}}", "t=nan"),
            ("{{parseDate request.query.t format='epoch'}}", "t=1e300"),
            ("{{parseDate request.query.t format='unix'}}", "t=9223372036854775807"),
            ("{{now offset='-9223372036854775807 days'}}", "t=1"),
            ("{{now offset='2000000000 years' format='epoch'}}", "t=1"),
            ("{{now offset='9223372036854775807 seconds' format='unix'}}", "t=1"),
        ] {
            #expect(throws: HTTPMockError.self, "\(template) ?\(query)") {
                try render(template, request("http://127.0.0.1:8080/d?" + query))
            }
        }
        // Within the range, as the jar answers them.
        #expect(
            try render("{{parseDate request.query.t format='epoch'}}", request("http://127.0.0.1:8080/d?t=253402300800000"))
                == "10000-01-01T00:00:00Z")
    }

    @Test("range with bounds 16e18 apart is refused by its count, not an overflow trap (issue 43.1)")
    func rangeFarApart() throws {
        let request = request("http://127.0.0.1:8080/r?a=-8000000000000000000&b=8000000000000000000")
        #expect(throws: HTTPMockError.self) { try render("{{#each (range request.query.a request.query.b)}}{{this}}{{/each}}", request) }
        #expect(throws: HTTPMockError.self) { try render("{{range -8000000000000000000 8000000000000000000}}") }
    }

    @Test("range and array as WireMock 2.35.1 renders them (compared with the jar); bounded")
    func rangeAndArray() throws {
        #expect(
            try render("{{range 1 3}}|{{range -2 0}}|{{array 1 'b' 3}}|{{array}}|{{size (range 1 5)}}")
                == "[1, 2, 3]|[-2, -1, 0]|[1, b, 3]|[]|5")
        #expect(try render("{{#each (range 1 3)}}{{this}},{{/each}}|{{#each (array 1 'b' 3)}}{{this}};{{/each}}") == "1,2,3,|1;b;3;")
        // A real folder's template (wiremock-docker's samples): a row per number of a random range.
        #expect(try render("{{#each (range 0 (randomInt lower=2 upper=3)) as |index|}}[{{index}}]{{/each}}") == "[0][1][2]")
        #expect(try render("{{range 1}}") == "[ERROR: The range helper requires both lower and upper bounds as integer parameters]")
        #expect(throws: HTTPMockError.self) { try render("{{range 3 1}}") }
        #expect(throws: HTTPMockError.self) { try render("{{range 0 1000000000}}") }
    }

    @Test("now, date, parseDate with a fixed clock: formats, offsets, time zones, epoch and unix")
    func dates() throws {
        #expect(
            try render(
                "{{now}}|{{now format='yyyy-MM-dd'}}|{{now offset='3 days' format='yyyy-MM-dd HH:mm'}}|{{now timezone='Australia/Sydney' format='HH:mm Z'}}|{{now format='epoch'}}|{{now format='unix'}}|{{now offset='-1 months'}}"
            )
                == "2026-11-26T21:19:56Z|2026-11-26|2026-11-29 21:19|08:19 +1100|1795727996245|1795727996|2026-10-26T21:19:56Z")
        #expect(
            try render(
                "{{now offset='2 years'}}|{{now offset='-30 seconds' format='HH:mm:ss'}}|{{now offset='90 minutes'}}|{{now format='EEE, dd MMM yyyy HH:mm:ss z'}}|{{now timezone='Europe/Paris'}}|{{now offset='now +5 years'}}|{{now offset='+1 days'}}|{{now format=\"yyyy-MM-dd'T'HH:mm:ss.SSSXXX\" timezone='Europe/Paris'}}"
            )
                == "2028-11-26T21:19:56Z|21:19:26|2026-11-26T22:49:56Z|Thu, 26 Nov 2026 21:19:56 UTC|2026-11-26T22:19:56+01:00|2031-11-26T21:19:56Z|2026-11-27T21:19:56Z|2026-11-26T22:19:56.245+01:00"
        )
        #expect(
            try render(
                "{{parseDate '2021-03-04T05:06:07Z'}}|{{date (parseDate '2021-03-04T05:06:07Z') format='yyyy'}}|{{date (parseDate '2021-03-04T05:06:07Z') offset='1 hours'}}|{{parseDate '04/03/2021' format='dd/MM/yyyy'}}|{{date (parseDate '1614834367' format='unix')}}|{{date (parseDate '2021-03-04T05:06:07Z') format='epoch'}}"
            )
                == "2021-03-04T05:06:07Z|2021|2021-03-04T06:06:07Z|2021-03-04T00:00:00Z|2021-03-04T05:06:07Z|1614834367000")
        #expect(
            try render(
                "{{parseDate '2021-03-04T05:06:07.123Z'}}|{{parseDate '2021-03-04T05:06:07+02:00'}}|{{parseDate 'Thu, 04 Mar 2021 05:06:07 GMT'}}|{{date (parseDate '2021-03-04T05:06:07+02:00') format='HH:mm'}}|{{date (parseDate '2021-03-04T05:06:07+02:00') format='epoch'}}|{{parseDate 'garbage'}}|{{date '2021-03-04T05:06:07Z'}}"
            )
                == "2021-03-04T05:06:07Z|2021-03-04T05:06:07+02:00|2021-03-04T05:06:07Z|05:06|1614827167000||2026-11-26T21:19:56Z")
        // Literal mistakes are errors at registration (WireMock: a 500 per request).
        #expect(parseError("{{now offset='1 weeks'}}").contains("offset must be <amount> <unit>"))
        #expect(parseError("{{now timezone='Nope/Zone'}}").contains("unknown time zone Nope/Zone"))
    }

    @Test("random helpers by shape: randomValue types and lengths, randomInt bounds, randomDecimal, pickRandom; seeded, so repeatable")
    func random() throws {
        let values = try render(
            "{{randomValue length=10 type='ALPHANUMERIC'}}|{{randomValue length=5 type='ALPHABETIC' uppercase=true}}|{{randomValue length=6 type='NUMERIC'}}|{{randomValue length=8 type='HEXADECIMAL'}}|{{randomValue type='UUID'}}|{{randomValue length=3}}|{{{randomValue length=4 type='ALPHANUMERIC_AND_SYMBOLS'}}}|{{randomValue}}"
        ).split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        #expect(values.count == 8)
        func only(_ text: String, _ allowed: String) -> Bool { text.allSatisfy { allowed.contains($0) } }
        #expect(values[0].count == 10 && only(values[0], "abcdefghijklmnopqrstuvwxyz0123456789"))
        #expect(values[1].count == 5 && only(values[1], "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        #expect(values[2].count == 6 && only(values[2], "0123456789"))
        #expect(values[3].count == 8 && only(values[3], "0123456789abcdef"))
        #expect(UUID(uuidString: values[4]) != nil && values[4] == values[4].lowercased() && values[4].count == 36)
        #expect(values[5].count == 3)
        #expect(values[6].unicodeScalars.count == 4 && values[6].unicodeScalars.allSatisfy { (32...126).contains($0.value) })
        #expect(values[7].count == 36)
        let numbers = try render(
            "{{randomInt lower=5 upper=9}} {{randomInt lower=5 upper=6}} {{randomInt upper=3}} {{randomDecimal lower=1.5 upper=2}} {{pickRandom 'a' 'b' 'c'}} {{pickRandom (jsonPath request.body '$')}}",
            request(method: .post, body: "[1,2,3]")
        ).split(separator: " ").map(String.init)
        #expect((5..<9).contains(Int(numbers[0]) ?? -1))
        #expect(numbers[1] == "5")
        #expect((Int(numbers[2]) ?? 9) < 3)
        #expect((1.5..<2).contains(Double(numbers[3]) ?? 0))
        #expect(["a", "b", "c"].contains(numbers[4]))
        #expect(["1", "2", "3"].contains(numbers[5]))
        // The same seed, the same values; another seed, others.
        let template = "{{randomValue length=12}} {{randomInt}}"
        #expect(try render(template, seed: 3) == render(template, seed: 3))
        #expect(try render(template, seed: 3) != render(template, seed: 4))
        #expect(parseError("{{randomValue length=99999999}}").contains("length must be a whole number from 0 to 1048576"))
    }

    @Test("unknown helpers are parse errors naming the helper, Faker's random included")
    func unknownHelpers() {
        #expect(parseError("{\"city\":\"{{ random 'Address.city' }}\"}") == "1:10: {{random 'Address.city'}}: unknown helper random")
        #expect(parseError("{{#each (nope request.body)}}{{/each}}") == "1:1: {{#each (nope request.body)}}: unknown helper nope")
        #expect(parseError("{{matches 'x' '[a-'}}").contains("[a- is not a regular expression"))
        // A name without arguments is a path (WireMock renders nothing for it).
        #expect(parseError("{{random}}") == "parsed")
    }
}
#endif

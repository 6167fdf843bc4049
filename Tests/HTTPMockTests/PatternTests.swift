import Testing

@testable import HTTPMock

/// White-box tests of the pure matching logic: pattern parsing, matching and precedence.
@Suite("Patterns and precedence (pure logic)")
struct PatternTests {
    @Test(
        "path patterns parse into segments",
        arguments: [
            ("/users/:id", "/users/:id", false, 1, 5),
            ("users/*/posts", "/users/*/posts", false, 1, 10),
            ("/api/**/data", "/api/**/data", false, 2, 7),
            ("/a/b/", "/a/b", true, 0, 2),
            ("/files/%2A", "/files/*", true, 0, 6),
            ("/", "/", true, 0, 0),
            ("/files/*.json", "/files/*.json", false, 1, 10),
            ("/api/v*/users", "/api/v*/users", false, 1, 9),
            ("/a/*-*", "/a/*-*", false, 1, 2),
            ("/x/a%2Ab*", "/x/a%2Ab*", false, 1, 4),
        ])
    func pathParsing(raw: String, description: String, isLiteral: Bool, wildcards: Int, literals: Int) throws {
        let pattern = try PathPattern.parse(raw)
        #expect(pattern.description == description)
        #expect(pattern.isLiteral == isLiteral)
        #expect(pattern.wildcardWeight == wildcards)
        #expect(pattern.literalCharacterCount == literals)
    }

    @Test(
        "malformed path patterns are rejected with the segment named",
        arguments: [
            ("/a/***", "\"***\" is not a pattern"),
            ("/a/b**", "\"b**\" is not a pattern"),
            ("/a/**x", "\"**x\" is not a pattern"),
            ("/users/:", "needs a parameter name"),
            ("/users/:id/:id", "parameter \":id\" appears twice"),
            ("/users/:user-id", "may only hold letters, digits and _"),
        ])
    func pathErrors(raw: String, message: String) {
        #expect {
            _ = try PathPattern.parse(raw)
        } throws: { error in
            (error as? PatternError)?.message.contains(message) == true
        }
    }

    @Test(
        "path matching and captures",
        arguments: [
            ("/users/:id", "/users/42", ["id": "42"] as [String: String]?),
            ("/users/:id", "/users/42/posts", nil),
            ("/users/*", "/users", nil),
            ("/api/**/data", "/api/data", [:]),
            ("/api/**/data", "/api/v1/x/data", [:]),
            ("/api/**", "/api", [:]),
            ("/**/:file", "/a/b/c.txt", ["file": "c.txt"]),
            ("/a/:x/**/:y", "/a/1/2/3/4", ["x": "1", "y": "4"]),
            ("/Users", "/users", nil),
            ("/files/:name", "/files/a%2Fb", ["name": "a/b"]),
            ("/files/:name", "/files/a/b", nil),
            ("/p/:v", "/p/100%25", ["v": "100%"]),
            ("/files/*.json", "/files/a.json", [:]),
            ("/files/*.json", "/files/.json", [:]),
            ("/files/*.json", "/files/a.txt", nil),
            ("/files/*.json", "/files/a/b.json", nil),
            ("/api/v*/users", "/api/v2/users", [:]),
            ("/api/v*/users", "/api/x2/users", nil),
            ("/a/*-*", "/a/x-y", [:]),
            ("/a/*-*", "/a/-", [:]),
            ("/a/*-*", "/a/xy", nil),
            ("/a/*a*a", "/a/a", nil),
            ("/a/*a*a", "/a/aa", [:]),
            ("/a/*a*a", "/a/bab", nil),
            ("/**/:a/**/:b/**", "/1/2/3", ["a": "1", "b": "2"]),
            ("/**/x/**/:last", "/x/1/x/2", ["last": "2"]),
            ("/**/**/**/end", "/a/b/c", nil),
            ("/**/**/**/end", "/a/b/end", [:]),
        ])
    func pathMatching(pattern: String, path: String, captures: [String: String]?) throws {
        let segments = RoutePath.segments(ofNormalized: RoutePath.normalize(path))
        #expect(try PathPattern.parse(pattern).match(segments) == captures)
    }

    @Test(
        "host patterns",
        arguments: [
            ("*.example.com", "a.example.com", nil as Int?, true),
            ("*.example.com", "a.b.example.com", nil, false),
            ("*.example.com", "example.com", nil, false),
            ("**.example.com", "a.b.example.com", nil, true),
            ("**.example.com", "example.com", nil, false),
            ("api.*.com", "api.example.com", 443, true),
            ("API.Example.com", "api.example.com", nil, true),
            ("localhost:8080", "localhost", 8080, true),
            ("localhost:8080", "localhost", 9090, false),
            ("localhost:8080", "localhost", nil, false),
            ("*.local:8080", "api.local", 8080, true),
            ("api-*.example.com", "api-staging.example.com", nil, true),
            ("api-*.example.com", "api-.example.com", nil, true),
            ("api-*.example.com", "api.example.com", nil, false),
            ("api-*.example.com", "api-a.b.example.com", nil, false),
            ("*.example.*", "api.example.com", nil, true),
            ("**.b.**.d", "a.b.c.d", nil, true),
            ("**.b.**.d", "b.c.d", nil, false),
            ("**.**.**", "a.b", nil, false),
            ("**.**.**", "a.b.c", nil, true),
            ("[::1]:8080", "::1", 8080, true),
            ("[::1]", "0:0:0:0:0:0:0:1", 80, true),
            ("[::1]", "::2", 80, false),
            ("[2001:DB8::1]", "2001:db8:0::1", nil, true),
            ("bücher.example", "xn--bcher-kva.example", nil, true),
            ("BÜCHER.example", "b%C3%BCcher.example", nil, true),
            ("xn--bcher-kva.example", "bücher.example", nil, true),
            ("*.bücher.example", "shop.xn--bcher-kva.example", nil, true),
        ])
    func hostMatching(pattern: String, host: String, port: Int?, matches: Bool) throws {
        #expect(try HostPattern.parse(pattern).matches(host: RouteHost.normalize(host), port: port) == matches)
    }

    @Test(
        "malformed host patterns",
        arguments: [
            ("***.example.com", "is not a pattern"),
            ("a**.example.com", "\"a**\" is not a pattern"),
            ("exa mple.com", "host \"exa mple.com\": a space cannot appear in a host name (label \"exa mple\")"),
            ("user@example.com", "host \"user@example.com\" holds user information (\"user@\")"),
            ("example.com:80:80", "host \"example.com:80:80\" has 2 \":\""),
            ("::1", "host \"::1\" is an IPv6 address: write it in brackets, like \"[::1]\""),
            ("fe80::1:8080", "is an IPv6 address: write it in brackets"),
            ("[::1", "without a closing \"]\""),
            ("[zz::1]", "\"zz::1\" is not an IPv6 address"),
            ("[::1]8080", "only \":port\" may follow \"]\""),
            ("[::1]:0", "\"0\" is not a port number"),
            ("a/b.com", "\"/\" cannot appear in a host name"),
            ("tab\there.com", "a tab cannot appear"),
            (":8080", "has no name before its port"),
            ("bü*.example", "a label with * must be ASCII"),
            ("api..example.com", "empty label"),
            ("localhost:http", "is not a port number"),
            ("localhost:70000", "is not a port number"),
            ("", "the host is empty"),
        ])
    func hostErrors(raw: String, message: String) {
        #expect {
            _ = try HostPattern.parse(raw)
        } throws: { error in
            (error as? PatternError)?.message.contains(message) == true
        }
    }

    static func route(
        _ host: String, _ path: String, method: HTTPMethod? = nil, query: [String: QueryValue]? = nil,
        headers: [String: QueryValue]? = nil, order: Int
    ) throws -> Route {
        let declared = RequestConditions.Declared(
            query: query.map { QueryRequirement(values: $0, matching: .exact) }, headers: headers.map(HeaderRequirement.init))
        let key = RouteKey(
            host: try HostPattern.parse(host), path: try PathPattern.parse(path), method: method,
            conditions: query == nil && headers == nil ? nil : RequestConditions(declared: declared))
        return Route(key: key, specificity: key.specificity, order: order)
    }

    /// Each row: a route that must take precedence over the next, and why.
    @Test(
        "precedence: exact > fewer wildcards > more literal characters > more constraints > earlier",
        arguments: [
            (("api.example.com", "/users/me", 9), ("api.example.com", "/users/:id", 0), "exact host+path beats a pattern"),
            (("api.example.com", "/users/*", 9), ("*.example.com", "/users/me", 0), "a host wildcard is a pattern too"),
            (("api.example.com", "/users/*/posts", 9), ("api.example.com", "/users/**", 0), "* weighs 1, ** weighs 2"),
            (("api.example.com", "/a/*/c", 9), ("api.example.com", "/a/*/*", 0), "fewer wildcards"),
            (("api.example.com", "/users/:id/avatar", 9), ("api.example.com", "/users/:id/x", 0), "more literal characters"),
            (("api.example.com", "/x/:id", 0), ("api.example.com", "/x/*", 9), "tie on pattern: earlier registration"),
            (("**.example.com", "/", 9), ("*.example.*", "/", 0), "upstream's tie-breaker: 2 wildcards each, more literal characters"),
            (("api.example.com", "/files/*.json", 9), ("api.example.com", "/files/*", 0), "an in-segment * weighs 1; its literals count"),
            (("api.example.com", "/a/*-*", 9), ("api.example.com", "/a/**", 0), "an in-segment * weighs 1, ** weighs 2"),
            (("api-*.example.com", "/p", 9), ("*.example.com", "/p", 0), "same weight, more literal characters in the host"),
        ])
    func precedence(first: (String, String, Int), second: (String, String, Int), reason: String) throws {
        let winner = try Self.route(first.0, first.1, order: first.2)
        let loser = try Self.route(second.0, second.1, order: second.2)
        #expect(winner.precedes(loser), "\(reason)")
        #expect(!loser.precedes(winner), "\(reason)")
    }

    @Test("precedence ties on pattern are broken by constraints, then by registration order")
    func constraintTies() throws {
        let plain = try Self.route("a.com", "/x/:id", order: 0)
        let withMethod = try Self.route("a.com", "/x/:id", method: .get, order: 1)
        let withMethodAndHeaders = try Self.route("a.com", "/x/:id", method: .get, headers: ["X": "1"], order: 2)
        let withQuery = try Self.route("a.com", "/x/:id", query: ["q": "1"], order: 3)
        let ordered = [plain, withQuery, withMethodAndHeaders, withMethod].sorted { $0.precedes($1) }
        #expect(ordered.map(\.order) == [2, 1, 3, 0])
    }
}

/// RFC 3492 section 7.1's sample strings, both ways.
@Suite("Punycode (RFC 3492 samples)")
struct PunycodeTests {
    @Test(
        "encode and decode the RFC's samples",
        arguments: [
            (
                "(A) Arabic (Egyptian)",
                "\u{0644}\u{064A}\u{0647}\u{0645}\u{0627}\u{0628}\u{062A}\u{0643}\u{0644}\u{0645}\u{0648}\u{0634}\u{0639}\u{0631}\u{0628}\u{064A}\u{061F}",
                "egbpdaj6bu4bxfgehfvwxn"
            ),
            (
                "(B) Chinese (simplified)",
                "\u{4ED6}\u{4EEC}\u{4E3A}\u{4EC0}\u{4E48}\u{4E0D}\u{8BF4}\u{4E2D}\u{6587}", "ihqwcrb4cv8a8dqg056pqjye"
            ),
            (
                "(C) Chinese (traditional)",
                "\u{4ED6}\u{5011}\u{7232}\u{4EC0}\u{9EBD}\u{4E0D}\u{8AAA}\u{4E2D}\u{6587}", "ihqwctvzc91f659drss3x8bo0yb"
            ),
            (
                "(D) Czech",
                "Pro\u{010D}prost\u{011B}nemluv\u{00ED}\u{010D}esky", "Proprostnemluvesky-uyb24dma41a"
            ),
            (
                "(E) Hebrew",
                "\u{05DC}\u{05DE}\u{05D4}\u{05D4}\u{05DD}\u{05E4}\u{05E9}\u{05D5}\u{05D8}\u{05DC}\u{05D0}\u{05DE}\u{05D3}\u{05D1}\u{05E8}\u{05D9}\u{05DD}\u{05E2}\u{05D1}\u{05E8}\u{05D9}\u{05EA}",
                "4dbcagdahymbxekheh6e0a7fei0b"
            ),
            (
                "(L) 3<nen>B<gumi><kinpachi><sensei>",
                "3\u{5E74}B\u{7D44}\u{91D1}\u{516B}\u{5148}\u{751F}", "3B-ww4c5e180e575a65lsy2b"
            ),
            (
                "(M) <amuro><namie>-with-SUPER-MONKEYS",
                "\u{5B89}\u{5BA4}\u{5948}\u{7F8E}\u{6075}-with-SUPER-MONKEYS", "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n"
            ),
            (
                "(R) <pafii>de<runba>",
                "\u{30D1}\u{30D5}\u{30A3}\u{30FC}de\u{30EB}\u{30F3}\u{30D0}", "de-jg4avhby1noc0d"
            ),
            (
                "(S) <sono><supiido><de>",
                "\u{305D}\u{306E}\u{30B9}\u{30D4}\u{30FC}\u{30C9}\u{3067}", "d9juau41awczczp"
            ),
            ("bücher", "b\u{00FC}cher", "bcher-kva"),
        ])
    func samples(name: String, unicode: String, ascii: String) {
        #expect(Punycode.encode(unicode) == ascii, "\(name)")
        #expect(Punycode.decode(ascii) == unicode, "\(name)")
    }

    @Test("invalid punycode is refused, not trapped on", arguments: ["99999999999999999999a", "ab-!", "-zzzzzzzzzzzzzzzzzzzzzzz"])
    func invalid(text: String) {
        #expect(Punycode.decode(text) == nil)
    }

    @Test("IDN hosts normalise to their punycode form")
    func hosts() {
        #expect(RouteHost.normalize("b%C3%BCcher.example") == "xn--bcher-kva.example")
        #expect(RouteHost.normalize("BÜCHER.Example.") == "xn--bcher-kva.example")
        #expect(RouteHost.normalize("api.example.com") == "api.example.com")
        #expect(RouteHost.normalize("::1") == "[::1]")
        #expect(RouteHost.normalize("0:0:0:0:0:0:0:1") == "[::1]")
    }
}

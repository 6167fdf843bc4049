@testable import HTTPMock
import Testing

/// White-box tests of the pure matching logic: pattern parsing, matching and precedence.
@Suite("Patterns and precedence (pure logic)")
struct PatternTests {
    @Test("path patterns parse into segments", arguments: [
        ("/users/:id", "/users/:id", false, 1, 5),
        ("users/*/posts", "/users/*/posts", false, 1, 10),
        ("/api/**/data", "/api/**/data", false, 2, 7),
        ("/a/b/", "/a/b", true, 0, 2),
        ("/files/%2A", "/files/*", true, 0, 6),
        ("/", "/", true, 0, 0),
    ])
    func pathParsing(raw: String, description: String, isLiteral: Bool, wildcards: Int, literals: Int) throws {
        let pattern = try PathPattern.parse(raw)
        #expect(pattern.description == description)
        #expect(pattern.isLiteral == isLiteral)
        #expect(pattern.wildcardWeight == wildcards)
        #expect(pattern.literalCharacterCount == literals)
    }

    @Test("malformed path patterns are rejected with the segment named", arguments: [
        ("/a/***", "\"***\" is not a pattern"),
        ("/a/b*", "\"b*\" is not a pattern"),
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

    @Test("path matching and captures", arguments: [
        ("/users/:id", "/users/42", ["id": "42"] as [String: String]?),
        ("/users/:id", "/users/42/posts", nil),
        ("/users/*", "/users", nil),
        ("/api/**/data", "/api/data", [:]),
        ("/api/**/data", "/api/v1/x/data", [:]),
        ("/api/**", "/api", [:]),
        ("/**/:file", "/a/b/c.txt", ["file": "c.txt"]),
        ("/a/:x/**/:y", "/a/1/2/3/4", ["x": "1", "y": "4"]),
        ("/Users", "/users", nil),
    ])
    func pathMatching(pattern: String, path: String, captures: [String: String]?) throws {
        #expect(try PathPattern.parse(pattern).match(RoutePath.decodedSegments(path)) == captures)
    }

    @Test("host patterns", arguments: [
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
    ])
    func hostMatching(pattern: String, host: String, port: Int?, matches: Bool) throws {
        #expect(try HostPattern.parse(pattern).matches(host: host, port: port) == matches)
    }

    @Test("malformed host patterns", arguments: [
        ("***.example.com", "is not a pattern"),
        ("a*.example.com", "is not a pattern"),
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

    static func route(_ host: String, _ path: String, method: HTTPMethod? = nil, query: [String: QueryValue]? = nil,
                      headers: [String: QueryValue]? = nil, order: Int) throws -> Route {
        let key = RouteKey(host: try HostPattern.parse(host), path: try PathPattern.parse(path), method: method,
                           query: query.map { QueryRequirement(values: $0, matching: .exact) },
                           headers: headers.map(HeaderRequirement.init))
        return Route(key: key, specificity: key.specificity, order: order)
    }

    /// Each row: a route that must take precedence over the next, and why.
    @Test("precedence: exact > fewer wildcards > more literal characters > more constraints > earlier", arguments: [
        (("api.example.com", "/users/me", 9), ("api.example.com", "/users/:id", 0), "exact host+path beats a pattern"),
        (("api.example.com", "/users/*", 9), ("*.example.com", "/users/me", 0), "a host wildcard is a pattern too"),
        (("api.example.com", "/users/*/posts", 9), ("api.example.com", "/users/**", 0), "* weighs 1, ** weighs 2"),
        (("api.example.com", "/a/*/c", 9), ("api.example.com", "/a/*/*", 0), "fewer wildcards"),
        (("api.example.com", "/users/:id/avatar", 9), ("api.example.com", "/users/:id/x", 0), "more literal characters"),
        (("api.example.com", "/x/:id", 0), ("api.example.com", "/x/*", 9), "tie on pattern: earlier registration"),
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

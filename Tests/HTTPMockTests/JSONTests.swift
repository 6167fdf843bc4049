import Foundation
import HTTPMock
import Testing

@Suite("JSON: JSONValue, JSON-RPC answers and matchers through URLSession")
struct JSONTests {
    let mock = HTTPMock()

    func post(_ path: String, _ body: String, host: String = "mcp.example.com") async throws -> Reply {
        try await mock.urlSession.reply(
            request(
                "https://\(host)\(path)", method: "POST", body: Data(body.utf8),
                headers: ["Content-Type": "application/json"]))
    }

    func json(_ reply: Reply) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: reply.data)
    }

    @Test("jsonRPC(result:) copies a string id as sent, with exactly jsonrpc, id and result")
    func stringID() async throws {
        mock.registerResponses {
            Host("mcp.example.com") {
                Path("/mcp", method: .post, body: .jsonRPC(method: "tools/list")) {
                    MockResponse.jsonRPC(result: ["tools": [["name": "add"]]], lifetime: .eternal)
                }
            }
        }
        let reply = try await post("/mcp", #"{"jsonrpc":"2.0","id":"a7f3-c1","method":"tools/list","params":{}}"#)
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "application/json")
        #expect(try json(reply) == ["jsonrpc": "2.0", "id": "a7f3-c1", "result": ["tools": [["name": "add"]]]])
        guard case .object(let members) = try json(reply) else {
            Issue.record("not an object")
            return
        }
        #expect(members.keys.sorted() == ["id", "jsonrpc", "result"])
        #expect(reply.text.contains(#""id":"a7f3-c1""#))
    }

    @Test("jsonRPC(result:) copies an integer id as sent (exactly, beyond 2^53), through a completion handler too")
    func integerID() async throws {
        struct Sum: Encodable { var value: Int }
        mock.addResponses(
            forPath: "/mcp", host: "mcp.example.com", method: .post, body: .jsonRPC(method: "tools/call"),
            responses: [.jsonRPC(result: Sum(value: 3), lifetime: .eternal)])
        let reply = try await post("/mcp", #"{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"add"}}"#)
        #expect(reply.text.contains(#""id":9007199254740993"#))
        #expect(try json(reply)["id"] == .integer(9_007_199_254_740_993))
        #expect(try json(reply)["result"]?["value"] == 3)

        let viaHandler = try await mock.urlSession.replyViaCompletionHandler(
            request(
                "https://mcp.example.com/mcp", method: "POST", body: Data(#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#.utf8)))
        #expect(try json(viaHandler) == ["jsonrpc": "2.0", "id": 7, "result": ["value": 3]])
    }

    @Test("jsonRPCError(code:message:) answers 200 with an error object and the request's id")
    func errorAnswer() async throws {
        mock.registerResponses {
            Host("mcp.example.com") {
                Path("/mcp", method: .post, body: .jsonRPC(method: "tools/call")) {
                    MockResponse.jsonRPCError(code: -32602, message: "Unknown tool: sub")
                }
            }
        }
        let reply = try await post("/mcp", #"{"jsonrpc":"2.0","id":"x-1","method":"tools/call"}"#)
        #expect(reply.status == 200)
        #expect(try json(reply) == ["jsonrpc": "2.0", "id": "x-1", "error": ["code": -32602, "message": "Unknown tool: sub"]])
    }

    @Test(".jsonRPC(method:) selects by the top-level method only")
    func methodMatcher() async throws {
        mock.registerResponses {
            Host("mcp.example.com") {
                Path("/mcp", body: .jsonRPC(method: "initialize")) { MockResponse.jsonRPC(result: ["protocolVersion": "2025-06-18"]) }
                Path("/mcp", body: .jsonRPC(method: "ping")) { MockResponse.jsonRPC(result: [:], lifetime: .eternal) }
            }
        }
        #expect(try await post("/mcp", #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).text == #"{"id":1,"jsonrpc":"2.0","result":{}}"#)
        #expect(try await post("/mcp", #"{"jsonrpc":"2.0","id":2,"params":{"method":"initialize"}}"#).status == 404)
        #expect(try await post("/mcp", "not json").status == 404)
        #expect(
            try await json(post("/mcp", #"{"jsonrpc":"2.0","id":3,"method":"initialize"}"#))["result"] == ["protocolVersion": "2025-06-18"])
    }

    @Test("a nested heterogeneous literal is a JSONValue for .jsonContains and .json, without a cast")
    func nestedLiterals() async throws {
        mock.registerResponses {
            Host("mcp.example.com") {
                Path("/contains", body: .jsonContains(["method": "tools/call", "params": ["name": "add", "arguments": ["a": 1]]])) {
                    MockResponse.plaintext("contains", lifetime: .eternal)
                }
                Path("/equal", body: .json(["id": 1, "ok": true, "ratio": 0.5, "tags": ["x", nil]])) {
                    MockResponse.plaintext("equal", lifetime: .eternal)
                }
            }
        }
        #expect(
            try await post(
                "/contains", #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":1.0,"b":2}}}"#
            ).text == "contains")
        #expect(try await post("/contains", #"{"method":"tools/call","params":{"name":"sub","arguments":{"a":1}}}"#).status == 404)
        #expect(try await post("/equal", #"{"tags":["x",null],"ratio":0.5,"ok":true,"id":1.0}"#).text == "equal")
        #expect(try await post("/equal", #"{"tags":["x",null],"ratio":0.5,"ok":1,"id":1}"#).status == 404)
    }

    @Test("integers compare exactly: 2^53 + 1 is not 2^53 (issue 11)")
    func exactIntegers() async throws {
        mock.addResponses(
            forPath: "/n", host: "mcp.example.com", body: .json(["n": 9_007_199_254_740_992]),
            responses: [.plaintext("2^53", lifetime: .eternal)])
        #expect(try await post("/n", #"{"n":9007199254740992}"#).text == "2^53")
        #expect(try await post("/n", #"{"n":9007199254740993}"#).status == 404)
        #expect(JSONValue.integer(9_007_199_254_740_993) != .double(9_007_199_254_740_992))
        #expect(JSONValue.integer(2) == .double(2.0))
        #expect(Set<JSONValue>([.integer(2), .double(2.0)]).count == 1)
    }

    @Test("JSONValue: literals, subscripts, Codable round trip")
    func jsonValue() throws {
        let value: JSONValue = ["name": "add", "arguments": [1, 2.5, true, nil, ["k": "v"]]]
        #expect(value["name"] == "add")
        #expect(value["arguments"]?[0] == 1)
        #expect(value["arguments"]?[1] == .double(2.5))
        #expect(value["arguments"]?[4]?["k"] == "v")
        #expect(value["arguments"]?[9] == nil)
        #expect(value["missing"] == nil)
        #expect(value[0] == nil)
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
        #expect(value.description == #"{"arguments":[1,2.5,true,null,{"k":"v"}],"name":"add"}"#)
    }

    @Test(".equals compares bytes: FF FE is not \"\\u{FFFD}\\u{FFFD}\" (issue 11)")
    func equalsComparesBytes() async throws {
        mock.addResponses(
            forPath: "/b", host: "mcp.example.com", body: .equals("\u{FFFD}\u{FFFD}"),
            responses: [.plaintext("replacement characters", lifetime: .eternal)])
        mock.addResponses(forPath: "/c", host: "mcp.example.com", body: .contains("\u{FFFD}"), responses: [.plaintext("contains")])
        let invalid = request("https://mcp.example.com/b", method: "POST", body: Data([0xFF, 0xFE]))
        #expect(try await mock.urlSession.reply(invalid).status == 404)
        #expect(try await post("/b", "\u{FFFD}\u{FFFD}").text == "replacement characters")
        let invalidContains = request("https://mcp.example.com/c", method: "POST", body: Data([0x41, 0xFF, 0x42]))
        #expect(try await mock.urlSession.reply(invalidContains).status == 404)
    }

    @Test("a GraphQL comment is not the operation; a field named query is not either (issue 11)")
    func graphQLComments() async throws {
        mock.addResponses(
            forPath: "/graphql", host: "mcp.example.com", body: .graphQL(operationName: "Foo"),
            responses: [.plaintext("Foo", lifetime: .eternal)])
        mock.addResponses(
            forPath: "/graphql", host: "mcp.example.com", body: .graphQL(operationName: "Real"),
            responses: [.plaintext("Real", lifetime: .eternal)])
        let commented = ##"{"query":"# query Foo\nquery Real { user { id } }"}"##
        #expect(try await post("/graphql", commented).text == "Real")
        let anonymousWithComment = ##"{"query":"# query Foo\n{ viewer { id } }"}"##
        #expect(try await post("/graphql", anonymousWithComment).status == 404)
        let stringArgument = #"{"query":"query Real { search(text: \"query Foo\") { id } }"}"#
        #expect(try await post("/graphql", stringArgument).text == "Real")
        let fragmentFirst = #"{"query":"fragment F on User { query }\nquery Foo { user { ...F } }"}"#
        #expect(try await post("/graphql", fragmentFirst).text == "Foo")
    }
}

#if Server
import Foundation
import HTTPMock
import HTTPMockServer
import Testing

/// Issue 43, items 7–10 and 12, through a spawned `httpmock serve` on a WireMock root: matchers
/// that would take minutes of CPU for one request (XPath building gigabytes of text, a
/// backtracking pattern on each of 2,000 JSON elements or 1,000 parts, a 200,000-item class,
/// 60 MB unterminated XML comments) answer, and `/ping` answers beside them.
@Suite("One request's matching is bounded as a whole (issue 43)", .serialized, .timeLimit(.minutes(3)))
struct MatchBudgetServerTests {
    static let hostile = String(repeating: "a", count: 28) + "xb"

    static func root() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-budget-\(UUID().uuidString)")
        let mappings = root.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        var classItems = "a-z/"
        classItems.unicodeScalars.append(contentsOf: (0..<100_000).map { Unicode.Scalar(0x10000 + 2 * $0)! })
        let requests: [String: [String: Any]] = [
            "xpath": [
                "method": "POST", "url": "/xpath",
                "bodyPatterns": [["matchesXPath": "//*[contains(concat(.,.,.,.,.,.,.,.),'qq')]"]],
            ],
            "jsonpath": [
                "method": "POST", "url": "/jsonpath", "bodyPatterns": [["matchesJsonPath": #"$[?(@.s =~ /(a+)+\1b/)]"#]],
            ],
            "multipart": [
                "method": "POST", "url": "/multipart",
                "multipartPatterns": [["matchingType": "ANY", "bodyPatterns": [["matches": #"(a+)+\1b"#]]]],
            ],
            "class-url": ["method": "GET", "urlPattern": "[\(classItems)]*"],
            "class-body": ["method": "POST", "url": "/class", "bodyPatterns": [["matches": "[\(classItems)]*"]]],
            "xml": ["method": "POST", "url": "/xml", "bodyPatterns": [["equalToXml": "<a/>"]]],
            "ping": ["method": "GET", "url": "/ping"],
        ]
        for (name, request) in requests {
            let mapping: [String: Any] = [
                "request": request, "response": ["status": 200, "body": name == "ping" ? "pong" : "matched \(name)"],
                "priority": name == "ping" ? 1 : 5,
            ]
            try JSONSerialization.data(withJSONObject: mapping).write(to: mappings.appendingPathComponent("\(name).json"))
        }
        return root
    }

    static func post(_ port: Int, _ path: String, _ body: String, contentType: String = "application/octet-stream") async throws -> String {
        try await rawExchange(
            port: port,
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)",
            timeout: 120)
    }

    /// Sends `body` to `path` on a fresh server, with a `/ping` beside it: both answered, the
    /// body a miss (404).
    static func missWithPingBeside(_ path: String, _ body: String, contentType: String) async throws {
        let root = try Self.root()
        defer { try? FileManager.default.removeItem(at: root) }
        let (cli, port) = try await HostileTemplateServerTests.serve(root)
        defer { cli.process.terminate() }
        async let miss = Self.post(port, path, body, contentType: contentType)
        async let ping = HostileTemplateServerTests.get(port, "/ping")
        let (answer, pong) = try await (miss, ping)
        #expect(answer.hasPrefix("HTTP/1.1 404"), "\(path): \(answer.prefix(300).debugDescription)")
        #expect(pong.hasSuffix("pong"), "\(pong.prefix(300).debugDescription)")
        // And the server still answers after it.
        #expect(try await HostileTemplateServerTests.get(port, "/ping").hasSuffix("pong"))
    }

    @Test("matchesXPath building gigabytes of string values (concat of 500 nested elements over 1 MB) is a miss")
    func xpathText() async throws {
        // Each element's string-value is the megabyte below it, and concat makes eight of it per
        // element: 4 GB in all before; now at most MatchBudget.bytes.
        let xml = String(repeating: "<e>", count: 500) + String(repeating: "x", count: 1_000_000) + String(repeating: "</e>", count: 500)
        try await Self.missWithPingBeside("/xpath", xml, contentType: "application/xml")
    }

    @Test("matchesJsonPath with a backtracking filter over 2,000 elements is a miss")
    func jsonPathFilter() async throws {
        let json = "[" + Array(repeating: #"{"s":"\#(Self.hostile)"}"#, count: 2_000).joined(separator: ",") + "]"
        try await Self.missWithPingBeside("/jsonpath", json, contentType: "application/json")
    }

    @Test("multipartPatterns with a backtracking pattern over 1,000 parts is a miss")
    func multipartParts() async throws {
        let boundary = "b0undary"
        let parts = (0..<1_000).map { "--\(boundary)\r\nContent-Disposition: form-data; name=\"p\($0)\"\r\n\r\n\(Self.hostile)\r\n" }
        try await Self.missWithPingBeside(
            "/multipart", parts.joined() + "--\(boundary)--\r\n", contentType: "multipart/form-data; boundary=\(boundary)")
    }

    @Test("a 200,000-item class as urlPattern and as a body pattern over 300 KB matches, and /ping answers")
    func hugeClasses() async throws {
        let root = try Self.root()
        defer { try? FileManager.default.removeItem(at: root) }
        let (cli, port) = try await HostileTemplateServerTests.serve(root)
        defer { cli.process.terminate() }
        let path = "/" + String(repeating: "abcdefghij", count: 100)
        for _ in 0..<3 {
            let answer = try await HostileTemplateServerTests.get(port, path)
            #expect(answer.hasPrefix("HTTP/1.1 200") && answer.hasSuffix("matched class-url"), "\(answer.prefix(300).debugDescription)")
        }
        let body = String(repeating: "abcdefghij", count: 30_000)
        let answer = try await Self.post(port, "/class", body)
        #expect(answer.hasPrefix("HTTP/1.1 200") && answer.hasSuffix("matched class-body"), "\(answer.prefix(300).debugDescription)")
        #expect(try await HostileTemplateServerTests.get(port, "/ping").hasSuffix("pong"))
    }

    @Test("two 60 MB unterminated XML comments are misses naming the comment, and /ping answers meanwhile")
    func unterminatedComments() async throws {
        let root = try Self.root()
        defer { try? FileManager.default.removeItem(at: root) }
        let (cli, port) = try await HostileTemplateServerTests.serve(root)
        defer { cli.process.terminate() }
        // A tenth under ThreadSanitizer (CI sets TSAN_OPTIONS), whose slowdown on the
        // byte-by-byte search would otherwise outlast the time limit.
        let size = ProcessInfo.processInfo.environment["TSAN_OPTIONS"] == nil ? 60_000_000 : 6_000_000
        let body = "<a><!--" + String(repeating: "-", count: size)
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<2 { group.addTask { try await Self.post(port, "/xml", body, contentType: "application/xml") } }
            group.addTask { try await HostileTemplateServerTests.get(port, "/ping") }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(answers.filter { $0.hasSuffix("pong") }.count == 1, "\(answers.map { $0.prefix(200) })")
        let misses = answers.filter { $0.hasPrefix("HTTP/1.1 404") }
        #expect(misses.count == 2, "\(answers.map { $0.prefix(200) })")
        #expect(misses.allSatisfy { $0.contains("a comment is not closed") }, "\(misses.map { $0.suffix(2_000) })")
    }
}
#endif

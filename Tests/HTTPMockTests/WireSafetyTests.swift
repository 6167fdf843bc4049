import Foundation
import HTTPMock
import Testing

// SPEC §11.8: what a response sends is checked where it is declared. A 1xx status cannot be a
// final response, a header cannot split the response, a HAR body must be what its encoding says.

@Suite("Wire safety: final statuses, header fields and HAR bodies are checked at registration")
struct WireSafetyTests {
    let mock = HTTPMock()

    private func expectNothingRegistered(_ path: String = "/r", sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        let reply = try await mock.urlSession.reply("https://example.com\(path)")
        #expect(reply.status == 404, sourceLocation: sourceLocation)
    }

    @Test("a 1xx status is refused at the call site for every factory", arguments: [100, 101, 103, 199])
    func informationalStatusRefused(code: Int) async throws {
        let line = #line + 2
        withKnownIssue {
            mock.addResponses(forPath: "/r", responses: [.plaintext("ok"), .empty(status: HTTPStatus(code))])
        } matching: { issue in
            issue.description.contains("ANY example.com/r, response 2 of 2: status \(code) is informational (1xx)")
                && issue.sourceLocation?.line == line
        }
        try await expectNothingRegistered()
    }

    @Test("a 1xx status through the DSL, a template and a fault's head is refused too")
    func informationalStatusOtherFrontEnds() async throws {
        withKnownIssue {
            mock.registerResponses {
                Host("example.com") { Path("/r") { MockResponse.plaintext("x", status: .switchingProtocols) } }
            }
        } matching: {
            $0.description.contains("status 101 is informational (1xx)")
        }
        withKnownIssue {
            mock.addResponses(forPath: "/r", responses: [.template("x", status: .continue)])
        } matching: {
            $0.description.contains("MockResponse.template: status 100 is informational (1xx)")
        }
        withKnownIssue {
            mock.addResponses(forPath: "/r", responses: [.fault(.connectionLost(afterBytes: 1), status: 102)])
        } matching: {
            $0.description.contains("status 102 is informational (1xx)")
        }
        try await expectNothingRegistered()
    }

    @Test("a mock tree's configuration.json with a 1xx status fails loadMocks naming the file, and registers nothing")
    func informationalStatusInMockTree() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wire-safety-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try MockTreeTests.write(
            ["good/GET/configuration.json": #"{"status_code": 200}"#, "r/GET/configuration.json": #"{"status_code": 101}"#], in: root)
        let error = #expect(throws: HTTPMockError.self) { try mock.loadMocks(from: root, host: "example.com") }
        #expect(error?.message.contains("r/GET/configuration.json") == true, "\(String(describing: error))")
        #expect(error?.message.contains("status 101 is informational (1xx)") == true, "\(String(describing: error))")
        #expect(try await mock.urlSession.reply("https://example.com/good").status == 404)
    }

    @Test("a dynamic handler that answers 1xx fails its request with an error naming the status")
    func informationalStatusFromHandler() async throws {
        mock.addResponses(forPath: "/r", responses: [.dynamic { _ in .empty(status: .switchingProtocols) }])
        let error = await #expect(throws: HTTPMockError.self) { try await mock.urlSession.reply("https://example.com/r") }
        #expect(error?.message.contains("status 101 is informational (1xx)") == true, "\(String(describing: error))")
        #expect(mock.recordedRequests.count == 1)
    }

    @Test(
        "a header value with CR, LF or NUL is refused, naming the header and showing what was received",
        arguments: ["a\r\nSet-Cookie: evil=1", "a\nb", "a\u{0}b"])
    func headerValueRefused(value: String) async throws {
        let line = #line + 2
        withKnownIssue {
            mock.addResponses(forPath: "/r", responses: [.plaintext("x", headers: ["X-Trace": value])])
        } matching: { issue in
            issue.description.contains("response 1 of 1: header X-Trace has a value containing CR, LF or NUL")
                && (issue.description.contains(#"\r\n"#) || issue.description.contains(#"\n"#) || issue.description.contains(#"\u0000"#))
                && issue.sourceLocation?.line == line
        }
        try await expectNothingRegistered()
    }

    @Test("an invalid header name is refused", arguments: ["Bad Name", "X-A:b", "Ünicode", "X\r\nY"])
    func headerNameRefused(name: String) async throws {
        withKnownIssue {
            mock.addResponses(forPath: "/r", responses: [.plaintext("x", headers: [name: "v"])])
        } matching: {
            $0.description.contains("is not a valid HTTP header name")
        }
        try await expectNothingRegistered()
    }

    @Test("the DSL's Headers and a dictionary response go through the same check")
    func headerCheckOtherFrontEnds() async throws {
        withKnownIssue {
            mock.registerResponses {
                Host("example.com") {
                    Headers(["X-Env": "a\r\nX-Injected: 1"], cascade: true)
                    Path("/r") { MockResponse.plaintext("x") }
                }
            }
        } matching: {
            $0.description.contains("header X-Env has a value containing CR, LF or NUL")
        }
        withKnownIssue {
            mock.addResponses(forPath: "/r", responses: [.dictionary(["k": 1], headers: ["X-A": "1\r\n"])])
        } matching: {
            $0.description.contains("header X-A has a value containing CR, LF or NUL")
        }
        try await expectNothingRegistered()
    }

    @Test("a dynamic handler's header with CR/LF fails its request, never reaching the client")
    func headerFromHandler() async throws {
        mock.addResponses(forPath: "/r", responses: [.dynamic { _ in .plaintext("x", headers: ["X-A": "1\r\nX-B: 2"]) }])
        let error = await #expect(throws: HTTPMockError.self) { try await mock.urlSession.reply("https://example.com/r") }
        #expect(error?.message.contains("header X-A has a value containing CR, LF or NUL") == true, "\(String(describing: error))")
    }

    private func loadHAR(_ entry: String) throws -> (HTTPMockError?, String) {
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("archive.har")
        try Data(#"{"log": {"entries": [\#(HARLoadTests.entry()), \#(entry)]}}"#.utf8).write(to: file)
        do {
            try mock.loadHAR(from: file)
            return (nil, file.path)
        } catch let error as HTTPMockError {
            return (error, file.path)
        }
    }

    @Test("a HAR response header with CR/LF or an invalid name fails loadHAR naming the entry and header")
    func harHeaders() async throws {
        let (valueError, file) = try loadHAR(HARLoadTests.entry(headers: #"[{"name": "X-A", "value": "1\r\nSet-Cookie: x=1"}]"#))
        #expect(valueError?.message.contains(file) == true)
        #expect(
            valueError?.message.contains("log.entries[1].response.headers[0]: header X-A has a value containing CR, LF or NUL") == true,
            "\(String(describing: valueError))")
        let (nameError, _) = try loadHAR(HARLoadTests.entry(headers: #"[{"name": "X A", "value": "1"}]"#))
        #expect(nameError?.message.contains("log.entries[1].response.headers[0]: header name \"X A\" is not a valid") == true)
        #expect(mock.describeRoutes().isEmpty)
        #expect(try await mock.urlSession.reply("https://api.example.com/ok").status == 404)
    }

    @Test("a HAR entry with a 1xx status fails loadHAR naming the entry")
    func harInformationalStatus() throws {
        let (error, _) = try loadHAR(HARLoadTests.entry(status: "101"))
        #expect(
            error?.message.contains("log.entries[1].response.status: expected a final HTTP status") == true, "\(String(describing: error))")
    }

    @Test("invalid base64 in a HAR body fails loadHAR naming the entry and field, not an empty body")
    func harInvalidBase64() async throws {
        let (error, _) = try loadHAR(
            HARLoadTests.entry(content: #"{"text": "\#(String(repeating: "*", count: 4096))", "encoding": "base64"}"#))
        #expect(error?.message.contains("log.entries[1].response.content.text: expected base64") == true, "\(String(describing: error))")
        #expect(mock.describeRoutes().isEmpty)
        // White space between lines of base64 stays accepted.
        let (wrapped, _) = try loadHAR(HARLoadTests.entry(content: #"{"text": "aGVs\nbG8=", "encoding": "base64"}"#))
        #expect(wrapped == nil)
    }
}

extension ChildScenarios {
    /// `.connectionLost(afterBytes: Int.max)` trapped on an overflow: run in a child process.
    static func connectionLostIntMax() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/r", responses: [.fault(.connectionLost(afterBytes: Int.max), lifetime: .multiple(2))])
        let delegate = RecordingDelegate()
        mock.delegateSession(delegate).dataTask(with: url("https://example.com/r")).resume()
        try await withWatchdog(30) { await delegate.completion() }
        #expect(delegate.response?.statusCode == 200)
        #expect(delegate.body.count == 1 << 20)
        #expect((delegate.error as? URLError)?.code == .networkConnectionLost)
        let error = await #expect(throws: URLError.self) { try await mock.urlSession.reply("https://example.com/r") }
        #expect(error?.code == .networkConnectionLost)
    }
}

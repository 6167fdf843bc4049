import Foundation
import HTTPMock
import Testing

@Suite("Mistakes at registration are reported precisely and register nothing")
struct RegistrationErrorTests {
    let mock = HTTPMock()

    func expectNothingRegistered(_ path: String = "/r", sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        let reply = try await mock.urlSession.reply("https://example.com\(path)")
        #expect(reply.status == 404, sourceLocation: sourceLocation)
    }

    @Test("an Encodable that fails to encode: failure at the factory's line, nothing registered")
    func unencodable() async throws {
        struct Broken: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "refuses to encode"))
            }
        }
        let line = #line + 1
        let broken = MockResponse.encodable(Broken())
        withKnownIssue {
            mock.addResponses(forPath: "/r", responses: [.plaintext("ok"), broken])
        } matching: { issue in
            issue.description.contains("could not encode a value of type Broken")
                && issue.description.contains("refuses to encode")
                && issue.description.contains("ANY example.com/r, response 2 of 2")
                && issue.sourceLocation?.line == line
        }
        try await expectNothingRegistered()
    }

    @Test("a file that does not exist: its path in the message, nothing registered")
    func missingFile() async throws {
        withKnownIssue {
            mock.addResponses(forPath: "/r", responses: [.file(url: URL(fileURLWithPath: "/no/such/fixture.json"))])
        } matching: { issue in
            issue.description.contains("no file at /no/such/fixture.json")
        }
        try await expectNothingRegistered()
    }

    @Test("a bundle resource that does not exist names the resource and the bundle")
    func missingBundleResource() async throws {
        withKnownIssue {
            mock.addResponses(forPath: "/r", responses: [.file(named: "absent", extension: "json", in: .module)])
        } matching: { issue in
            issue.description.contains("no resource absent.json in bundle")
        }
        try await expectNothingRegistered()
    }

    @Test("a non-JSON value in .dictionary")
    func dictionaryWithNonJSONValue() async throws {
        struct Opaque: Sendable {}
        withKnownIssue {
            mock.addResponses(forPath: "/r", responses: [.dictionary(["k": Opaque()])])
        } matching: { issue in
            issue.description.contains("MockResponse.dictionary holds a value that is not JSON")
        }
        try await expectNothingRegistered()
    }

    @Test("a URL passed as host or path, a query in the path, a bad method, a bad status, a zero lifetime")
    func malformedRoutes() async throws {
        let cases: [(String, () -> Void)] = [
            (
                "must be a host name like \"api.example.com\", not a URL",
                {
                    mock.addResponses(forPath: "/r", host: "https://api.example.com", responses: [.empty()])
                }
            ),
            (
                "is a URL; pass the host as host:",
                {
                    mock.addResponses(forPath: "https://example.com/r", responses: [.empty()])
                }
            ),
            (
                "contains a query; pass query parameters as query:",
                {
                    mock.addResponses(forPath: "/r?x=1", responses: [.empty()])
                }
            ),
            (
                "\"GE T\" is not a valid HTTP method name",
                {
                    mock.addResponses(forPath: "/r", method: "GE T", responses: [.empty()])
                }
            ),
            (
                "status 1000 is not an HTTP status (100...599)",
                {
                    mock.addResponses(forPath: "/r", responses: [.empty(status: 1000)])
                }
            ),
            (
                "lifetime .multiple(0) must serve at least one request",
                {
                    mock.addResponses(forPath: "/r", responses: [.empty(lifetime: .multiple(0))])
                }
            ),
            (
                "the host is empty",
                {
                    mock.addResponses(forPath: "/r", host: "", responses: [.empty()])
                }
            ),
        ]
        for (expected, register) in cases {
            withKnownIssue {
                register()
            } matching: { issue in
                issue.description.contains(expected)
            }
        }
        try await expectNothingRegistered()
        #expect(mock.recordedRequests.count == 1)
    }

    @Test("an .eternal response with more behind it is a warning, and the route is registered")
    func eternalNotLast() async throws {
        mock.addResponses(forPath: "/r", responses: [.plaintext("forever", lifetime: .eternal), .plaintext("never")])
        #expect(try await mock.urlSession.reply("https://example.com/r").text == "forever")
        #expect(try await mock.urlSession.reply("https://example.com/r").text == "forever")
    }
}

import Foundation
import Testing

@testable import HTTPMock

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `BodyMatcher.jsonPath`: WireMock's `matchesJsonPath` matcher for in-process routes. It is the
/// one builder this matcher needed: matching, near misses, specificity and queue sharing come
/// from the one matcher set the DSL is lowered into (issue 45: adding a matcher touches one place).
@Suite("JSONPath body matcher in process")
struct JSONPathBodyTests {

    @Test(".jsonPath matches a body in which the path finds something; the near miss says what it found")
    func matchesAndExplains() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .notFound
        mock.registerResponses {
            Host("api.example.com") {
                Path("/orders", method: .post, body: .jsonPath("$.items[?(@.qty > 1)]")) {
                    MockResponse.plaintext("bulk", lifetime: .eternal)
                }
            }
        }
        #expect(try await mock.urlSession.post("/orders", #"{"items": [{"qty": 1}, {"qty": 3}]}"#) == (200, "bulk"))
        let (status, report) = try await mock.urlSession.post("/orders", #"{"items": [{"qty": 1}]}"#)
        #expect(status == 404)
        #expect(report.contains("body: expected matchesJsonPath"), "\(report)")
        #expect(report.contains("the path found"), "the report says what the path found: \(report)")
        let (notJSON, notJSONReport) = try await mock.urlSession.post("/orders", "qty=3")
        #expect(notJSON == 404 && notJSONReport.contains("not JSON"), "\(notJSONReport)")
    }

    @Test("an expression that does not parse fails at the call site and registers nothing")
    func invalidAtRegistration() {
        let mock = HTTPMock()
        let line = #line + 3
        withKnownIssue {
            mock.registerResponses {
                Path("/a", body: .jsonPath("$.items[?(@.qty >")) { MockResponse.empty() }
            }
        } matching: { issue in
            issue.description.contains("BodyMatcher.jsonPath: $.items[?(@.qty > is not a JSONPath") && issue.sourceLocation?.line == line
        }
        #expect(!mock.describeRoutes().contains("/a"))
    }

    @Test("equal .jsonPath registrations share one queue; a body matcher counts once for specificity")
    func sharesAQueueAndCountsOnce() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/q", host: "api.example.com", method: .post, body: .jsonPath("$.a"), responses: [.plaintext("1")])
        mock.addResponses(
            forPath: "/q", host: "api.example.com", method: .post, body: .jsonPath("$.a"), responses: [.plaintext("2", lifetime: .eternal)])
        // Registered later, with a header and a query too: more constraints, so it wins when both match.
        mock.addResponses(
            forPath: "/q", host: "api.example.com", method: .post, query: ["v": "2"], headers: ["X-Env": "test"], body: .jsonPath("$.a"),
            responses: [.plaintext("specific", lifetime: .eternal)])
        #expect(try await mock.urlSession.post("/q", #"{"a": 1}"#) == (200, "1"))
        #expect(try await mock.urlSession.post("/q", #"{"a": 1}"#) == (200, "2"))
        var request = URLRequest(url: URL(string: "https://api.example.com/q?v=2")!)
        request.httpMethod = "POST"
        request.setValue("test", forHTTPHeaderField: "X-Env")
        request.httpBody = Data(#"{"a": 1}"#.utf8)
        // Both routes match and the shared one still answers (its last response is eternal):
        // the one with more constraints wins (query and headers count once each, like the body).
        #expect(try await mock.urlSession.reply(request).text == "specific")
        #expect(try await mock.urlSession.post("/q", #"{"a": 2}"#) == (200, "2"))
    }
}

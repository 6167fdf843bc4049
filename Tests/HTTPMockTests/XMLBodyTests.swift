import Foundation
import Testing

@testable import HTTPMock

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// XML bodies matched in process, through URLSession: the core's XML reader and XPath, the same
/// ones WireMock mappings use (issue 45.3).
@Suite("XML and XPath body matchers in process")
struct XMLBodyTests {

    @Test(".xml matches a similar document (prefixes, attribute and child order aside); .xPath a selecting expression")
    func xmlAndXPath() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .notFound
        mock.registerResponses {
            Host("api.example.com") {
                Path("/order", method: .post, body: .xml(#"<order id="7" kind="a"><qty>2</qty><sku>X</sku></order>"#)) {
                    MockResponse.plaintext("same order", lifetime: .eternal)
                }
                Path("/soap", method: .post, body: .xPath("//m:Ping[@n > 1]", namespaces: ["m": "urn:app"])) {
                    MockResponse.plaintext("pong", lifetime: .eternal)
                }
            }
        }
        // Attribute order, child order, whitespace and comments do not matter.
        let similar = #"<order kind="a" id="7">  <!-- note --><sku>X</sku>\#n  <qty> 2 </qty></order>"#
        #expect(try await mock.urlSession.post("/order", similar) == (200, "same order"))
        let different = #"<order kind="a" id="7"><sku>X</sku><qty>3</qty></order>"#
        let (status, report) = try await mock.urlSession.post("/order", different)
        #expect(status == 404)
        #expect(report.contains("body: expected equalToXml"), "\(report)")
        #expect(report.contains("qty"), "the report says where the documents differ: \(report)")
        let (notXML, notXMLReport) = try await mock.urlSession.post("/order", "not xml at all")
        #expect(notXML == 404 && notXMLReport.contains("not XML"), "\(notXMLReport)")

        let envelope = #"<s:Envelope xmlns:s="urn:soap" xmlns:x="urn:app"><s:Body><x:Ping n="2"/></s:Body></s:Envelope>"#
        #expect(try await mock.urlSession.post("/soap", envelope) == (200, "pong"))
        #expect(try await mock.urlSession.post("/soap", envelope.replacingOccurrences(of: "n=\"2\"", with: "n=\"1\"")).0 == 404)
    }

    @Test("an expected document that is not XML, or an expression that does not parse, fails at the call site and registers nothing")
    func invalidAtRegistration() async throws {
        let mock = HTTPMock()
        let line = #line + 3
        withKnownIssue {
            mock.registerResponses {
                Path("/a", body: .xml("<unclosed>")) { MockResponse.empty() }
            }
        } matching: { issue in
            issue.description.contains("BodyMatcher.xml: the expected document is not XML") && issue.sourceLocation?.line == line
        }
        withKnownIssue {
            mock.registerResponses {
                Path("/b", body: .xPath("//a[")) { MockResponse.empty() }
            }
        } matching: { issue in
            issue.description.contains("BodyMatcher.xPath: //a[ is not an XPath expression")
        }
        #expect(mock.describeRoutes().isEmpty || !mock.describeRoutes().contains("/a") && !mock.describeRoutes().contains("/b"))
    }

    @Test("equal .xml registrations share one queue, as other equal body matchers do")
    func equalRegistrationsShareAQueue() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/q", host: "api.example.com", method: .post, body: .xml("<a/>"), responses: [.plaintext("1")])
        mock.addResponses(forPath: "/q", host: "api.example.com", method: .post, body: .xml("<a/>"), responses: [.plaintext("2")])
        #expect(try await mock.urlSession.post("/q", "<a></a>") == (200, "1"))
        #expect(try await mock.urlSession.post("/q", "<a/>") == (200, "2"))
    }
}

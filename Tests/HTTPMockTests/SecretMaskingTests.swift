import Foundation
import HTTPMock
import Testing

/// Secrets stay out of what a person reads (SPEC §24): near-miss reports (the 404's body, the
/// journal's report, `verify()`, the log) mask credentials, cookies and well-known secret fields
/// unless `revealSecrets` is set. What code reads (`recordedRequests`) is never masked.
@Suite("Secrets are masked in reports")
struct SecretMaskingTests {
    let mock = HTTPMock()

    init() {
        mock.logHandler = nil
        mock.addResponses(
            forPath: "/login", host: "api.example.com", method: .post, headers: ["Authorization": "Bearer expected-t0ken"],
            body: .jsonContains(["user": "ada"]), responses: [.empty()])
        mock.addResponses(
            forPath: "/search", host: "api.example.com", query: ["access_token": "expected-query-token", "q": "swift"],
            responses: [.empty()])
    }

    func login() -> URLRequest {
        request(
            "https://api.example.com/login?api_key=k3y-in-the-url&page=2", method: "POST",
            body: Data(#"{"user":"grace","pw":"hunter2-secret","profile":{"client_secret":"nested-s3cret","name":"Grace"}}"#.utf8),
            headers: ["Authorization": "Bearer sent-t0ken", "Cookie": "session=c00kie-value; theme=dark", "X-Api-Key": "api-key-value"])
    }

    @Test(
        "a report masks Authorization (keeping its scheme), cookies, API keys, secret query items and JSON fields, and says how to see them"
    )
    func reportIsMasked() async throws {
        let reply = try await mock.urlSession.reply(login())
        let report = reply.text
        #expect(report.hasPrefix("No mock for POST https://api.example.com/login?api_key=REDACTED&page=2\n"))
        #expect(report.contains("headers: expected authorization: Bearer REDACTED, got authorization: Bearer REDACTED"))
        #expect(
            report.contains(#"got {"user":"grace","pw":"REDACTED","profile":{"client_secret":"REDACTED","name":"Grace"}}"#), "\(report)")
        #expect(report.hasSuffix("(secrets shown as REDACTED; revealSecrets = true, or httpmock serve --reveal-secrets, shows them)"))
        for secret in [
            "sent-t0ken", "expected-t0ken", "k3y-in-the-url", "hunter2-secret", "nested-s3cret", "c00kie-value", "api-key-value",
        ] {
            #expect(!report.contains(secret), "\(secret) is in the report")
        }
        // The journal keeps the report as the client got it, and the request as it was sent.
        let entry = try #require(mock.recordedRequests.last)
        #expect(entry.nearMissReport == report)
        #expect(entry.request.headers["Authorization"] == "Bearer sent-t0ken")

        let search = try await mock.urlSession.reply("https://api.example.com/search?access_token=sent-query-token&q=rust")
        #expect(search.text.contains("query: expected access_token=REDACTED, got access_token=REDACTED"))
        #expect(search.text.contains("query: expected q=swift, got q=rust"))
        #expect(!search.text.contains("query-token"))
    }

    @Test("revealSecrets = true shows them as sent")
    func revealSecrets() async throws {
        #expect(mock.revealSecrets == false)
        mock.revealSecrets = true
        let report = try await mock.urlSession.reply(login()).text
        #expect(report.contains("headers: expected authorization: Bearer expected-t0ken, got authorization: Bearer sent-t0ken"))
        #expect(report.contains("api_key=k3y-in-the-url"))
        #expect(report.contains(#""pw":"hunter2-secret""#))
        #expect(!report.contains("REDACTED"))
    }

    @Test("the masking rules: header values, URLs, JSON (its layout kept, cut short or not) and form bodies")
    func rules() {
        #expect(SecretMasking.headerValue("Basic YWRhOnB3", named: "authorization") == "Basic REDACTED")
        #expect(SecretMasking.headerValue("t0ken", named: "Proxy-Authorization") == "REDACTED")
        #expect(SecretMasking.headerValue("a=1; b=2", named: "Cookie") == "a=REDACTED; b=REDACTED")
        #expect(SecretMasking.headerValue("id=42; Path=/; HttpOnly", named: "Set-Cookie") == "id=REDACTED; Path=/; HttpOnly")
        #expect(SecretMasking.headerValue("abc", named: "X-Auth-Token") == "REDACTED")
        #expect(SecretMasking.headerValue("text/plain", named: "Content-Type") == "text/plain")
        #expect(SecretMasking.url("/x?token=1&max_tokens=5&password=p#top") == "/x?token=REDACTED&max_tokens=5&password=REDACTED#top")
        #expect(SecretMasking.url("https://h/x") == "https://h/x")
        #expect(
            SecretMasking.bodyText("{\n  \"password\" : \"p\\\"w\",\n  \"n\": 1\n}") == "{\n  \"password\" : \"REDACTED\",\n  \"n\": 1\n}")
        #expect(
            SecretMasking.bodyText(#"[{"token": 12345, "credentials": {"a": [1, "}"]}, "ok": true}]"#)
                == #"[{"token": "REDACTED", "credentials": "REDACTED", "ok": true}]"#)
        #expect(SecretMasking.bodyText(#"{"user":"ada","pw":"hunt"#) == #"{"user":"ada","pw":"REDACTED""#)
        #expect(SecretMasking.bodyText("user=ada&pw=hunter2") == "user=ada&pw=REDACTED")
        #expect(SecretMasking.bodyText("plain text, pw=not a form") == "plain text, pw=not a form")
        #expect(
            SecretMasking.maskingExpectations(in: #"header Authorization: expected equalTo "Bearer abc", got Bearer xyz"#)
                == #"header Authorization: expected equalTo "Bearer REDACTED", got Bearer xyz"#)
        #expect(
            SecretMasking.maskingExpectations(in: #"queryParameters.api_key: expected matches "k.*""#)
                == #"queryParameters.api_key: expected matches "REDACTED""#)
        #expect(
            SecretMasking.maskingExpectations(in: #"header Accept: expected equalTo "a/b""#) == #"header Accept: expected equalTo "a/b""#)
        #expect(
            SecretMasking.isSecretKey("accessToken") && SecretMasking.isSecretKey("client_secret")
                && !SecretMasking.isSecretKey("max_tokens"))
    }
}

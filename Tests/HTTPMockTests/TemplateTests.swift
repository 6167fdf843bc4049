import Foundation
import HTTPMock
import Testing

@Suite("Templates: bodies rendered from the request and the store")
struct TemplateTests {
    let mock = HTTPMock()

    @Test("the SPEC §16 example: path parameter and store, read at request time")
    func specExample() async throws {
        mock.store["user"] = "Ada"
        mock.addResponses(
            forPath: "/orders/:id",
            responses: [
                .template(
                    #"{"id":"{{request.pathParameters.id}}","by":"{{store.user}}"}"#, contentType: "application/json",
                    lifetime: .eternal)
            ])
        let first = try await mock.urlSession.reply("https://example.com/orders/42")
        #expect(first.status == 200)
        #expect(first.header("Content-Type") == "application/json")
        #expect(first.text == #"{"id":"42","by":"Ada"}"#)
        mock.store["user"] = "Grace"
        #expect(
            try await mock.urlSession.replyViaCompletionHandler(request("https://example.com/orders/7")).text
                == #"{"id":"7","by":"Grace"}"#)
    }

    @Test("every request name, through a real URLSession")
    func requestNames() async throws {
        mock.addResponses(
            forPath: "/echo/:kind", method: .post,
            responses: [
                .template(
                    """
                    {{request.method}} {{request.url}}
                    path={{request.path}} kind={{request.pathParameters.kind}}
                    q={{request.query.q}} missing=[{{request.query.nope}}]
                    trace={{request.headers.x-trace}} TRACE={{request.headers.X-Trace}}
                    user={{request.json.user.name}} n={{request.json.count}} tags={{#request.json.tags}}<{{.}}>{{/request.json.tags}}
                    {{^request.json.admin}}not admin{{/request.json.admin}}
                    """, status: .created, headers: ["X-Templated": "yes"])
            ])
        let response = MockResponse.template("x", contentType: "application/json", status: .accepted)
        #expect(response.status == 202)
        #expect(response.headers["content-type"] == "application/json")
        let body = #"{"user":{"name":"Ada"},"count":3,"tags":["a","b"],"admin":false}"#
        let reply = try await mock.urlSession.reply(
            request(
                "https://example.com/echo/json?q=swift", method: "POST", body: Data(body.utf8),
                headers: ["Content-Type": "application/json", "X-Trace": "t-1"]))
        #expect(reply.status == 201)
        #expect(reply.header("X-Templated") == "yes")
        #expect(reply.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(
            reply.text == """
                POST https://example.com/echo/json?q=swift
                path=/echo/json kind=json
                q=swift missing=[]
                trace=t-1 TRACE=t-1
                user=Ada n=3 tags=<a><b>
                not admin
                """)
    }

    @Test("form, store lists, now and uuid")
    func formStoreNowUUID() async throws {
        mock.store["items"] = [["sku": 1, "name": "tea"], ["sku": 2, "name": "cake"]]
        mock.addResponses(
            forPath: "/form", method: .post,
            responses: [
                .template("{{request.form.name}}|{{#store.items}}{{sku}}:{{name}};{{/store.items}}|{{now}}|{{uuid}}")
            ])
        let reply = try await mock.urlSession.reply(
            request(
                "https://example.com/form", method: "POST", body: Data("name=Ada+L".utf8),
                headers: ["Content-Type": "application/x-www-form-urlencoded"]))
        let parts = reply.text.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 4)
        #expect(parts[0] == "Ada L")
        #expect(parts[1] == "1:tea;2:cake;")
        #expect(ISO8601DateFormatter().date(from: parts[2]) != nil, "now: \(parts[2])")
        #expect(UUID(uuidString: parts[3]) != nil, "uuid: \(parts[3])")
    }

    @Test("a malformed template fails at registration with its position, nothing registered")
    func malformed() async throws {
        let line = #line + 1
        let malformed = MockResponse.template("{\n  {{#request.query.a}}open")
        withKnownIssue {
            mock.addResponses(forPath: "/t", responses: [malformed])
        } matching: { issue in
            issue.description.contains("MockResponse.template: 2:3: {{#request.query.a}} is never closed")
                && issue.sourceLocation?.line == line
        }
        #expect(try await mock.urlSession.reply("https://example.com/t").status == 404)
    }

    @Test("an unknown root fails at registration, nothing registered")
    func unknownRoot() async throws {
        withKnownIssue {
            mock.addResponses(forPath: "/t", responses: [.plaintext("ok"), .template("hi {{user.name}}")])
        } matching: { issue in
            issue.description.contains(#"1:4: unknown name "user.name": names start with request, store, now, uuid"#)
        }
        withKnownIssue {
            mock.addResponses(forPath: "/t", responses: [.template("{{request.body}}")])
        } matching: { issue in
            issue.description.contains(#"unknown name "request.body": request has method, url, path"#)
        }
        #expect(try await mock.urlSession.reply("https://example.com/t").status == 404)
    }
}

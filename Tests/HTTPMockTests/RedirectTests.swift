import Foundation
import HTTPMock
import Testing

@Suite("Redirects, followed inside HTTPMock")
struct RedirectTests {
    let mock = HTTPMock()

    @Test("a redirect is followed; the final response carries the final URL; each hop is journaled")
    func followed() async throws {
        mock.addResponses(forPath: "/old", responses: [.redirect(to: "/new")])
        mock.addResponses(forPath: "/new", responses: [.plaintext("new home")])
        let reply = try await mock.urlSession.reply("https://example.com/old?keep=1")
        #expect(reply.status == 200)
        #expect(reply.text == "new home")
        #expect(reply.response.url?.absoluteString == "https://example.com/new")
        #expect(mock.recordedRequests.map(\.request.url.path) == ["/old", "/new"])
        #expect(mock.recordedRequests.map(\.statusCode) == [302, 200])
    }

    @Test("absolute locations, other hosts, and any 3xx mock with a Location")
    func absoluteAndAnyStatus() async throws {
        mock.addResponses(
            forPath: "/a", responses: [.empty(status: .permanentRedirect, headers: ["Location": "https://cdn.example.net/b"])])
        mock.addResponses(forPath: "/b", host: "cdn.example.net", responses: [.plaintext("cdn")])
        let reply = try await mock.urlSession.replyViaCompletionHandler(request("https://example.com/a"))
        #expect(reply.text == "cdn")
        #expect(reply.response.url?.host == "cdn.example.net")
    }

    @Test(
        "303, and 301/302 after POST, become GET without body; 307/308 keep method and body",
        arguments: [
            (303, "POST", "GET", false), (302, "POST", "GET", false), (301, "POST", "GET", false),
            (302, "PUT", "PUT", true), (307, "POST", "POST", true), (308, "PUT", "PUT", true), (303, "HEAD", "HEAD", false),
        ])
    func methodRewriting(status: Int, method: String, expectedMethod: String, keepsBody: Bool) async throws {
        mock.addResponses(forPath: "/submit", responses: [.redirect(to: "/result", status: HTTPStatus(status))])
        mock.addResponses(forPath: "/result", responses: [.empty(status: .ok)])
        _ = try await mock.urlSession.reply(
            request(
                "https://example.com/submit", method: method, body: Data("form".utf8),
                headers: ["Content-Type": "text/plain"]))
        let hop = try #require(mock.requests(to: "/result").first)
        #expect(hop.request.method.rawValue == expectedMethod)
        #expect((hop.request.body != nil) == keepsBody)
        #expect((hop.request.headers["Content-Type"] != nil) == keepsBody)
    }

    @Test("after 16 hops: URLError(.httpTooManyRedirects)")
    func tooManyRedirects() async throws {
        mock.addResponses(forPath: "/loop", responses: [.redirect(to: "/loop", lifetime: .eternal)])
        let error = await #expect(throws: URLError.self) { _ = try await mock.urlSession.reply("https://example.com/loop") }
        #expect(error?.code == .httpTooManyRedirects)
        #expect(mock.recordedRequests.count == 17)
    }

    @Test("followsRedirects = false returns the 3xx as is")
    func notFollowed() async throws {
        mock.followsRedirects = false
        mock.addResponses(forPath: "/old", responses: [.redirect(to: "/new", status: .movedPermanently)])
        let reply = try await mock.urlSession.reply("https://example.com/old")
        #expect(reply.status == 301)
        #expect(reply.header("Location") == "/new")
        #expect(mock.recordedRequests.count == 1)
    }

    @Test("a session delegate can refuse a redirect, and then receives the 3xx")
    func delegateRefuses() async throws {
        final class Refuser: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
            let asked = Captured<URL>()
            func urlSession(
                _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
            ) {
                asked.set(request.url ?? URL(fileURLWithPath: "/"))
                completionHandler(nil)
            }
        }
        mock.addResponses(forPath: "/old", responses: [.redirect(to: "/new")])
        let refuser = Refuser()
        let session = URLSession(configuration: mock.makeSessionConfiguration(), delegate: refuser, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let reply = try await session.replyViaCompletionHandler(request("https://example.com/old"))
        #expect(reply.status == 302)
        #expect(refuser.asked.value?.absoluteString == "https://example.com/new")
    }

    @Test("a cookie set by a redirect hop is sent on the next hop")
    func cookiesAcrossHops() async throws {
        mock.addResponses(
            forPath: "/login", responses: [.redirect(to: "/home", status: .seeOther, headers: ["Set-Cookie": "session=abc; Path=/"])])
        mock.addResponses(forPath: "/home", responses: [.plaintext("home")])
        _ = try await mock.urlSession.reply(request("https://example.com/login", method: "POST"))
        #expect(mock.requests(to: "/home").first?.request.headers["Cookie"] == "session=abc")
    }
}

@Suite("Cookies")
struct CookieTests {
    @Test("Set-Cookie of a mocked response is stored; later requests through the instance's sessions carry it")
    func storedAndSent() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/login", responses: [.empty(status: .ok, headers: ["Set-Cookie": "token=t1; Path=/"])])
        mock.addResponses(forPath: "/me", responses: [.plaintext("me", lifetime: .multiple(2))])

        _ = try await mock.urlSession.reply("https://example.com/login")
        #expect(mock.cookieStorage.cookies(for: url("https://example.com/"))?.map(\.value) == ["t1"])

        _ = try await mock.urlSession.reply("https://example.com/me")
        #expect(mock.requests(to: "/me").last?.request.headers["Cookie"] == "token=t1")

        // Another session built from the instance shares the storage.
        let session = URLSession(configuration: mock.makeSessionConfiguration())
        defer { session.finishTasksAndInvalidate() }
        _ = try await session.reply("https://example.com/me")
        #expect(mock.requests(to: "/me").last?.request.headers["Cookie"] == "token=t1")
    }

    @Test("several cookies in one Set-Cookie value joined with ', '")
    func severalCookies() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/c", responses: [.empty(headers: ["Set-Cookie": "a=1; Path=/, b=2; Path=/; HttpOnly"])])
        _ = try await mock.urlSession.reply("https://example.com/c")
        let names = mock.cookieStorage.cookies(for: url("https://example.com/"))?.map(\.name).sorted()
        #expect(names == ["a", "b"])
    }

    @Test("a session with httpShouldSetCookies = false stores nothing; instances do not share cookies")
    func respectsConfiguration() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/c", responses: [.empty(headers: ["Set-Cookie": "a=1"], lifetime: .eternal)])
        let configuration = mock.makeSessionConfiguration()
        configuration.httpShouldSetCookies = false
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        _ = try await session.reply("https://example.com/c")
        #expect(mock.cookieStorage.cookies?.isEmpty == true)

        _ = try await mock.urlSession.reply("https://example.com/c")
        #expect(mock.cookieStorage.cookies?.count == 1)
        #expect(HTTPMock().cookieStorage.cookies?.isEmpty == true)
    }
}

@Suite("URLSession.shared")
struct SharedSessionTests {
    @Test("interceptSharedSession() says false, with a warning naming the cause and fix, once URLSession.shared has been used")
    func lateInterceptionIsReported() async throws {
        // Make sure URLSession.shared has taken its snapshot of protocol classes.
        _ = try? await URLSession.shared.data(from: url("http://127.0.0.1:9/"))
        let mock = HTTPMock()
        var result = true
        withKnownIssue {
            result = mock.interceptSharedSession()
        } matching: { issue in
            issue.severity == .warning && issue.description.contains("snapshots the registered URLProtocol classes")
                && issue.description.contains("before anything makes or uses a URLSession")
        }
        #expect(result == false)
        mock.stopInterceptingSharedSession()
    }
}

import Foundation
import HTTPMock
import Testing

#if canImport(Glibc)
import Glibc
#endif

// SPEC §11, the promises that can be proved inside the test process. The Guarantees article
// (Docs/HTTPMock.docc/Guarantees.md) lists which test proves which promise.

@Suite("Trust: no network for other schemes")
struct TrustSchemeTests {
    let mock = HTTPMock()

    init() { mock.logHandler = nil }

    @Test(
        "ftp, ws, file and unknown schemes through mock.urlSession fail with .unsupportedURL naming the scheme, journaled, never reaching the network",
        arguments: ["ftp://127.0.0.1:9/file.txt", "ws://127.0.0.1:9/socket", "file:///etc/hostname", "gopher://127.0.0.1:9/"])
    func otherSchemesThroughTheInstanceSession(_ address: String) async throws {
        let scheme = try #require(url(address).scheme)
        do {
            _ = try await mock.urlSession.data(from: url(address))
            Issue.record("\(address) was answered")
        } catch let error as URLError {
            #expect(error.code == .unsupportedURL)
            #expect(error.localizedDescription.contains("\(scheme):"))
            #expect(error.localizedDescription.contains("never reaches the network"))
        }
        #expect(mock.recordedRequests.count == 1)
        #expect(mock.recordedRequests.first?.isMatched == false)
    }

    @Test("the same through a session built from makeSessionConfiguration(), completion-handler API")
    func otherSchemesThroughAConfiguredSession() async throws {
        let session = URLSession(configuration: mock.makeSessionConfiguration())
        await #expect(throws: URLError.self) {
            _ = try await session.replyViaCompletionHandler(request("ftp://127.0.0.1:9/x"))
        }
        do {
            _ = try await session.replyViaCompletionHandler(request("ftp://127.0.0.1:9/x"))
        } catch let error as URLError {
            #expect(error.code == .unsupportedURL)
        }
    }

    @Test("data: URLs are still decoded by Foundation (they never touch a network)")
    func dataURLs() async throws {
        let (data, _) = try await mock.urlSession.data(from: url("data:text/plain,hello"))
        #expect(String(decoding: data, as: UTF8.self) == "hello")
        // In any case of the scheme, a data: URL gets what a session without HTTPMock gives it.
        let plain = URLSession(configuration: .ephemeral)
        defer { plain.finishTasksAndInvalidate() }
        func outcome(_ session: URLSession, _ string: String) async -> String {
            do {
                let (data, _) = try await session.data(from: url(string))
                return "data: " + String(decoding: data, as: UTF8.self)
            } catch {
                return "error: \((error as? URLError)?.code.rawValue ?? 0)"
            }
        }
        for string in ["DATA:text/plain,upper", "Data:text/plain,mixed", "data:,"] {
            let expected = await outcome(plain, string)
            #expect(await outcome(mock.urlSession, string) == expected, "\(string)")
        }
        #expect(mock.recordedRequests.isEmpty)
    }
}

@Suite("Trust: atomic registration")
struct TrustAtomicRegistrationTests {
    @Test("a concurrent reader never sees a DSL block half-registered: neither through URLSession nor counting routes")
    func batchesBecomeVisibleAtOnce() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        let routes = 2000
        let partial = Box<[Int]>([])
        let done = Box(false)
        // Counts the routes while the block registers: any count but 0 or all is a partial view.
        let counter = Thread {
            while !done.value {
                let description = mock.describeRoutes()
                let count = description.isEmpty ? 0 : description.split(separator: "\n").count
                if count != 0, count != routes { partial.value.append(count) }
                usleep(200)  // leave the 2 cores to the other tests running in parallel
            }
        }
        counter.start()
        // Asks for the first and then the last route through URLSession: the first without the
        // last is a partial registration.
        let reader = Task {
            var seenPartially = 0
            while !done.value {
                let first = try await mock.urlSession.reply("https://batch.test/r0").status
                let last = try await mock.urlSession.reply("https://batch.test/r\(routes - 1)").status
                if first == 200, last != 200 { seenPartially += 1 }
                try await Task.sleep(nanoseconds: 200_000)
            }
            return seenPartially
        }
        try await Task.sleep(nanoseconds: 20_000_000)
        mock.registerResponses {
            Host("batch.test") {
                for index in 0..<routes {
                    Path("/r\(index)") { MockResponse.plaintext("\(index)", lifetime: .eternal) }
                }
            }
        }
        try await Task.sleep(nanoseconds: 20_000_000)
        done.value = true
        #expect(try await reader.value == 0)
        while counter.isExecuting { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(partial.value.isEmpty, "partial route counts seen: \(partial.value.prefix(10))")
        #expect(try await mock.urlSession.reply("https://batch.test/r\(routes - 1)").text == "\(routes - 1)")
    }

    @Test("a concurrent reader never sees a loadMocks tree half-registered")
    func mockTreesBecomeVisibleAtOnce() async throws {
        let routes = 300
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-tree-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for index in 0..<routes {
            let folder = root.appendingPathComponent("r\(index)/GET")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(#"{"status_code": 200, "lifetime": "eternal"}"#.utf8)
                .write(to: folder.appendingPathComponent("configuration.json"))
        }
        let mock = HTTPMock()
        mock.logHandler = nil
        let done = Box(false)
        let reader = Task {
            var seenPartially = 0
            while !done.value {
                let first = try await mock.urlSession.reply("https://tree.test/r0").status
                let last = try await mock.urlSession.reply("https://tree.test/r\(routes - 1)").status
                if first == 200, last != 200 { seenPartially += 1 }
                try await Task.sleep(nanoseconds: 200_000)
            }
            return seenPartially
        }
        try await Task.sleep(nanoseconds: 20_000_000)
        try mock.loadMocks(from: root, host: "tree.test")
        try await Task.sleep(nanoseconds: 20_000_000)
        done.value = true
        #expect(try await reader.value == 0)
        #expect(mock.describeRoutes().split(separator: "\n").count == routes)
        #expect(try await mock.urlSession.reply("https://tree.test/r\(routes - 1)").status == 200)
    }
}

@Suite("Trust: invalid settings")
struct TrustSettingsTests {
    @Test(
        "timeout and defaultDelay reject NaN, negative, zero (timeout) and infinite values with a failure naming the property and value; the previous value stays",
        arguments: [Double.nan, -1, .infinity, -.infinity])
    func invalidValuesAreRejected(_ value: Double) async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.timeout = 5
        withKnownIssue {
            mock.timeout = value
        } matching: { issue in
            issue.description.contains("timeout must be a finite number of seconds greater than 0, got \(value)")
                && issue.description.contains("keeps timeout = 5.0")
        }
        #expect(mock.timeout == 5)
        withKnownIssue {
            mock.defaultDelay = value
        } matching: { issue in
            issue.description.contains("defaultDelay must be a finite number of seconds, 0 or more, got \(value)")
        }
        #expect(mock.defaultDelay == 0)

        mock.addResponses(forPath: "/fast", responses: [.plaintext("fast")])
        // A rejected delay applied would hold the request until the instance's 5 s timeout, which
        // fails it: the answer itself shows no delay was applied (no wall-clock bound: SPEC §23).
        #expect(try await mock.urlSession.reply("https://example.com/fast").text == "fast")
    }

    @Test("a zero timeout is rejected too; valid values are taken")
    func zeroTimeout() {
        let mock = HTTPMock()
        withKnownIssue {
            mock.timeout = 0
        } matching: {
            $0.description.contains("timeout must be")
        }
        #expect(mock.timeout == 15)
        mock.timeout = 0.5
        mock.defaultDelay = 0
        #expect(mock.timeout == 0.5)
    }
}

@Suite("Trust: log handlers")
struct TrustLogHandlerTests {
    @Test("one instance's slow logHandler delays neither another instance's requests nor its own request's timeout; events stay in order")
    func slowLogHandlerIsIsolated() async throws {
        // Ordered by events, not timed (SPEC §23): each handler call blocks until the test lets it
        // go, and what must not wait for it happens while it is still blocked.
        let slow = HTTPMock()
        let started = AsyncSignal()
        let events = Box<[String]>([])
        let returned = Box<Int>(0)
        let letGo = DispatchSemaphore(value: 0)
        slow.logHandler = { event in
            events.value.append(event.request.url.path)
            started.fire()
            _ = letGo.wait(timeout: .now() + 60)
            returned.value += 1
        }
        slow.addResponses(forPath: "/a", responses: [.plaintext("a")])
        slow.addResponses(forPath: "/b", responses: [.plaintext("b")])
        let fast = HTTPMock()
        fast.addResponses(forPath: "/fast", responses: [.plaintext("fast", lifetime: .eternal)])

        let slowRequest = Task { try await slow.urlSession.reply("https://example.com/a").text }
        await started.wait()
        #expect(try await fast.urlSession.reply("https://example.com/fast").text == "fast")
        #expect(try await fast.urlSession.replyViaCompletionHandler(request("https://example.com/fast")).text == "fast")
        #expect(returned.value == 0, "another instance waited for a log handler")
        letGo.signal()
        #expect(try await slowRequest.value == "a")

        // A blocked handler: the request still ends at its own timeout, the handler still blocked.
        var timed = request("https://example.com/b")
        timed.timeoutInterval = 0.5
        await #expect(throws: URLError.self) { _ = try await slow.urlSession.reply(timed) }
        #expect(returned.value == 1, "the request's timeout waited for its log handler")
        letGo.signal()
        for _ in 0..<3000 where returned.value < 2 { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(events.value == ["/a", "/b"])
    }
}

@Suite("Trust: like a real server on the wire")
struct TrustWireTests {
    @Test("each redirect hop gets the request timeout afresh; the instance timeout still bounds the whole chain")
    func redirectHopsResetTheRequestTimeout() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        for hop in 0..<3 {
            mock.addResponses(
                forPath: "/hop\(hop)", responses: [.redirect(to: "/hop\(hop + 1)", lifetime: .eternal, delivery: .delayed(0.4))])
        }
        mock.addResponses(forPath: "/hop3", responses: [.plaintext("arrived", lifetime: .eternal, delivery: .delayed(0.4))])
        var timed = request("https://example.com/hop0")
        timed.timeoutInterval = 0.7  // each hop takes 0.4 s; the chain 1.6 s
        let reply = try await mock.urlSession.reply(timed)
        #expect(reply.text == "arrived")
        #expect(reply.response.url?.path == "/hop3")

        mock.timeout = 1.0
        do {
            _ = try await mock.urlSession.reply(timed)
            Issue.record("the chain outlived the instance timeout")
        } catch let error as URLError {
            #expect(error.code == .timedOut)
        }
    }

    @Test("a delegate that takes longer per chunk than the request timeout is a slow consumer, not server silence")
    func slowConsumerDoesNotTimeOut() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        // 1,000 B/s streams 100-byte chunks: three chunks.
        mock.addResponses(forPath: "/slow-reader", responses: [.data(Data(count: 300), delivery: .throttled(bytesPerSecond: 1000))])
        let delegate = RecordingDelegate(onChunk: { _ in Thread.sleep(forTimeInterval: 0.8) })
        let configuration = mock.makeSessionConfiguration()
        configuration.timeoutIntervalForRequest = 0.5
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        session.dataTask(with: url("https://example.com/slow-reader")).resume()
        await delegate.completion()
        #expect(delegate.error == nil)
        #expect(delegate.byteCount == 300)
        session.finishTasksAndInvalidate()
    }

    @Test(
        "cookies: Secure only over https, Domain must domain-match and not be a public suffix, Max-Age expires, default Path is the request's directory"
    )
    func cookiesFollowRFC6265() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        func set(_ cookie: String, at address: String) async throws {
            let path = url(address).path
            mock.addResponses(forPath: path, host: url(address).host, responses: [.empty(headers: ["Set-Cookie": cookie])])
            _ = try await mock.urlSession.reply(address)
        }
        func names() -> Set<String> { Set((mock.cookieStorage.cookies ?? []).map(\.name)) }

        try await set("insecure=1; Secure", at: "http://shop.example.com/s1")
        try await set("tld=1; Domain=com", at: "https://shop.example.com/s2")
        try await set("foreign=1; Domain=other.org", at: "https://shop.example.com/s3")
        #expect(names().isEmpty)

        try await set("secure=1; Secure", at: "https://shop.example.com/s4")
        try await set("parent=1; Domain=example.com", at: "https://shop.example.com/s5")
        try await set("short=1; Max-Age=100", at: "https://shop.example.com/s6")
        #expect(names() == ["secure", "parent", "short"])
        #expect(mock.cookieStorage.cookies?.first { $0.name == "short" }?.expiresDate.map { $0 > Date() } == true)

        try await set("short=gone; Max-Age=0", at: "https://shop.example.com/s7")
        #expect(names() == ["secure", "parent"])

        try await set("scoped=1", at: "https://shop.example.com/account/login")
        #expect(mock.cookieStorage.cookies?.first { $0.name == "scoped" }?.path == "/account")
    }

    @Test("cookies sent on HTTPMock's own redirect hops obey Path and Secure")
    func redirectHopsSendMatchingCookies() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(
            forPath: "/login", host: "site.test",
            responses: [
                .redirect(
                    to: "http://site.test/public/page",
                    headers: ["Set-Cookie": "admin=1; Path=/admin, secret=1; Secure, everywhere=1; Path=/"])
            ])
        mock.addResponses(forPath: "/public/page", host: "site.test", responses: [.plaintext("page")])
        _ = try await mock.urlSession.reply("https://site.test/login")
        let hop = mock.requests(to: "/public/page").first
        #expect(hop?.request.headers["Cookie"] == "everywhere=1")
    }

    @Test(".file of a FIFO fails at once with an error naming it; a /proc file (size 0, content when read) is served whole")
    func specialFiles() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-fifo-\(UUID().uuidString)")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(at: fifo) }
        mock.addResponses(forPath: "/fifo", responses: [.file(url: fifo)])
        var timed = request("https://example.com/fifo")
        timed.timeoutInterval = 3
        do {
            _ = try await mock.urlSession.reply(timed)
            Issue.record("a FIFO was served")
        } catch let error as HTTPMockError {
            #expect(error.code == .fixtureUnreadable)
            #expect(error.message.contains(fifo.path))
            #expect(error.message.contains("regular files"))
        }

        #if os(Linux)
        mock.addResponses(forPath: "/proc", responses: [.file(url: URL(fileURLWithPath: "/proc/self/status"))])
        let reply = try await mock.urlSession.reply("https://example.com/proc")
        #expect(reply.status == 200)
        #expect(reply.text.contains("Name:"))
        #endif
    }
}

@Suite("Trust: passthrough")
struct TrustPassthroughTests {
    @Test("a passthrough answer that the network redirected carries its final URL")
    func passthroughCarriesTheFinalURL() async throws {
        let server = try await TestServer.started()
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.unmockedPolicy = .passthrough
        let reply = try await mock.urlSession.reply("\(server.baseURL)/redirect")
        #expect(reply.text == "hello from python")
        #expect(reply.response.url?.path == "/hello")
    }
}

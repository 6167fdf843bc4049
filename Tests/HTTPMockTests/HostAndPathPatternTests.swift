import Foundation
import HTTPMock
import Testing

/// Runs `work` in its own task and waits at most `seconds` for it: a regression to
/// exponential matching fails the test instead of hanging the suite (the stray task is left
/// to finish on its own).
private func withPatternWatchdog<Value: Sendable>(
    seconds: Double, sourceLocation: Testing.SourceLocation = #_sourceLocation,
    _ work: @escaping @Sendable () async throws -> Value
) async throws -> Value? {
    let once = WatchdogOnce()
    let result: Result<Value, any Error>? = await withCheckedContinuation { continuation in
        Task {
            let outcome: Result<Value, any Error>
            do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            if once.claim() { continuation.resume(returning: outcome) }
        }
        Task {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            if once.claim() { continuation.resume(returning: nil) }
        }
    }
    guard let result else {
        Issue.record("did not finish within \(seconds) s", sourceLocation: sourceLocation)
        return nil
    }
    return try result.get()
}

/// Whichever of the work and the timer finishes first resumes the continuation.
private final class WatchdogOnce: @unchecked Sendable {
    // @unchecked: `resumed` is only touched under `lock`.
    private let lock = NSLock()
    private var resumed = false
    func claim() -> Bool {
        lock.withLock {
            defer { resumed = true }
            return !resumed
        }
    }
}

@Suite("Host and path patterns through URLSession: in-segment wildcards, IPv6, IDN, encoded slashes, cost")
struct HostAndPathPatternTests {
    let mock = HTTPMock()

    init() {
        mock.logHandler = nil  // some requests miss on purpose
    }

    func send(_ url: String) async throws -> Reply {
        try await mock.urlSession.reply(request(url))
    }

    @Test("a * inside a segment or label is a glob that never crosses / or .")
    func inSegmentWildcards() async throws {
        mock.addResponses(forPath: "/files/*.json", responses: [.plaintext("json", lifetime: .eternal)])
        mock.addResponses(forPath: "/api/v*/users", responses: [.plaintext("users", lifetime: .eternal)])
        mock.addResponses(forPath: "/a/*-*", responses: [.plaintext("dash", lifetime: .eternal)])
        mock.addResponses(forPath: "/h", host: "api-*.example.com", responses: [.plaintext("api-host", lifetime: .eternal)])

        #expect(try await send("https://example.com/files/report.json").text == "json")
        #expect(try await send("https://example.com/files/report.txt").status == 404)
        #expect(try await send("https://example.com/files/dir/report.json").status == 404)
        #expect(try await send("https://example.com/api/v2/users").text == "users")
        #expect(try await send("https://example.com/api/beta/users").status == 404)
        #expect(try await send("https://example.com/a/x-y").text == "dash")
        #expect(try await send("https://example.com/a/xy").status == 404)
        #expect(try await send("https://api-staging.example.com/h").text == "api-host")
        #expect(try await send("https://api.example.com/h").status == 404)
        #expect(try await send("https://api-a.b.example.com/h").status == 404)
    }

    @Test("an in-segment * weighs 1 and its literal characters count, so the more literal pattern wins")
    func inSegmentSpecificity() async throws {
        mock.registerResponses {
            Path("/files/*") { MockResponse.plaintext("any file", lifetime: .eternal) }
            Path("/files/*.json") { MockResponse.plaintext("json file", lifetime: .eternal) }
            Path("/files/**") { MockResponse.plaintext("anything below", lifetime: .eternal) }
            Path("/files/report.json") { MockResponse.plaintext("exact", lifetime: .eternal) }
        }
        #expect(try await send("https://example.com/files/a.json").text == "json file")
        #expect(try await send("https://example.com/files/a.txt").text == "any file")
        #expect(try await send("https://example.com/files/report.json").text == "exact")
        #expect(try await send("https://example.com/files/a/b.json").text == "anything below")
    }

    @Test("bstien/HTTPMock's specificity table and tie-breaker hold")
    func upstreamTieBreaker() async throws {
        mock.registerResponses {
            // Registered before the patterns it must beat, so order cannot be what decides.
            Host("*.example.*") { Path("/") { MockResponse.plaintext("two single wildcards", lifetime: .eternal) } }
            Host("**.example.com") { Path("/") { MockResponse.plaintext("multi wildcard", lifetime: .eternal) } }
        }
        // Both have two wildcards; `**.example.com` has the longer literal, so it wins.
        #expect(try await send("https://api.example.com/").text == "multi wildcard")
        #expect(try await send("https://api.example.org/").text == "two single wildcards")

        let table = HTTPMock()
        table.registerResponses {
            Host("**.example.com") { Path("/") { MockResponse.plaintext("multi", lifetime: .eternal) } }
            Host("*.example.com") { Path("/") { MockResponse.plaintext("single", lifetime: .eternal) } }
            Host("api.example.com") { Path("/") { MockResponse.plaintext("exact", lifetime: .eternal) } }
        }
        #expect(try await table.urlSession.reply("https://api.example.com/").text == "exact")
        #expect(try await table.urlSession.reply("https://api-test.example.com/").text == "single")
        #expect(try await table.urlSession.reply("https://api.staging.example.com/").text == "multi")
    }

    @Test("IPv6 route hosts are written and matched in brackets, in any textual form")
    func ipv6Hosts() async throws {
        mock.addResponses(forPath: "/v6", host: "[::1]:8080", responses: [.plaintext("port 8080", lifetime: .eternal)])
        mock.addResponses(forPath: "/any", host: "[::1]", responses: [.plaintext("any port", lifetime: .eternal)])
        #expect(try await send("http://[::1]:8080/v6").text == "port 8080")
        #expect(try await send("http://[0:0:0:0:0:0:0:1]:8080/v6").text == "port 8080")
        #expect(try await send("http://[::1]:9090/v6").status == 404)
        #expect(try await send("http://[::1]/any").text == "any port")
        #expect(try await send("http://[::2]/any").status == 404)
        #expect(mock.recordedRequests.map(\.isMatched) == [true, true, false, true, false])
    }

    @Test("internationalised host names match in their Unicode or their punycode form")
    func idnHosts() async throws {
        mock.addResponses(forPath: "/u", host: "bücher.example", responses: [.plaintext("unicode route", lifetime: .eternal)])
        mock.addResponses(forPath: "/p", host: "xn--bcher-kva.example", responses: [.plaintext("punycode route", lifetime: .eternal)])
        mock.addResponses(forPath: "/w", host: "*.bücher.example", responses: [.plaintext("wildcard route", lifetime: .eternal)])
        #expect(try await send("https://bücher.example/u").text == "unicode route")
        #expect(try await send("https://xn--bcher-kva.example/u").text == "unicode route")
        #expect(try await send("https://BÜCHER.example/u").text == "unicode route")
        #expect(try await send("https://bücher.example/p").text == "punycode route")
        #expect(try await send("https://xn--bcher-kva.example/p").text == "punycode route")
        #expect(try await send("https://shop.bücher.example/w").text == "wildcard route")
        #expect(try await send("https://bucher.example/u").status == 404)
    }

    @Test("/files/:name captures an encoded slash: the path is split on raw / before decoding")
    func encodedSlash() async throws {
        mock.addResponses(forPath: "/files/:name", responses: [.plaintext("file", lifetime: .eternal)])
        mock.addResponses(forPath: "/exact/a%2Fb", responses: [.plaintext("exact a%2Fb", lifetime: .eternal)])
        #expect(try await send("https://example.com/files/a%2Fb").text == "file")
        #expect(try await send("https://example.com/files/a/b").status == 404)
        #expect(try await send("https://example.com/exact/a%2Fb").text == "exact a%2Fb")
        #expect(try await send("https://example.com/exact/a/b").status == 404)
        let entry = try #require(mock.recordedRequests.first)
        #expect(entry.request.pathParameters["name"] == "a/b")
        #expect(mock.requests(to: "/files/a%2Fb").count == 1)
        #expect(mock.requests(to: "/files/a/b").count == 1)
    }

    @Test(
        "hosts that can never match are refused at registration, naming what was received",
        arguments: [
            ("exa mple.com", "host \"exa mple.com\": a space cannot appear in a host name"),
            ("user@example.com", "host \"user@example.com\" holds user information (\"user@\")"),
            ("example.com:80:80", "host \"example.com:80:80\" has 2 \":\""),
            ("::1", "host \"::1\" is an IPv6 address: write it in brackets, like \"[::1]\""),
            ("[::1", "host \"[::1\" opens a \"[\" without a closing \"]\""),
        ])
    func impossibleHosts(host: String, message: String) async throws {
        withKnownIssue {
            mock.addResponses(forPath: "/x", host: host, responses: [.plaintext("never")])
        } matching: { issue in
            issue.description.contains(message) && issue.sourceLocation?.fileID.hasSuffix("HostAndPathPatternTests.swift") == true
        }
        withKnownIssue {
            mock.registerResponses {
                Host(host) { Path("/y") { MockResponse.plaintext("never") } }
            }
        } matching: { issue in
            issue.description.contains(message)
        }
        #expect(mock.pendingResponses.isEmpty)
        #expect(try await send("http://example.com:80/x").status == 404)
    }

    @Test("ten ** against a hundred segments answers at once, hit or miss (it was exponential)")
    func manyDoubleStars() async throws {
        let pattern = "/" + Array(repeating: "**", count: 10).joined(separator: "/") + "/end"
        let deep = (0..<100).map { "s\($0)" }.joined(separator: "/")
        mock.addResponses(forPath: pattern, responses: [.plaintext("deep", lifetime: .eternal)])
        mock.addResponses(
            forPath: "/" + Array(repeating: "**/x", count: 8).joined(separator: "/") + "/:last",
            responses: [.plaintext("x", lifetime: .eternal)])
        let session = mock.urlSession
        let texts = try await withPatternWatchdog(seconds: 20 * TestEnvironment.slowdown) {
            let start = ContinuousClock.now
            let hit = try await session.reply(request("https://example.com/\(deep)/end")).text
            let miss = try await session.reply(request("https://example.com/\(deep)")).status
            return (hit, miss, ContinuousClock.now - start)
        }
        #expect(texts?.0 == "deep")
        #expect(texts?.1 == 404)
        // The watchdog catches an exponential regression; the cost itself is bounded in CPU time
        // by PatternPerformanceTests (a wall-clock bound here would fail on a busy machine).
        #expect(texts != nil)
        // The miss produced a near-miss report naming the closest route.
        #expect(mock.recordedRequests.last?.nearMissReport?.contains("path: expected \(pattern)") == true)
    }

    @Test("the near-miss report over very long paths stays fast and keeps its messages")
    func longPathNearMiss() async throws {
        let long = (0..<400).map { "segment\($0)" }.joined(separator: "/")
        for index in 0..<30 {
            mock.addResponses(forPath: "/\(long)/\(index)", responses: [.plaintext("r\(index)")])
        }
        mock.addResponses(
            forPath: "/" + Array(repeating: "**", count: 12).joined(separator: "/") + "/nope",
            responses: [.plaintext("stars")])
        let session = mock.urlSession
        let reply = try await withPatternWatchdog(seconds: 20 * TestEnvironment.slowdown) {
            try await session.reply(request("https://example.com/\(long)/7x"))
        }
        #expect(reply?.status == 404)
        let report = try #require(reply?.text)
        let lines = report.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("  1. ") || $0.hasPrefix("  2. ") || $0.hasPrefix("  3. ") }.count == 3)
        // Paths this close tie in distance, so the earliest registration comes first.
        #expect(lines.first { $0.hasPrefix("     path: ") } == "     path: expected /\(long)/0, got /\(long)/7x")
    }
}

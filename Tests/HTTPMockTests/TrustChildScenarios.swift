import Foundation
import HTTPMock
import Testing

// SPEC §11: the cases that, when they regress, crash the process, deadlock, or hang the work
// queue every session shares, and the ones that need a process whose first URLSession is still
// to be made. Each runs in a child process (Support/ChildProcess.swift) under a time limit.

@Suite("Trust: in a child process", .serialized)  // one child at a time: they share 2 cores with the suite
struct TrustChildProcessTests {
    private func expectChildPasses(_ scenario: String, timeout: TimeInterval = 60) async throws {
        let outcome = try await ChildProcess.run(scenario, timeout: timeout)
        #expect(outcome.passed, "scenario \(scenario): \(outcome)")
    }

    @Test(
        "URLSession.shared: an owner stack, a warning naming both call sites, a clear failure after the last interceptor goes, the network only after stop",
        .enabled(if: ChildProcess.isAvailable))
    func sharedSessionOwnerStack() async throws {
        try await expectChildPasses("sharedSessionOwnerStack")
    }

    @Test(
        "a where: predicate that clears or registers ends within its timeout: the route's response if it still exists, else the policy's",
        .enabled(if: ChildProcess.isAvailable))
    func predicateThatClears() async throws {
        try await expectChildPasses("predicateThatClears", timeout: 30)
    }

    @Test(
        "a captured value whose deinit reads the mock does not deadlock clearQueues(), clearQueue(forHost:) or a logHandler change",
        .enabled(if: ChildProcess.isAvailable))
    func deinitReadsTheMock() async throws {
        try await expectChildPasses("deinitReadsTheMock", timeout: 30)
    }

    @Test(
        "urlSession after finishTasksAndInvalidate() / invalidateAndCancel() is a fresh session, not a crash",
        .enabled(if: ChildProcess.isAvailable))
    func invalidatedSessionIsReplaced() async throws {
        try await expectChildPasses("invalidatedSessionIsReplaced", timeout: 30)
    }

    @Test(
        "fault(.connectionLost(afterBytes: Int.max)) neither overflows nor allocates: the default body arrives, then the connection drops",
        .enabled(if: ChildProcess.isAvailable))
    func connectionLostIntMax() async throws {
        try await expectChildPasses("connectionLostIntMax", timeout: 60)
    }

    @Test(
        "journalLimit = 0 keeps no entry and still answers: a miss (404, and .failTest reported) and a hit",
        .enabled(if: ChildProcess.isAvailable))
    func journalLimitZero() async throws {
        try await expectChildPasses("journalLimitZero", timeout: 60)
    }

    @Test(
        "two runaway template sections end with their requests' timeout, starve nothing and stop burning CPU",
        .enabled(if: ChildProcess.isAvailable))
    func runawayTemplates() async throws {
        try await expectChildPasses("runawayTemplates", timeout: 90)
    }
}

/// The scenarios, run by ``ChildScenarioHost`` in the child.
enum ChildScenarios {
    static let all: [String: @Sendable () async throws -> Void] = [
        "sharedSessionOwnerStack": sharedSessionOwnerStack,
        "predicateThatClears": predicateThatClears,
        "deinitReadsTheMock": deinitReadsTheMock,
        "invalidatedSessionIsReplaced": invalidatedSessionIsReplaced,
        "connectionLostIntMax": connectionLostIntMax,
        "runawayTemplates": runawayTemplates,
        "journalLimitZero": journalLimitZero,
        "runawaySectionThroughURLSession": runawaySectionThroughURLSession,
        "failTestSwallowed": failTestSwallowed,
        "failTestControl": failTestControl,
        "failTestReportedAtDeinit": failTestReportedAtDeinit,
        "failTestReportedInNextTest": failTestReportedInNextTest,
        "scopedMissPrintedOnce": scopedMissPrintedOnce,
        "oneGigabyteToDelegate": LargeFileTests.oneGigabyteToDelegateScenario,
    ]

    /// A miss used to read its journal entry back as the journal's last element, which a limit
    /// of 0 had already dropped: an index out of range, the process gone.
    static func journalLimitZero() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.journalLimit = 0
        mock.addResponses(forPath: "/hit", host: "journal.test", responses: [.plaintext("ok", lifetime: .eternal)])
        #expect(try await mock.urlSession.reply("https://journal.test/miss").status == 404)
        #expect(try await mock.urlSession.reply("https://journal.test/hit").text == "ok")
        mock.unmockedPolicy = .failTest
        await withKnownIssue {
            _ = try? await mock.urlSession.reply("https://journal.test/reported")
        } matching: { issue in
            issue.description.contains("journal.test/reported")
        }
        #expect(mock.recordedRequests.isEmpty)
    }

    static func sharedSessionOwnerStack() async throws {
        // First thing in this process: no URLSession exists yet.
        let a = HTTPMock()
        a.logHandler = nil
        a.addResponses(forPath: "/who", host: "shared.test", responses: [.plaintext("A", lifetime: .eternal)])
        let lineA = #line + 1
        let interceptedA = a.interceptSharedSession()
        #expect(interceptedA)
        #expect(try await URLSession.shared.reply("https://shared.test/who").text == "A")

        do {
            let b = HTTPMock()
            b.logHandler = nil
            b.addResponses(forPath: "/who", host: "shared.test", responses: [.plaintext("B", lifetime: .eternal)])
            var interceptedB = false
            let lineB = #line + 2
            withKnownIssue {
                interceptedB = b.interceptSharedSession()
            } matching: { issue in
                issue.severity == .warning
                    && issue.description.contains("TrustChildScenarios.swift:\(lineA)")
                    && issue.description.contains("TrustChildScenarios.swift:\(lineB)")
            }
            #expect(interceptedB)
            #expect(try await URLSession.shared.reply("https://shared.test/who").text == "B")
        }  // b is deallocated: A serves again.
        #expect(try await URLSession.shared.reply("https://shared.test/who").text == "A")

        // Other schemes through URLSession.shared while intercepting: failed, never the network.
        for scheme in ["ftp", "ws"] {
            await #expect(throws: URLError.self) { _ = try await URLSession.shared.data(from: url("\(scheme)://127.0.0.1:9/x")) }
            do {
                _ = try await URLSession.shared.data(from: url("\(scheme)://127.0.0.1:9/x"))
            } catch let error as URLError {
                #expect(error.code == .unsupportedURL)
                #expect(error.localizedDescription.contains("\(scheme):"))
            }
        }

        // Stopped: URLSession.shared is itself again, http and other schemes alike (127.0.0.1:9
        // has no listener, so the built-in protocols fail to connect).
        a.stopInterceptingSharedSession()
        for address in ["http://127.0.0.1:9/x", "ftp://127.0.0.1:9/x"] {
            do {
                _ = try await URLSession.shared.data(from: url(address))
                Issue.record("\(address) answered although nothing listens there")
            } catch let error as URLError {
                #expect(error.code != .unsupportedURL, "\(address) was swallowed by HTTPMock: \(error)")
            }
        }

        // The last interceptor deallocated without stopping: a clear error, not the network.
        do {
            let c = HTTPMock()
            c.logHandler = nil
            #expect(c.interceptSharedSession())
        }
        do {
            _ = try await URLSession.shared.data(from: url("http://127.0.0.1:9/x"))
            Issue.record("URLSession.shared answered with no live interceptor")
        } catch let error as HTTPMockError {
            #expect(error.code == .instanceDeallocated)
            #expect(error.message.contains("stopInterceptingSharedSession()"))
            #expect(error.message.contains("TrustChildScenarios.swift:"))
        }
        // Until someone intercepts...
        #expect(a.interceptSharedSession())
        #expect(try await URLSession.shared.reply("https://shared.test/who").text == "A")
        // ...or stops.
        do {
            let d = HTTPMock()
            d.logHandler = nil
            withKnownIssue {
                _ = d.interceptSharedSession()
            } matching: {
                $0.severity == .warning
            }
            d.stopInterceptingSharedSession()
            #expect(try await URLSession.shared.reply("https://shared.test/who").text == "A")
        }
        a.stopInterceptingSharedSession()
        await #expect(throws: URLError.self) { _ = try await URLSession.shared.data(from: url("http://127.0.0.1:9/x")) }
    }

    static func predicateThatClears() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        let weakMock = WeakMock(mock)
        mock.addResponses(
            forPath: "/clears-other-host",
            where: { _ in
                weakMock.value?.clearQueue(forHost: "other.example")
                return true
            }, responses: [.plaintext("still here")])
        mock.addResponses(
            forPath: "/clears-host",
            where: { _ in
                weakMock.value?.clearQueue(forHost: "example.com")
                return true
            }, responses: [.plaintext("cleared")])
        mock.addResponses(
            forPath: "/clears-all",
            where: { _ in
                weakMock.value?.clearQueues()
                weakMock.value?.addResponses(forPath: "/clears-all", responses: [.plaintext("re-registered")])
                return true
            }, responses: [.plaintext("original")])
        mock.addResponses(
            forPath: "/registers",
            where: { _ in
                weakMock.value?.addResponses(forPath: "/other", responses: [.plaintext("other")])
                return true
            }, responses: [.plaintext("kept")])

        var timed = URLRequest(url: url("https://example.com/registers"), timeoutInterval: 5)
        #expect(try await mock.urlSession.reply(timed).text == "kept")
        #expect(try await mock.urlSession.reply("https://example.com/other").text == "other")

        // The predicate clears another host: its route still exists and answers (before, every
        // clear restarted the lookup, which ran the predicate again, for ever).
        timed.url = url("https://example.com/clears-other-host")
        #expect(try await mock.urlSession.reply(timed).text == "still here")

        // The matched route was removed by its own predicate: the unmocked policy answers.
        timed.url = url("https://example.com/clears-host")
        #expect(try await mock.urlSession.reply(timed).status == 404)

        // The route was cleared and a new one registered for the same path: the request is
        // answered by the policy; the new registration serves the next request.
        mock.addResponses(
            forPath: "/clears-all",
            where: { _ in
                weakMock.value?.clearQueues()
                return true
            }, responses: [.plaintext("original")])
        timed.url = url("https://example.com/clears-all")
        #expect(try await mock.urlSession.reply(timed).status == 404)

        // Other sessions were never blocked meanwhile.
        let other = HTTPMock()
        other.addResponses(forPath: "/ok", responses: [.plaintext("ok")])
        #expect(try await other.urlSession.reply("https://example.com/ok").text == "ok")
    }

    static func deinitReadsTheMock() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        let readings = Box<[Int]>([])
        func register() {
            let reader = ReadsMockOnDeinit(mock: mock, readings: readings)
            mock.addResponses(
                forPath: "/dynamic",
                responses: [
                    .dynamic { _ in
                        _ = reader
                        return .plaintext("dynamic")
                    }
                ])
            let predicateReader = ReadsMockOnDeinit(mock: mock, readings: readings)
            mock.addResponses(forPath: "/predicate", where: { _ in predicateReader.mock === mock }, responses: [.empty()])
        }
        register()
        _ = try await mock.urlSession.reply("https://example.com/unmatched")
        mock.clearQueues()
        #expect(readings.value == [0, 0])  // read after the lock was released: the journal is already cleared

        register()
        mock.clearQueue(forHost: "example.com")
        #expect(readings.value.count == 4)

        func setLogHandler() {
            let handlerReader = ReadsMockOnDeinit(mock: mock, readings: readings)
            mock.logHandler = { _ in _ = handlerReader }
        }
        setLogHandler()
        mock.logHandler = nil
        #expect(readings.value.count == 5)

        mock.addResponses(forPath: "/after", responses: [.plaintext("still serving")])
        #expect(try await mock.urlSession.reply("https://example.com/after").text == "still serving")
    }

    static func invalidatedSessionIsReplaced() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/n", responses: [.plaintext("one"), .plaintext("two"), .plaintext("three")])
        let first = mock.urlSession
        #expect(try await first.reply("https://example.com/n").text == "one")
        first.finishTasksAndInvalidate()
        let second = mock.urlSession
        #expect(second !== first)
        #expect(try await mock.urlSession.reply("https://example.com/n").text == "two")
        second.invalidateAndCancel()
        #expect(mock.urlSession !== second)
        #expect(try await mock.urlSession.replyViaCompletionHandler(request("https://example.com/n")).text == "three")

        HTTPMock.shared.addResponses(forPath: "/shared", responses: [.plaintext("shared", lifetime: .eternal)])
        HTTPMock.shared.urlSession.finishTasksAndInvalidate()
        #expect(try await HTTPMock.shared.urlSession.reply("https://example.com/shared").text == "shared")
        HTTPMock.shared.clearQueues()
    }
}

/// Reads the mock in `deinit`, as a captured view model or fixture might.
final class ReadsMockOnDeinit: Sendable {
    let mock: HTTPMock
    let readings: Box<[Int]>

    init(mock: HTTPMock, readings: Box<[Int]>) {
        self.mock = mock
        self.readings = readings
    }

    deinit {
        let count = mock.recordedRequests.count
        readings.value.append(count)
    }
}

/// A weak reference a `@Sendable` predicate can hold without a cycle.
final class WeakMock: @unchecked Sendable {
    // @unchecked: a weak reference is read atomically by the runtime.
    weak var value: HTTPMock?
    init(_ value: HTTPMock) { self.value = value }
}

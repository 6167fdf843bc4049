import Foundation
import HTTPMock
import Testing

/// `ResponseGate`, `delivery: .held(gate)` and `waitForRequest` / `waitForRequests`, through a
/// real `URLSession`. Every wait has a bounded timeout, so a broken gate fails instead of hanging.
@Suite("Gates and waiting for requests", .serialized)
struct GateTests {
    @Test("a held response arrives only after release(), for async and completion-handler tasks")
    func heldUntilReleased() async throws {
        let mock = HTTPMock()
        let gate = ResponseGate()
        mock.addResponses(forPath: "/slow", responses: [.plaintext("done", lifetime: .multiple(2), delivery: .held(gate))])
        let finished = Captured<Bool>()
        let viaAsync = Task {
            let reply = try await mock.urlSession.reply("https://example.com/slow")
            finished.set(true)
            return reply
        }
        let viaCompletion = Task { try await mock.urlSession.replyViaCompletionHandler(request("https://example.com/slow")) }
        _ = try await mock.waitForRequests(count: 2, timeout: TestEnvironment.arrivalTimeout)
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(finished.value == nil)  // held: nothing arrived yet
        #expect(gate.heldCount == 2)
        #expect(!gate.isReleased)
        gate.release()
        #expect(try await viaAsync.value.text == "done")
        #expect(try await viaCompletion.value.text == "done")
        #expect(gate.heldCount == 0)
    }

    @Test("release() is idempotent and a released gate stays open")
    func releasedStaysOpen() async throws {
        let mock = HTTPMock()
        let gate = ResponseGate()
        gate.release()
        gate.release()
        #expect(gate.isReleased)
        mock.addResponses(forPath: "/open", responses: [.plaintext("at once", delivery: .held(gate))])
        // A gate that held it would keep the request until the instance's timeout, which fails it.
        let reply = try await mock.urlSession.reply("https://example.com/open")
        #expect(reply.text == "at once")
    }

    @Test("one gate holds responses of several routes and instances")
    func oneGateManyResponses() async throws {
        let first = HTTPMock()
        let second = HTTPMock()
        let gate = ResponseGate()
        first.addResponses(forPath: "/a", responses: [.plaintext("a", delivery: .held(gate))])
        second.addResponses(forPath: "/b", responses: [.json("{}", delivery: .held(gate))])
        let a = Task { try await first.urlSession.reply("https://example.com/a") }
        let b = Task { try await second.urlSession.reply("https://example.com/b") }
        _ = try await first.waitForRequest(to: "/a", timeout: TestEnvironment.arrivalTimeout)
        _ = try await second.waitForRequest(to: "/b", timeout: TestEnvironment.arrivalTimeout)
        gate.release()
        #expect(try await a.value.text == "a")
        #expect(try await b.value.text == "{}")
    }

    @Test("a held request still times out with URLError(.timedOut)")
    func heldTimesOut() async throws {
        let mock = HTTPMock()
        let gate = ResponseGate()
        mock.addResponses(forPath: "/held", responses: [.plaintext("never seen", delivery: .held(gate))])
        var slow = request("https://example.com/held")
        slow.timeoutInterval = 0.3
        let start = Date()
        let error = await #expect(throws: URLError.self) { try await mock.urlSession.reply(slow) }
        #expect(error?.code == .timedOut)
        #expect(Date().timeIntervalSince(start) >= 0.25)
        try await Task.sleep(nanoseconds: 100_000_000)  // the exchange closes just after failing the task
        #expect(gate.heldCount == 0)  // a closed exchange leaves the gate
        gate.release()  // and a later release delivers nothing (no crash)
        #expect((mock.recordedRequests.first?.error as? URLError)?.code == .timedOut)
    }

    @Test("a gate released after cancellation delivers nothing")
    func releasedAfterCancellation() async throws {
        let mock = HTTPMock()
        let gate = ResponseGate()
        mock.addResponses(forPath: "/held", responses: [.plaintext("late", delivery: .held(gate))])
        let outcome = Captured<Result<String, any Error>>()
        let calls = Captured<Int>()
        let done = AsyncSignal()
        let task = mock.urlSession.dataTask(with: url("https://example.com/held")) { data, _, error in
            _ = calls.increment()
            outcome.set(error.map { .failure($0) } ?? .success(String(decoding: data ?? Data(), as: UTF8.self)))
            done.fire()
        }
        task.resume()
        _ = try await mock.waitForRequest(to: "/held", timeout: TestEnvironment.arrivalTimeout)
        task.cancel()
        await done.wait()
        gate.release()
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(calls.value == 1)
        #expect(throws: URLError.self) { try outcome.value?.get() }
        #expect((mock.recordedRequests.first?.error as? URLError)?.code == .cancelled)
    }

    @Test("waitForRequest returns consecutive matching requests, journaled before the gate opens")
    func waitReturnsConsecutiveRequests() async throws {
        let mock = HTTPMock()
        let gate = ResponseGate()
        mock.addResponses(
            forPath: "/items", method: .post, responses: [.empty(status: .created, lifetime: .eternal, delivery: .held(gate))])
        let first = Task { try await mock.urlSession.reply(request("https://example.com/items", method: "POST", body: Data("1".utf8))) }
        let one = try await mock.waitForRequest(to: "/items", method: .post, timeout: TestEnvironment.arrivalTimeout)
        let second = Task { try await mock.urlSession.reply(request("https://example.com/items", method: "POST", body: Data("2".utf8))) }
        let two = try await mock.waitForRequest(to: "items/", method: .post, timeout: TestEnvironment.arrivalTimeout)
        #expect(one.request.body == Data("1".utf8))
        #expect(two.request.body == Data("2".utf8))
        gate.release()
        #expect(try await first.value.status == 201)
        #expect(try await second.value.status == 201)
    }

    @Test("a request already in the journal is returned at once; the method is checked")
    func alreadyJournaled() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", responses: [.plaintext("x")])
        _ = try await mock.urlSession.reply("https://example.com/x")
        let error = await #expect(throws: HTTPMockError.self) {
            try await mock.waitForRequest(to: "/x", method: .post, timeout: 0.2)
        }
        #expect(error?.code == .timedOutWaiting)
        let entry = try await mock.waitForRequest(to: "/x", method: .get, timeout: 0.2)
        #expect(entry.statusCode == 200)
    }

    @Test("on timeout the error names what was awaited and what arrived")
    func timeoutMessage() async throws {
        let mock = HTTPMock()
        _ = try? await mock.urlSession.reply("https://example.com/other")
        let start = Date()
        let error = await #expect(throws: HTTPMockError.self) {
            try await mock.waitForRequest(to: "/expected", method: .get, timeout: 0.3)
        }
        #expect(Date().timeIntervalSince(start) >= 0.25)
        #expect(error?.code == .timedOutWaiting)
        #expect(error?.message.contains("a request to GET /expected") == true)
        #expect(error?.message.contains("GET https://example.com/other") == true)
        let unmatched = try await mock.waitForRequest(to: "/other", timeout: 1)
        #expect(unmatched.nearMissReport != nil)  // an entry is announced with its report
        let none = await #expect(throws: HTTPMockError.self) { try await HTTPMock().waitForRequests(count: 2, timeout: 0.1) }
        #expect(none?.message.contains("2 requests") == true)
        #expect(none?.message.contains("no request arrived") == true)
    }

    @Test("waitForRequests(count:) waits for that many concurrent requests")
    func waitForCount() async throws {
        let mock = HTTPMock()
        let gate = ResponseGate()
        for path in ["/a", "/b", "/c"] {
            mock.addResponses(forPath: path, responses: [.plaintext("ok", delivery: .held(gate))])
        }
        let tasks = ["/a", "/b", "/c"].map { path in Task { try await mock.urlSession.reply("https://example.com\(path)") } }
        let sent = try await mock.waitForRequests(count: 3, timeout: TestEnvironment.arrivalTimeout)
        #expect(Set(sent.map(\.request.url.path)) == ["/a", "/b", "/c"])
        gate.release()
        for task in tasks { #expect(try await task.value.text == "ok") }
        await #expect(throws: HTTPMockError.self) { try await mock.waitForRequests(count: 1, timeout: 0.1) }
        await #expect(throws: HTTPMockError.self) { try await mock.waitForRequests(count: 0, timeout: 1) }
        for timeout in [-1, .nan, .infinity] as [TimeInterval] {
            let error = await #expect(throws: HTTPMockError.self) { try await mock.waitForRequest(to: "/a", timeout: timeout) }
            #expect(error?.message.contains("the timeout is \(timeout)") == true)
        }
    }

    @Test("stress: a wait starting while a request is answered at once sees it, whichever comes first (no lost wake-up)")
    func waitRacesAnAnswerAtOnce() async throws {
        // Requests answered at once wake waits only when the registry knows someone waits; a
        // wait announces itself before reading the journal. A wake-up lost between the two
        // would leave one of these waits to time out.
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/item", responses: [.plaintext("ok", lifetime: .eternal)])
        let session = mock.urlSession
        let rounds = 200
        var taken: Set<String> = []
        for round in 0..<rounds {
            async let sent = session.reply("https://example.com/item?round=\(round)")
            async let seen = mock.waitForRequest(to: "/item", timeout: 10)
            let (reply, entry) = try await (sent, seen)
            #expect(reply.text == "ok")
            taken.insert(entry.request.url.absoluteString)
        }
        // Every wait returned a request no earlier wait had returned.
        #expect(taken.count == rounds)
        await #expect(throws: HTTPMockError.self) { try await mock.waitForRequest(to: "/item", timeout: 0.05) }
    }

    @Test("cancelling a wait ends it with CancellationError")
    func cancelWait() async throws {
        let mock = HTTPMock()
        let wait = Task { try await mock.waitForRequest(to: "/never", timeout: 30) }
        try await Task.sleep(nanoseconds: 100_000_000)
        wait.cancel()
        // Not cancelled, the wait would end at its 30 s timeout with an HTTPMockError instead.
        await #expect(throws: CancellationError.self) { try await wait.value }
    }
}

// The worked example of Docs/HTTPMock.docc/Streams.md, as written there.

@MainActor final class ProfileModel {
    private(set) var isLoading = false
    private(set) var name: String?
    let session: URLSession

    init(session: URLSession) { self.session = session }

    func load() async {
        isLoading = true
        defer { isLoading = false }
        guard let (data, _) = try? await session.data(from: URL(string: "https://api.example.com/profile")!) else { return }
        name = String(decoding: data, as: UTF8.self)
    }
}

@Suite("HTTPMock.docc/Streams.md worked example", .serialized)
struct SpinnerExampleTests {
    @Test @MainActor func showsTheSpinnerWhileTheProfileLoads() async throws {
        let mock = HTTPMock()
        let gate = ResponseGate()
        mock.addResponses(
            forPath: "/profile", host: "api.example.com",
            responses: [
                .plaintext("Ada", delivery: .held(gate))
            ])
        let model = ProfileModel(session: mock.urlSession)

        let loading = Task { await model.load() }
        _ = try await mock.waitForRequest(to: "/profile", timeout: TestEnvironment.arrivalTimeout)  // the request is in flight
        #expect(model.isLoading)  // spinner shown
        #expect(model.name == nil)

        gate.release()  // the answer arrives now
        await loading.value
        #expect(!model.isLoading)  // spinner gone
        #expect(model.name == "Ada")
    }
}

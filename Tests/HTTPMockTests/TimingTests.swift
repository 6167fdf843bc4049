import Foundation
import HTTPMock
import Testing

/// Time assertions are lower bounds; what must not wait is shown by order or outcome, never by a
/// wall-clock upper bound (a loaded machine breaks those, SPEC §23).
@Suite("Timing: delays, throttling, never, timeouts")
struct TimingTests {
    let mock = HTTPMock()

    func elapsed(_ body: () async throws -> Void) async throws -> TimeInterval {
        let start = Date()
        try await body()
        return Date().timeIntervalSince(start)
    }

    @Test(".delayed(seconds) answers no sooner than that, on every task kind")
    func delayed() async throws {
        mock.addResponses(forPath: "/slow", responses: [.plaintext("late", lifetime: .multiple(3), delivery: .delayed(0.3))])
        var texts: [String] = []
        let viaAsync = try await elapsed {
            texts.append(try await mock.urlSession.reply("https://example.com/slow").text)
        }
        let viaHandler = try await elapsed {
            texts.append(try await mock.urlSession.replyViaCompletionHandler(request("https://example.com/slow")).text)
        }
        #expect(texts == ["late", "late"])
        let delegate = RecordingDelegate()
        let session = mock.delegateSession(delegate)
        defer { session.finishTasksAndInvalidate() }
        let viaDelegate = try await elapsed {
            session.dataTask(with: url("https://example.com/slow")).resume()
            await delegate.completion()
        }
        #expect(viaAsync >= 0.3)
        #expect(viaHandler >= 0.3)
        #expect(viaDelegate >= 0.3)
        #expect(String(decoding: delegate.body, as: UTF8.self) == "late")
    }

    @Test("defaultDelay applies to .instant responses; an explicit delivery wins")
    func defaultDelay() async throws {
        mock.defaultDelay = 0.25
        mock.addResponses(forPath: "/a", responses: [.plaintext("a")])
        let slow = try await elapsed { _ = try await mock.urlSession.reply("https://example.com/a") }
        #expect(slow >= 0.25)

        // Not the 600 s default: the explicit delivery won (else the 15 s timeout fails the request).
        mock.defaultDelay = 600
        mock.addResponses(forPath: "/b", responses: [.plaintext("b", delivery: .delayed(0))])
        #expect(try await mock.urlSession.reply("https://example.com/b").text == "b")
    }

    @Test(".failure with a delay fails no sooner")
    func delayedFailure() async throws {
        mock.addResponses(forPath: "/f", responses: [.failure(URLError(.networkConnectionLost), delivery: .delayed(0.2))])
        let time = try await elapsed {
            await #expect(throws: URLError.self) { _ = try await mock.urlSession.reply("https://example.com/f") }
        }
        #expect(time >= 0.2)
    }

    @Test(".throttled: takes as long as the body at that rate; delegate tasks get paced chunks, async tasks the whole body")
    func throttled() async throws {
        let body = Data(repeating: 7, count: 4_000)
        mock.addResponses(
            forPath: "/t", responses: [.data(body, lifetime: .multiple(2), delivery: .throttled(bytesPerSecond: 10_000, delay: 0.1))])

        var received = Data()
        let whole = try await elapsed {
            received = try await mock.urlSession.reply("https://example.com/t").data
        }
        #expect(received == body)
        #expect(whole >= 0.45)  // 0.1 s delay + 0.4 s of transfer

        let delegate = RecordingDelegate()
        let session = mock.delegateSession(delegate)
        defer { session.finishTasksAndInvalidate() }
        let chunked = try await elapsed {
            session.dataTask(with: url("https://example.com/t")).resume()
            await delegate.completion()
        }
        #expect(chunked >= 0.4)
        #expect(delegate.body == body)
        #expect(delegate.chunks.count >= 4)  // 1,000-byte chunks, ten a second
        #expect(delegate.chunks.allSatisfy { $0.count <= 1_000 })
    }

    @Test(".never: the request's timeoutInterval fails it with URLError(.timedOut)")
    func neverWithRequestTimeout() async throws {
        mock.addResponses(forPath: "/never", responses: [.plaintext("never", delivery: .never)])
        var request = request("https://example.com/never")
        request.timeoutInterval = 0.3
        let time = try await elapsed {
            let error = await #expect(throws: URLError.self) { _ = try await mock.urlSession.reply(request) }
            #expect(error?.code == .timedOut)
        }
        #expect(time >= 0.3)  // .never ends only by the timeout: the .timedOut error shows it did
        #expect((mock.recordedRequests.first?.error as? URLError)?.code == .timedOut)
    }

    @Test("the session's timeoutIntervalForRequest is honoured", .timeLimit(.minutes(2)))
    func sessionTimeout() async throws {
        // Nothing else could end it before the 600 s delay: the .timedOut error is the session's.
        mock.timeout = 600
        mock.addResponses(forPath: "/late", responses: [.plaintext("late", delivery: .delayed(600))])
        let configuration = mock.makeSessionConfiguration()
        configuration.timeoutIntervalForRequest = 0.3
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let error = await #expect(throws: URLError.self) {
            _ = try await session.replyViaCompletionHandler(request("https://example.com/late"))
        }
        #expect(error?.code == .timedOut)
    }

    @Test("the instance timeout bounds every request")
    func instanceTimeout() async throws {
        mock.timeout = 0.3
        mock.addResponses(forPath: "/never", responses: [.empty(delivery: .never)])
        let time = try await elapsed {
            let error = await #expect(throws: URLError.self) { _ = try await mock.urlSession.reply("https://example.com/never") }
            #expect(error?.code == .timedOut)
        }
        #expect(time >= 0.3)  // .never ends only by the timeout: the .timedOut error shows it did
    }

    @Test("a delegate task times out when a throttled body stalls past the instance timeout")
    func delegateTimeoutMidBody() async throws {
        mock.timeout = 0.5
        mock.addResponses(forPath: "/trickle", responses: [.data(Data(count: 100), delivery: .throttled(bytesPerSecond: 20))])
        let delegate = RecordingDelegate()
        let session = mock.delegateSession(delegate)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: url("https://example.com/trickle")).resume()
        await delegate.completion()
        #expect((delegate.error as? URLError)?.code == .timedOut)
        #expect(delegate.byteCount > 0)
        #expect(delegate.byteCount < 100)
    }

    @Test("invalid timing values are reported at registration")
    func invalidDelivery() async throws {
        withKnownIssue {
            mock.addResponses(forPath: "/x", responses: [.empty(delivery: .throttled(bytesPerSecond: 0))])
        } matching: {
            $0.description.contains("bytesPerSecond must be > 0")
        }
        withKnownIssue {
            mock.addResponses(forPath: "/x", responses: [.empty(delivery: .delayed(-1))])
        } matching: {
            $0.description.contains("must be a finite number of seconds")
        }
    }
}

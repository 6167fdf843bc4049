import Foundation
import HTTPMock
import Testing

@Suite("Faults", .serialized)
struct FaultTests {
    @Test("connectionLost sends the head and that many body bytes, then .networkConnectionLost")
    func connectionLost() async throws {
        let mock = HTTPMock()
        mock.addResponses(
            forPath: "/download",
            responses: [
                .fault(
                    .connectionLost(afterBytes: 4), body: Data("0123456789".utf8), status: .ok, headers: ["Content-Type": "text/plain"],
                    lifetime: .multiple(2))
            ])
        let delegate = RecordingDelegate()
        mock.delegateSession(delegate).dataTask(with: url("https://example.com/download")).resume()
        try await withWatchdog(10) { await delegate.completion() }
        #expect(delegate.response?.statusCode == 200)
        #expect(delegate.response?.value(forHTTPHeaderField: "Content-Length") == "10")
        #expect(delegate.body == Data("0123".utf8))
        #expect((delegate.error as? URLError)?.code == .networkConnectionLost)
        let error = await #expect(throws: URLError.self) { try await mock.urlSession.reply("https://example.com/download") }
        #expect(error?.code == .networkConnectionLost)
        #expect(mock.recordedRequests.map { ($0.error as? URLError)?.code } == [.networkConnectionLost, .networkConnectionLost])
    }

    @Test("connectionLost without a body still leaves the client expecting more")
    func connectionLostDefaultBody() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", responses: [.fault(.connectionLost(afterBytes: 3))])
        let delegate = RecordingDelegate()
        mock.delegateSession(delegate).dataTask(with: url("https://example.com/x")).resume()
        try await withWatchdog(10) { await delegate.completion() }
        #expect(delegate.body.count == 3)
        #expect(delegate.response?.value(forHTTPHeaderField: "Content-Length") == "4")
        #expect((delegate.error as? URLError)?.code == .networkConnectionLost)
    }

    @Test("malformedResponse fails with .badServerResponse and no response")
    func malformed() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/garbage", responses: [.fault(.malformedResponse, lifetime: .multiple(2))])
        let error = await #expect(throws: URLError.self) { try await mock.urlSession.reply("https://example.com/garbage") }
        #expect(error?.code == .badServerResponse)
        let delegate = RecordingDelegate()
        mock.delegateSession(delegate).dataTask(with: url("https://example.com/garbage")).resume()
        try await withWatchdog(10) { await delegate.completion() }
        #expect(delegate.response == nil)
        #expect((delegate.error as? URLError)?.code == .badServerResponse)
    }

    @Test("emptyResponse fails with .networkConnectionLost and no response, for every task kind")
    func empty() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/hangup", responses: [.fault(.emptyResponse, lifetime: .multiple(3))])
        let error = await #expect(throws: URLError.self) { try await mock.urlSession.reply("https://example.com/hangup") }
        #expect(error?.code == .networkConnectionLost)
        let viaCompletion = await #expect(throws: URLError.self) {
            try await mock.urlSession.replyViaCompletionHandler(request("https://example.com/hangup"))
        }
        #expect(viaCompletion?.code == .networkConnectionLost)
        let delegate = RecordingDelegate()
        mock.delegateSession(delegate).dataTask(with: url("https://example.com/hangup")).resume()
        try await withWatchdog(10) { await delegate.completion() }
        #expect(delegate.response == nil)
        #expect(delegate.chunks.isEmpty)
    }

    @Test("a fault can be held by a gate and then retried successfully")
    func heldFaultThenRetry() async throws {
        let mock = HTTPMock()
        let gate = ResponseGate()
        mock.addResponses(
            forPath: "/flaky",
            responses: [
                .fault(.connectionLost(afterBytes: 0), delivery: .held(gate)),
                .plaintext("recovered"),
            ])
        let first = Task { try await mock.urlSession.reply("https://example.com/flaky") }
        _ = try await mock.waitForRequest(to: "/flaky", timeout: TestEnvironment.arrivalTimeout)
        gate.release()
        await #expect(throws: URLError.self) { try await first.value }
        #expect(try await mock.urlSession.reply("https://example.com/flaky").text == "recovered")
    }

    @Test("a negative afterBytes is a registration error")
    func negativeBytes() async throws {
        let mock = HTTPMock()
        withKnownIssue {
            mock.addResponses(forPath: "/n", responses: [.fault(.connectionLost(afterBytes: -1))])
        } matching: { issue in
            issue.description.contains("afterBytes must be ≥ 0")
        }
        #expect(try await mock.urlSession.reply("https://example.com/n").status == 404)
    }
}

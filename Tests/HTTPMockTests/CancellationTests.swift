import Foundation
import HTTPMock
import Testing

/// Cancelling at the very moment a response completes can deadlock inside FoundationNetworking
/// itself (swift-corelibs-foundation issue 5412, real HTTP too), so these tests cancel well
/// before completion and never race it: each waits until HTTPMock has journaled the request
/// (so its delay is pending) before cancelling, and the delays are long.
@Suite("Cancellation")
struct CancellationTests {
    /// Waits until `mock` has journaled a request to `path` (woken by the journal, no polling:
    /// 150 pollers under ThreadSanitizer cancelled too late).
    static func waitUntilJournaled(_ mock: HTTPMock, _ path: String) async {
        _ = try? await mock.waitForRequest(to: path, timeout: 20)
    }

    /// Runs a completion-handler data task; `cancelWhenJournaled` cancels it once HTTPMock has it.
    static func run(_ mock: HTTPMock, _ path: String, cancelWhenJournaled: Bool) async -> Result<String, any Error> {
        let outcome = Captured<Result<String, any Error>>()
        let done = AsyncSignal()
        let task = mock.urlSession.dataTask(with: url("https://example.com\(path)")) { data, _, error in
            outcome.set(error.map { .failure($0) } ?? .success(String(decoding: data ?? Data(), as: UTF8.self)))
            done.fire()
        }
        task.resume()
        if cancelWhenJournaled {
            await waitUntilJournaled(mock, path)
            task.cancel()
        }
        await done.wait()
        return outcome.value ?? .failure(URLError(.unknown))
    }

    @Test("cancelling a task while its delay is pending fails it with .cancelled and journals that")
    func cancelPendingDelay() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/slow", responses: [.plaintext("late", delivery: .delayed(30))])
        // Not cancelled, the instance's 15 s timeout would end it with .timedOut, not .cancelled.
        let outcome = await Self.run(mock, "/slow", cancelWhenJournaled: true)
        #expect(throws: URLError.self) { try outcome.get() }
        #expect((mock.recordedRequests.first?.error as? URLError)?.code == .cancelled)
    }

    @Test("cancelling the Swift Task awaiting data(for:) cancels the request")
    func cancelSwiftTask() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/slow", responses: [.plaintext("late", delivery: .delayed(30))])
        let request = Task { try await mock.urlSession.reply("https://example.com/slow") }
        await Self.waitUntilJournaled(mock, "/slow")
        try await Task.sleep(nanoseconds: 50_000_000)
        request.cancel()
        let outcome = await request.result
        #expect(throws: (any Error).self) { try outcome.get() }
        #expect((mock.recordedRequests.first?.error as? URLError)?.code == .cancelled)
    }

    @Test("stress: 300 concurrent delayed requests, half cancelled while pending; the rest answered; no crash")
    func cancellationStress() async throws {
        let mock = HTTPMock()
        mock.addResponses(
            forPath: "/item/:n",
            responses: [
                .dynamic(lifetime: .eternal) { request in
                    .plaintext(request.pathParameters["n"] ?? "?", delivery: .delayed(8))
                }
            ])
        // Long delays: under ThreadSanitizer, with the whole suite in parallel, a cancel can take
        // seconds to reach FoundationNetworking's shared work queue.
        mock.addResponses(forPath: "/static/:n", responses: [.plaintext("static", lifetime: .eternal, delivery: .delayed(8))])
        let outcomes = await withTaskGroup(of: (Int, Result<String, any Error>).self) { group in
            for index in 0..<300 {
                group.addTask {
                    let path = "/\(index.isMultiple(of: 3) ? "static" : "item")/\(index)"
                    return (index, await Self.run(mock, path, cancelWhenJournaled: index.isMultiple(of: 2)))
                }
            }
            return await group.reduce(into: [Int: Result<String, any Error>]()) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes.count == 300)
        for (index, outcome) in outcomes {
            switch outcome {
            case .success(let text):
                #expect(!index.isMultiple(of: 2), "request \(index) was cancelled but answered")
                #expect(text == (index.isMultiple(of: 3) ? "static" : "\(index)"))
            case .failure(let error):
                #expect(index.isMultiple(of: 2), "request \(index) was not cancelled but failed: \(error)")
                #expect((error as? URLError)?.code == .cancelled)
            }
        }
        let cancelled = mock.recordedRequests.filter { ($0.error as? URLError)?.code == .cancelled }
        #expect(cancelled.count == 150)
    }

    @Test("a cancelled dynamic handler is cancelled too")
    func cancelDynamicHandler() async throws {
        let mock = HTTPMock()
        let handlerCancelled = Captured<Bool>()
        mock.addResponses(
            forPath: "/work",
            responses: [
                .dynamic { _ in
                    do {
                        try await Task.sleep(nanoseconds: 5_000_000_000)
                    } catch {
                        handlerCancelled.set(true)
                        throw error
                    }
                    return .plaintext("done")
                }
            ])
        _ = await Self.run(mock, "/work", cancelWhenJournaled: true)
        for _ in 0..<300 where handlerCancelled.value != true {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(handlerCancelled.value == true)
    }
}

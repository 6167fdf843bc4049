import Foundation
import HTTPMock
import Testing

/// Cancelling at the very moment a response completes can deadlock inside FoundationNetworking
/// itself (swift-corelibs-foundation issue 5412, real HTTP too), so these tests cancel well
/// before completion and never race it.
@Suite("Cancellation")
struct CancellationTests {
    @Test("cancelling a task while its delay is pending fails it with .cancelled and journals that")
    func cancelPendingDelay() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/slow", responses: [.plaintext("late", delivery: .delayed(5))])
        let result = Captured<(any Error)?>()
        let done = DispatchSemaphore(value: 0)
        let task = mock.urlSession.dataTask(with: url("https://example.com/slow")) { _, _, error in
            result.set(error)
            done.signal()
        }
        task.resume()
        try await Task.sleep(nanoseconds: 100_000_000)
        task.cancel()
        let start = Date()
        while done.wait(timeout: .now()) == .timedOut {
            try await Task.sleep(nanoseconds: 10_000_000)
            #expect(Date().timeIntervalSince(start) < 3, "the cancelled task did not complete")
            if Date().timeIntervalSince(start) >= 3 { return }
        }
        #expect(((result.value ?? nil) as? URLError)?.code == .cancelled)
        #expect((mock.recordedRequests.first?.error as? URLError)?.code == .cancelled)
    }

    @Test("cancelling the Swift Task awaiting data(for:) cancels the request")
    func cancelSwiftTask() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/slow", responses: [.plaintext("late", delivery: .delayed(5))])
        let request = Task { try await mock.urlSession.reply("https://example.com/slow") }
        try await Task.sleep(nanoseconds: 100_000_000)
        request.cancel()
        let start = Date()
        let outcome = await request.result
        #expect(Date().timeIntervalSince(start) < 3)
        #expect(throws: (any Error).self) { try outcome.get() }
    }

    @Test("stress: 300 concurrent delayed requests, half cancelled while pending; the rest answered; no crash")
    func cancellationStress() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/item/:n", responses: [.dynamic(lifetime: .eternal) { request in
            .plaintext(request.pathParameters["n"] ?? "?", delivery: .delayed(0.4))
        }])
        mock.addResponses(forPath: "/static/:n", responses: [.plaintext("static", lifetime: .eternal, delivery: .delayed(0.4))])
        let outcomes = await withTaskGroup(of: (Int, Result<String, any Error>).self) { group in
            for index in 0..<300 {
                group.addTask {
                    let path = index.isMultiple(of: 3) ? "static" : "item"
                    let request = Task { try await mock.urlSession.reply("https://example.com/\(path)/\(index)").text }
                    if index.isMultiple(of: 2) {
                        try? await Task.sleep(nanoseconds: 50_000_000)
                        request.cancel()
                    }
                    return (index, await request.result)
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
            case .failure:
                #expect(index.isMultiple(of: 2), "request \(index) was not cancelled but failed: \(outcome)")
            }
        }
        let cancelled = mock.recordedRequests.filter { ($0.error as? URLError)?.code == .cancelled }
        #expect(cancelled.count == 150)
    }

    @Test("a cancelled dynamic handler is cancelled too")
    func cancelDynamicHandler() async throws {
        let mock = HTTPMock()
        let handlerCancelled = Captured<Bool>()
        mock.addResponses(forPath: "/work", responses: [.dynamic { _ in
            do {
                try await Task.sleep(nanoseconds: 5_000_000_000)
            } catch {
                handlerCancelled.set(true)
                throw error
            }
            return .plaintext("done")
        }])
        let request = Task { try await mock.urlSession.reply("https://example.com/work") }
        try await Task.sleep(nanoseconds: 150_000_000)
        request.cancel()
        _ = await request.result
        for _ in 0..<100 where handlerCancelled.value != true {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(handlerCancelled.value == true)
    }
}

import Foundation
import HTTPMock
import Testing

@Suite("Every URLSession task kind")
struct TaskKindTests {
    let mock = HTTPMock()

    @Test("async data(for:) and data(from:)")
    func asyncData() async throws {
        mock.addResponses(forPath: "/a", responses: [.plaintext("for", lifetime: .multiple(1)), .plaintext("from")])
        let (forData, _) = try await mock.urlSession.data(for: URLRequest(url: url("https://example.com/a")))
        let (fromData, response) = try await mock.urlSession.data(from: url("https://example.com/a"))
        #expect(String(decoding: forData, as: UTF8.self) == "for")
        #expect(String(decoding: fromData, as: UTF8.self) == "from")
        #expect((response as? HTTPURLResponse)?.url == url("https://example.com/a"))
    }

    @Test("completion-handler dataTask")
    func completionHandler() async throws {
        mock.addResponses(forPath: "/c", responses: [.plaintext("completion")])
        let reply = try await mock.urlSession.replyViaCompletionHandler(request("https://example.com/c"))
        #expect(reply.text == "completion")
    }

    @Test("delegate-driven dataTask: response, data and completion reach the delegate")
    func delegateTask() async throws {
        mock.addResponses(forPath: "/d", responses: [.plaintext("delegate", headers: ["X-D": "1"])])
        let delegate = RecordingDelegate()
        let session = mock.delegateSession(delegate)
        defer { session.finishTasksAndInvalidate() }

        session.dataTask(with: url("https://example.com/d")).resume()
        await delegate.completion()

        #expect(delegate.error == nil)
        #expect(delegate.response?.statusCode == 200)
        #expect(delegate.response?.value(forHTTPHeaderField: "X-D") == "1")
        #expect(String(decoding: delegate.body, as: UTF8.self) == "delegate")
    }

    @Test("delegate-driven task gets a transport failure in didCompleteWithError")
    func delegateTaskFailure() async throws {
        mock.addResponses(forPath: "/f", responses: [.failure(URLError(.networkConnectionLost))])
        let delegate = RecordingDelegate()
        let session = mock.delegateSession(delegate)
        defer { session.finishTasksAndInvalidate() }

        session.dataTask(with: url("https://example.com/f")).resume()
        await delegate.completion()

        #expect((delegate.error as? URLError)?.code == .networkConnectionLost)
    }

    @Test("upload(for:from:): the body reaches the journal")
    func asyncUpload() async throws {
        mock.addResponses(forPath: "/up", method: .post, responses: [.empty(status: .created)])
        let body = Data("uploaded bytes".utf8)
        let (_, response) = try await mock.urlSession.upload(for: request("https://example.com/up", method: "POST"), from: body)

        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        #expect(mock.recordedRequests.first?.request.body == body)
    }

    @Test("uploadTask(with:from:) with a completion handler")
    func uploadTaskFromData() async throws {
        mock.addResponses(forPath: "/up", method: .put, responses: [.plaintext("stored")])
        let body = Data((0..<10_000).map { UInt8($0 % 256) })
        let reply: Reply = try await withCheckedThrowingContinuation { continuation in
            mock.urlSession.uploadTask(with: request("https://example.com/up", method: "PUT"), from: body) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                continuation.resume(returning: Reply(data: data ?? Data(), response: response as! HTTPURLResponse))
            }.resume()
        }
        #expect(reply.text == "stored")
        #expect(mock.requests(to: "/up", method: .put).first?.request.body == body)
    }

    @Test("uploadTask(with:fromFile:)")
    func uploadTaskFromFile() async throws {
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (fileURL, body) = try Fixtures.patternFile(bytes: 70_000, in: directory)
        mock.addResponses(forPath: "/file", method: .post, responses: [.empty(status: .accepted)])

        let status: Int = try await withCheckedThrowingContinuation { continuation in
            mock.urlSession.uploadTask(with: request("https://example.com/file", method: "POST"), fromFile: fileURL) { _, response, error in
                if let error { return continuation.resume(throwing: error) }
                continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode ?? -1)
            }.resume()
        }
        #expect(status == 202)
        #expect(mock.recordedRequests.first?.request.body == body)
    }

    @Test("httpBody and httpBodyStream bodies are journaled")
    func requestBodies() async throws {
        mock.addResponses(forPath: "/b", responses: [.empty(lifetime: .multiple(2))])
        _ = try await mock.urlSession.reply(request("https://example.com/b", method: "POST", body: Data("plain".utf8)))
        var streamed = request("https://example.com/b", method: "POST")
        streamed.httpBodyStream = InputStream(data: Data("streamed".utf8))
        _ = try await mock.urlSession.reply(streamed)

        #expect(mock.recordedRequests.map { $0.request.body.map { String(decoding: $0, as: UTF8.self) } } == ["plain", "streamed"])
    }

    #if canImport(FoundationNetworking)
    @Test("download tasks fail at once with URLError(.unsupportedURL) and an explanation, never crash")
    func downloadTaskFailsCleanly() async throws {
        mock.addResponses(forPath: "/dl", responses: [.plaintext("file")])
        let error: (any Error)? = await withCheckedContinuation { continuation in
            mock.urlSession.downloadTask(with: url("https://example.com/dl")) { _, _, error in
                continuation.resume(returning: error)
            }.resume()
        }
        let urlError = try #require(error as? URLError)
        #expect(urlError.code == .unsupportedURL)
        #expect(urlError.localizedDescription.contains("download tasks"))
        #expect(mock.recordedRequests.first?.isMatched == false)
        // The mock was not consumed: a data task still gets it.
        #expect(try await mock.urlSession.reply("https://example.com/dl").text == "file")
    }
    #endif

    @Test("a body larger than one chunk arrives whole through data(for:) and completion handlers")
    func multiChunkBodyArrivesWhole() async throws {
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (fileURL, body) = try Fixtures.patternFile(bytes: 3 * 256 * 1024 + 123, in: directory)
        mock.addResponses(forPath: "/big", responses: [.file(url: fileURL, lifetime: .multiple(2))])

        let viaAsync = try await mock.urlSession.reply("https://example.com/big")
        let viaHandler = try await mock.urlSession.replyViaCompletionHandler(request("https://example.com/big"))
        #expect(viaAsync.data == body)
        #expect(viaHandler.data == body)
        #expect(viaAsync.header("Content-Length") == String(body.count))
    }

    @Test("a delegate-driven task receives a file body in several chunks, whole and in order")
    func delegateReceivesChunks() async throws {
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (fileURL, body) = try Fixtures.patternFile(bytes: 4 * 256 * 1024 + 7, in: directory)
        mock.addResponses(forPath: "/big", responses: [.file(url: fileURL)])
        let delegate = RecordingDelegate()
        let session = mock.delegateSession(delegate)
        defer { session.finishTasksAndInvalidate() }

        session.dataTask(with: url("https://example.com/big")).resume()
        await delegate.completion()

        #expect(delegate.error == nil)
        #expect(delegate.chunks.count == 5)
        #expect(delegate.body == body)
        #expect(delegate.response?.expectedContentLength == Int64(body.count))
    }

    @Test("cancelling a delegate task mid-stream stops delivery without crashing")
    func cancelDuringStream() async throws {
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fileURL = try Fixtures.sparseFile(bytes: 64 * 256 * 1024, in: directory)
        mock.addResponses(forPath: "/big", responses: [.file(url: fileURL)])
        let cancelled = Cancellation()
        let delegate = RecordingDelegate(keepsChunks: false) { _ in cancelled.fire() }
        let session = mock.delegateSession(delegate)
        defer { session.finishTasksAndInvalidate() }

        let task = session.dataTask(with: url("https://example.com/big"))
        cancelled.set { task.cancel() }
        task.resume()
        await delegate.completion()

        #expect((delegate.error as? URLError)?.code == .cancelled)
        #expect(delegate.byteCount < 64 * 256 * 1024)
    }
}

/// Runs an action once, the first time `fire()` is called.
final class Cancellation: @unchecked Sendable {
    // @unchecked: state guarded by `lock`.
    private let lock = NSLock()
    private var action: (@Sendable () -> Void)?

    func set(_ action: @escaping @Sendable () -> Void) { lock.withLock { self.action = action } }

    func fire() {
        let action = lock.withLock { () -> (@Sendable () -> Void)? in
            defer { self.action = nil }
            return self.action
        }
        action?()
    }
}

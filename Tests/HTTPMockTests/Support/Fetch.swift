import Foundation
import HTTPMock

/// Ways of making a request through a real `URLSession`, so every test can say which task
/// kind it exercises.
struct Reply: Sendable {
    var data: Data
    var response: HTTPURLResponse

    var status: Int { response.statusCode }
    var text: String { String(decoding: data, as: UTF8.self) }
    func header(_ name: String) -> String? { response.value(forHTTPHeaderField: name) }
}

enum FetchError: Error {
    case notHTTP
}

func url(_ string: String) -> URL {
    guard let url = URL(string: string) else { preconditionFailure("bad test URL \(string)") }
    return url
}

func request(_ string: String, method: String = "GET", body: Data? = nil, headers: [String: String] = [:]) -> URLRequest {
    var request = URLRequest(url: url(string))
    request.httpMethod = method
    request.httpBody = body
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    return request
}

extension URLSession {
    /// async `data(for:)`.
    func reply(_ request: URLRequest) async throws -> Reply {
        let (data, response) = try await data(for: request)
        guard let http = response as? HTTPURLResponse else { throw FetchError.notHTTP }
        return Reply(data: data, response: http)
    }

    func reply(_ string: String) async throws -> Reply {
        try await reply(request(string))
    }

    /// A POST of `body` (UTF-8) to `https://api.example.com` + `path`: the status and the text.
    func post(_ path: String, _ body: String) async throws -> (Int, String) {
        let reply = try await reply(request("https://api.example.com\(path)", method: "POST", body: Data(body.utf8)))
        return (reply.status, reply.text)
    }

    /// Completion-handler `dataTask(with:completionHandler:)`.
    func replyViaCompletionHandler(_ request: URLRequest) async throws -> Reply {
        try await withCheckedThrowingContinuation { continuation in
            dataTask(with: request) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                guard let http = response as? HTTPURLResponse else { return continuation.resume(throwing: FetchError.notHTTP) }
                continuation.resume(returning: Reply(data: data ?? Data(), response: http))
            }.resume()
        }
    }
}

/// A session delegate that records everything a delegate-driven data task receives.
final class RecordingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: every field is touched under `lock`.
    private let lock = NSLock()
    private var _response: URLResponse?
    private var _chunks: [Data] = []
    private var _byteCount = 0
    private var _error: (any Error)?
    private let finished = AsyncSignal()
    /// When false, chunks are counted but not kept (for very large bodies).
    let keepsChunks: Bool
    /// Called with each chunk's size, on the delegate queue.
    let onChunk: (@Sendable (Int) -> Void)?

    init(keepsChunks: Bool = true, onChunk: (@Sendable (Int) -> Void)? = nil) {
        self.keepsChunks = keepsChunks
        self.onChunk = onChunk
    }

    var response: HTTPURLResponse? { lock.withLock { _response as? HTTPURLResponse } }
    var chunks: [Data] { lock.withLock { _chunks } }
    var byteCount: Int { lock.withLock { _byteCount } }
    var error: (any Error)? { lock.withLock { _error } }
    var body: Data { chunks.reduce(Data(), +) }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        lock.withLock { _response = response }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock {
            _byteCount += data.count
            if keepsChunks { _chunks.append(data) }
        }
        onChunk?(data.count)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.withLock { _error = error }
        finished.fire()
    }

    /// Waits until the task completed.
    func completion() async {
        await finished.wait()
    }
}

extension HTTPMock {
    /// A session of this instance that reports to `delegate`.
    func delegateSession(_ delegate: RecordingDelegate) -> URLSession {
        URLSession(configuration: makeSessionConfiguration(), delegate: delegate, delegateQueue: nil)
    }
}

/// A one-shot signal an async test can wait for.
final class AsyncSignal: @unchecked Sendable {
    // @unchecked: state guarded by `lock`.
    private let lock = NSLock()
    private var fired = false
    private var waiter: CheckedContinuation<Void, Never>?

    func fire() {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            fired = true
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let alreadyFired = lock.withLock { () -> Bool in
                if fired { return true }
                waiter = continuation
                return false
            }
            if alreadyFired { continuation.resume() }
        }
    }
}

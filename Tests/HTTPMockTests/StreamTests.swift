import Foundation
import HTTPMock
import Testing

/// A delegate that parses a `text/event-stream` line by line as the bytes arrive, like an SSE
/// client, and records when each event was complete.
final class EventStreamParser: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: every field is touched under `lock`.
    struct Event: Sendable, Equatable {
        var event: String?
        var id: String?
        var retry: Int?
        var data: [String] = []
    }

    private let lock = NSLock()
    private var pending = ""
    private var current = Event()
    private var _events: [(Event, Date)] = []
    private var _chunks = 0
    private var _response: HTTPURLResponse?
    private var _error: (any Error)?
    private let finished = AsyncSignal()
    private let firstEvent = AsyncSignal()

    var events: [Event] { lock.withLock { _events.map(\.0) } }
    var arrivals: [Date] { lock.withLock { _events.map(\.1) } }
    var chunkCount: Int { lock.withLock { _chunks } }
    var response: HTTPURLResponse? { lock.withLock { _response } }
    var error: (any Error)? { lock.withLock { _error } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        lock.withLock { _response = response as? HTTPURLResponse }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let gotFirst = lock.withLock { () -> Bool in
            let before = _events.count
            _chunks += 1
            pending += String(decoding: data, as: UTF8.self)
            while let newline = pending.firstIndex(of: "\n") {
                let line = String(pending[..<newline])
                pending = String(pending[pending.index(after: newline)...])
                if line.isEmpty {
                    _events.append((current, Date()))
                    current = Event()
                } else if let colon = line.firstIndex(of: ":") {
                    let field = String(line[..<colon])
                    var value = line[line.index(after: colon)...]
                    if value.first == " " { value = value.dropFirst() }
                    switch field {
                    case "event": current.event = String(value)
                    case "id": current.id = String(value)
                    case "retry": current.retry = Int(value)
                    case "data": current.data.append(String(value))
                    default: break
                    }
                }
            }
            return before == 0 && !_events.isEmpty
        }
        if gotFirst { firstEvent.fire() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.withLock { _error = error }
        finished.fire()
    }

    func completion() async { await finished.wait() }
    func firstEventArrived() async { await firstEvent.wait() }
}

/// Fails the test instead of hanging when `operation` takes longer than `seconds`. The operation
/// runs unstructured, so one that ignores cancellation (an `AsyncSignal` never fired) cannot
/// keep the watchdog waiting; it is left behind.
func withWatchdog<T: Sendable>(_ seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = Captured<Result<T, any Error>>()
    let done = AsyncSignal()
    let work = Task {
        let result: Result<T, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        outcome.set(result)
        done.fire()
    }
    let timer = Task {
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
        done.fire()
    }
    await done.wait()
    timer.cancel()
    guard let result = outcome.value else {
        work.cancel()
        throw WatchdogTimeout(seconds: seconds)
    }
    return try result.get()
}

struct WatchdogTimeout: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "watchdog: no completion within \(seconds) s" }
}

@Suite("Event streams", .serialized)
struct StreamTests {
    static let chat = [
        ServerSentEvent(data: #"{"delta":"Hel"}"#, event: "message", id: "1"),
        ServerSentEvent(data: "line one\nline two\r\nline three", id: "2", retry: 3000),
        ServerSentEvent(data: "[DONE]"),
    ]

    @Test("events are framed per the SSE spec: fields, one data: line per line, a blank line")
    func framing() {
        #expect(Self.chat[0].framed == "event: message\nid: 1\ndata: {\"delta\":\"Hel\"}\n\n")
        #expect(Self.chat[1].framed == "id: 2\nretry: 3000\ndata: line one\ndata: line two\ndata: line three\n\n")
        #expect(ServerSentEvent(data: "").framed == "data: \n\n")
        #expect(ServerSentEvent(data: "a\rb\n").framed == "data: a\ndata: b\ndata: \n\n")
        #expect(ServerSentEvent(data: "a\u{2028}b").framed == "data: a\u{2028}b\n\n")  // not an SSE line end
    }

    @Test("framing splits data at CR, LF and CRLF only, whatever marks or other breaks surround them (2,000 seeded texts)")
    func framingMatchesTheLineGrammar() {
        // The reference: the SSE grammar's line ends, by UTF-8 bytes (CRLF is one line end).
        func reference(_ data: String) -> String {
            var lines: [[UInt8]] = [[]]
            let bytes = Array(data.utf8)
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") {
                    if byte == UInt8(ascii: "\r"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { index += 1 }
                    lines.append([])
                } else {
                    lines[lines.count - 1].append(byte)
                }
                index += 1
            }
            return lines.map { "data: " + String(decoding: $0, as: UTF8.self) + "\n" }.joined() + "\n"
        }
        let pieces = ["a", "{\"k\":1}", "\r", "\n", "\r\n", "\u{301}", "é", "\u{2028}", "\u{85}", "👍🏽", " ", "\u{200D}"]
        var generator = PatternReferenceTests.Generator(state: 0x5EED)
        var mismatches: [String] = []
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...12, using: &generator)
            let data = (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined()
            if ServerSentEvent(data: data).framed != reference(data) { mismatches.append(data.debugDescription) }
        }
        #expect(mismatches.isEmpty, "framed differently: \(mismatches.prefix(5))")
    }

    @Test("a delegate-driven task parses each event as it arrives, before the last is sent")
    func delegateReceivesEventByEvent() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/v1/chat", method: .post, responses: [.eventStream(Self.chat, interval: 0.5)])
        let parser = EventStreamParser()
        let session = URLSession(configuration: mock.makeSessionConfiguration(), delegate: parser, delegateQueue: nil)
        let start = Date()
        session.dataTask(with: request("https://example.com/v1/chat", method: "POST")).resume()
        try await withWatchdog(10) { await parser.completion() }
        let end = Date()
        #expect(parser.error == nil)
        #expect(parser.response?.statusCode == 200)
        #expect(parser.response?.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
        #expect(parser.response?.value(forHTTPHeaderField: "Cache-Control") == "no-cache")
        #expect(parser.response?.value(forHTTPHeaderField: "Content-Length") == nil)
        #expect(parser.chunkCount == 3)  // one didReceive per event
        #expect(
            parser.events == [
                .init(event: "message", id: "1", data: [#"{"delta":"Hel"}"#]),
                .init(id: "2", retry: 3000, data: ["line one", "line two", "line three"]),
                .init(data: ["[DONE]"]),
            ])
        // The first event was parsed well before the last was sent (2 intervals, 1 s, after it):
        // lower bounds only, with room for a stalled delegate queue.
        let arrivals = parser.arrivals
        #expect(arrivals.count == 3)
        if arrivals.count == 3 {
            #expect(arrivals[2].timeIntervalSince(arrivals[0]) >= 0.4)
        }
        #expect(end.timeIntervalSince(start) >= 0.95)
    }

    @Test("data(for:) and completion handlers get the whole stream at the end")
    func asyncAndCompletionGetWholeStream() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/events", responses: [.eventStream(Self.chat, interval: 0.1, lifetime: .multiple(2))])
        let expected = Self.chat.map(\.framed).joined()
        let start = Date()
        let viaAsync = try await mock.urlSession.reply("https://example.com/events")
        #expect(Date().timeIntervalSince(start) >= 0.18)
        #expect(viaAsync.text == expected)
        #expect(viaAsync.header("Content-Type") == "text/event-stream")
        let viaCompletion = try await mock.urlSession.replyViaCompletionHandler(request("https://example.com/events"))
        #expect(viaCompletion.text == expected)
    }

    @Test("a stream from an AsyncSequence sends each event when the sequence yields it")
    func sequenceDrivenByTheTest() async throws {
        let mock = HTTPMock()
        let (events, continuation) = AsyncStream.makeStream(of: ServerSentEvent.self)
        let box = Captured<AsyncStream<ServerSentEvent>>()
        box.set(events)
        mock.addResponses(
            forPath: "/live",
            responses: [
                .eventStreamFromSequence { request in
                    guard let events = box.value else { throw URLError(.unknown) }
                    return events.map { ServerSentEvent(data: "\($0.data) for \(request.url.path)", id: $0.id) }
                }
            ])
        let parser = EventStreamParser()
        let session = URLSession(configuration: mock.makeSessionConfiguration(), delegate: parser, delegateQueue: nil)
        session.dataTask(with: url("https://example.com/live")).resume()
        continuation.yield(ServerSentEvent(data: "first", id: "1"))
        try await withWatchdog(10) {
            await parser.firstEventArrived()
            #expect(parser.events == [.init(id: "1", data: ["first for /live"])])
            continuation.yield(ServerSentEvent(data: "second"))
            continuation.finish()
            await parser.completion()
        }
        #expect(parser.error == nil)
        #expect(parser.events.map(\.data) == [["first for /live"], ["second for /live"]])
    }

    @Test("cancelling the task mid-stream ends the sequence and delivers nothing more")
    func cancelMidStream() async throws {
        let mock = HTTPMock()
        let terminated = AsyncSignal()
        let box = Captured<AsyncStream<ServerSentEvent>.Continuation>()
        mock.addResponses(
            forPath: "/live",
            responses: [
                .eventStreamFromSequence { _ in
                    AsyncStream<ServerSentEvent> { continuation in
                        continuation.onTermination = { _ in terminated.fire() }
                        continuation.yield(ServerSentEvent(data: "first"))
                        box.set(continuation)
                    }
                }
            ])
        let parser = EventStreamParser()
        let session = URLSession(configuration: mock.makeSessionConfiguration(), delegate: parser, delegateQueue: nil)
        let task = session.dataTask(with: url("https://example.com/live"))
        task.resume()
        try await withWatchdog(10) {
            await parser.firstEventArrived()
            task.cancel()
            await parser.completion()
            await terminated.wait()  // the task iterating the sequence was cancelled
        }
        box.value?.yield(ServerSentEvent(data: "too late"))
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(parser.events.map(\.data) == [["first"]])
        #expect((parser.error as? URLError)?.code == .cancelled)
        #expect((mock.recordedRequests.first?.error as? URLError)?.code == .cancelled)
    }

    @Test("an error thrown by the sequence fails the request after the events already sent")
    func sequenceThrows() async throws {
        struct Broken: Error {}
        let mock = HTTPMock()
        mock.addResponses(
            forPath: "/broken",
            responses: [
                .eventStreamFromSequence(lifetime: .multiple(2)) { _ in
                    AsyncThrowingStream<ServerSentEvent, any Error> { continuation in
                        continuation.yield(ServerSentEvent(data: "one"))
                        continuation.finish(throwing: Broken())
                    }
                }
            ])
        let parser = EventStreamParser()
        let session = URLSession(configuration: mock.makeSessionConfiguration(), delegate: parser, delegateQueue: nil)
        session.dataTask(with: url("https://example.com/broken")).resume()
        try await withWatchdog(10) { await parser.completion() }
        #expect(parser.events.map(\.data) == [["one"]])
        #expect(parser.error is Broken)
        await #expect(throws: Broken.self) { try await mock.urlSession.reply("https://example.com/broken") }
    }

    @Test("a stream cut by the request timeout ends with .timedOut")
    func cutByTimeout() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/stall", responses: [.eventStream(Self.chat, interval: 2)])
        let parser = EventStreamParser()
        let session = URLSession(configuration: mock.makeSessionConfiguration(), delegate: parser, delegateQueue: nil)
        var stalling = request("https://example.com/stall")
        stalling.timeoutInterval = 0.4
        let start = Date()
        session.dataTask(with: stalling).resume()
        try await withWatchdog(10) { await parser.completion() }
        #expect(Date().timeIntervalSince(start) >= 0.35)
        #expect(parser.events.count == 1)  // cut after the first event: the second was 2 s away
        #expect((parser.error as? URLError)?.code == .timedOut)
        #expect((mock.recordedRequests.first?.error as? URLError)?.code == .timedOut)
    }

    @Test("a dynamic response can answer with a held event stream; HEAD gets the head only")
    func dynamicHeldStream() async throws {
        let mock = HTTPMock()
        let gate = ResponseGate()
        mock.addResponses(
            forPath: "/feed",
            responses: [
                .dynamic(lifetime: .multiple(2), delivery: .held(gate)) { request in
                    .eventStream([ServerSentEvent(data: "hello \(request.url.query ?? "")")])
                }
            ])
        let reply = Task { try await mock.urlSession.reply("https://example.com/feed?who=ada") }
        _ = try await mock.waitForRequest(to: "/feed", timeout: TestEnvironment.arrivalTimeout)
        gate.release()
        let text = try await withWatchdog(10) { try await reply.value.text }
        #expect(text == "data: hello who=ada\n\n")
        let head = try await mock.urlSession.reply(request("https://example.com/feed", method: "HEAD"))
        #expect(head.status == 200)
        #expect(head.data.isEmpty)
        #expect(head.header("Content-Type") == "text/event-stream")
    }

    @Test("an event that cannot be framed is a registration error at the call site")
    func unframeableEvent() async throws {
        let mock = HTTPMock()
        withKnownIssue {
            mock.addResponses(forPath: "/bad", responses: [.eventStream([ServerSentEvent(data: "x", event: "two\nlines")])])
        } matching: { issue in
            issue.description.contains("event 0 cannot be framed") && issue.description.contains("line break")
        }
        let reply = try await mock.urlSession.reply("https://example.com/bad")
        #expect(reply.status == 404)
    }
}

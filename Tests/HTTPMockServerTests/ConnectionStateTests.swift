#if Server
import NIOCore
import NIOHTTP1
import Testing

@testable import HTTPMockServer

/// The connection's state machine, event by event, with no socket: what ``ConnectionHandler``
/// is told to do for each read, answer, refusal and half-close.
@Suite("The connection's state machine, without a socket")
struct ConnectionStateTests {
    static func head(_ method: HTTPMethod = .GET, _ uri: String = "/a", version: HTTPVersion = .http1_1) -> HTTPRequestHead {
        HTTPRequestHead(version: version, method: method, uri: uri)
    }

    static func buffer(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    /// The request `serve` action's parts, or `nil` for any other action.
    static func served(_ action: ConnectionState.Action) -> (id: Int, uri: String, body: String?)? {
        guard case .serve(let id, let head, let body) = action else { return nil }
        return (id, head.uri, body.map { String(buffer: $0) })
    }

    static func refusal(_ action: ConnectionState.Action) -> HTTPResponseStatus? {
        guard case .writeRefusal(let refusal) = action else { return nil }
        return refusal.status
    }

    static func isNone(_ action: ConnectionState.Action) -> Bool {
        if case .none = action { return true }
        return false
    }

    static func isClose(_ action: ConnectionState.Action) -> Bool {
        if case .close = action { return true }
        return false
    }

    @Test("head, body in parts, end: served once with the whole body; each request gets the next ID")
    func readsAndServes() throws {
        var state = ConnectionState(maximumBody: 100)
        #expect(Self.isNone(state.receivedHead(Self.head(.POST), expectsContinue: false) { nil }))
        var first = Self.buffer("hello ")
        var second = Self.buffer("world")
        #expect(Self.isNone(state.receivedBody(&first)))
        #expect(Self.isNone(state.receivedBody(&second)))
        let served = try #require(Self.served(state.receivedEnd()))
        #expect(served.id == 1)
        #expect(served.body == "hello world")
        // A second end without a head serves nothing.
        #expect(Self.isNone(state.receivedEnd()))
        state.startAnswering(1, version: .http1_1)
        #expect(!state.isIdle)
        #expect(Self.isNone(state.answered(1)))
        #expect(state.isIdle)
        _ = state.receivedHead(Self.head(.GET, "/b"), expectsContinue: false) { nil }
        let next = try #require(Self.served(state.receivedEnd()))
        #expect(next.id == 2 && next.uri == "/b" && next.body == nil)
    }

    @Test("Expect: 100-continue is answered with an interim response in the request's version")
    func sendsContinue() {
        var state = ConnectionState(maximumBody: 100)
        guard case .sendContinue(let version) = state.receivedHead(Self.head(.PUT), expectsContinue: true, refusal: { nil }) else {
            Issue.record("no 100 Continue")
            return
        }
        #expect(version == .http1_1)
    }

    @Test("a body over the limit: 413 at once, and the rest of the connection is ignored")
    func bodyOverTheLimit() {
        var state = ConnectionState(maximumBody: 8)
        _ = state.receivedHead(Self.head(.POST), expectsContinue: false) { nil }
        var small = Self.buffer("12345")
        var more = Self.buffer("6789")
        #expect(Self.isNone(state.receivedBody(&small)))
        #expect(Self.refusal(state.receivedBody(&more)) == .payloadTooLarge)
        #expect(state.isRejected)
        #expect(Self.isNone(state.receivedEnd()))
        #expect(Self.isNone(state.receivedHead(Self.head(), expectsContinue: false) { nil }))
    }

    @Test("a refused head is never served; the refusal is computed only for a connection not refused yet")
    func refusedHead() {
        var state = ConnectionState(maximumBody: 8)
        #expect(Self.refusal(state.receivedHead(Self.head(), expectsContinue: false) { (.uriTooLong, "long") }) == .uriTooLong)
        #expect(Self.isNone(state.receivedEnd()))
        var asked = false
        _ = state.receivedHead(Self.head(), expectsContinue: false) {
            asked = true
            return nil
        }
        #expect(!asked)
    }

    @Test("a refusal while an answer is in progress waits for it, once; a second refusal is dropped")
    func refusalWaitsForTheAnswer() {
        var state = ConnectionState(maximumBody: 8)
        _ = state.receivedHead(Self.head(), expectsContinue: false) { nil }
        _ = state.receivedEnd()
        state.startAnswering(1, version: .http1_1)
        // The pipelined request behind it fails to parse.
        #expect(Self.isNone(state.parserFailed(.invalidHeaderToken)))
        #expect(Self.isNone(state.reject((.notImplemented, "second"))))
        // A stale answer's clean-up changes nothing.
        #expect(Self.isNone(state.answered(7)))
        #expect(Self.refusal(state.answered(1)) == .badRequest)
        #expect(Self.isNone(state.answered(1)))
    }

    @Test("parser errors: 431 for an overflowing header block, 400 otherwise")
    func parserErrors() {
        var overflow = ConnectionState(maximumBody: 8)
        #expect(Self.refusal(overflow.parserFailed(.headerOverflow)) == .requestHeaderFieldsTooLarge)
        var malformed = ConnectionState(maximumBody: 8)
        #expect(Self.refusal(malformed.parserFailed(.invalidVersion)) == .badRequest)
    }

    @Test("half-close: closed at once when idle; after the answer when one is in progress; after the request being read is answered")
    func halfClose() {
        var idle = ConnectionState(maximumBody: 8)
        #expect(Self.isClose(idle.inputClosed()))

        var answering = ConnectionState(maximumBody: 8)
        _ = answering.receivedHead(Self.head(), expectsContinue: false) { nil }
        _ = answering.receivedEnd()
        answering.startAnswering(1, version: .http1_1)
        guard case .probe(let id) = answering.inputClosed() else {
            Issue.record("no probe for an HTTP/1.1 answer in progress")
            return
        }
        #expect(id == 1)
        #expect(Self.isClose(answering.answered(1)))

        var reading = ConnectionState(maximumBody: 8)
        _ = reading.receivedHead(Self.head(), expectsContinue: false) { nil }
        #expect(Self.isNone(reading.inputClosed()))
        let served = Self.served(reading.receivedEnd())
        #expect(served?.id == 1)
        reading.startAnswering(1, version: .http1_1)
        #expect(Self.isClose(reading.answered(1)))
    }

    @Test("no probe for HTTP/1.0, which does not accept an interim response")
    func noProbeForHTTP10() {
        var state = ConnectionState(maximumBody: 8)
        _ = state.receivedHead(Self.head(version: .http1_0), expectsContinue: false) { nil }
        _ = state.receivedEnd()
        state.startAnswering(1, version: .http1_0)
        #expect(Self.isNone(state.inputClosed()))
    }

    @Test("a probe is due only while its request is answered from a task")
    func probeDue() {
        var state = ConnectionState(maximumBody: 8)
        _ = state.receivedHead(Self.head(), expectsContinue: false) { nil }
        _ = state.receivedEnd()
        state.startAnswering(1, version: .http1_1)
        #expect(state.probeDue(1) == nil)  // written from the event loop: no flag
        let writing = WritingFlag()
        let task = Task<Void, Never> {}
        state.answerRuns(in: task, writing: writing)
        #expect(state.probeDue(1) === writing)
        #expect(state.probeDue(2) == nil)
        _ = state.answered(1)
        #expect(state.probeDue(1) == nil)
    }

    @Test("CONNECT opens a tunnel instead of serving; closing hands back the running task to cancel")
    func connectAndClose() {
        var state = ConnectionState(maximumBody: 8)
        _ = state.receivedHead(Self.head(.CONNECT, "example.com:80"), expectsContinue: false) { nil }
        guard case .connect(let head) = state.receivedEnd() else {
            Issue.record("CONNECT was not a tunnel")
            return
        }
        #expect(head.uri == "example.com:80")

        var running = ConnectionState(maximumBody: 8)
        _ = running.receivedHead(Self.head(), expectsContinue: false) { nil }
        _ = running.receivedEnd()
        running.startAnswering(1, version: .http1_1)
        let task = Task<Void, Never> { try? await Task.sleep(for: .seconds(60)) }
        running.answerRuns(in: task, writing: WritingFlag())
        let handedBack = running.closed()
        #expect(handedBack != nil)
        handedBack?.cancel()
        #expect(running.isIdle)
        #expect(running.closed() == nil)
    }
}
#endif

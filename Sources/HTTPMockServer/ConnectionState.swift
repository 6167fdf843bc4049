#if Server
import NIOCore
import NIOHTTP1

/// One HTTP/1 connection's state as a value: the request being read, the one being answered, a
/// refusal waiting for that answer to end, whether the client half-closed.
///
/// ``ConnectionHandler`` feeds it its channel's events and carries out the ``Action`` each
/// returns; the state touches no channel, so every transition is tested without a socket
/// (`ConnectionStateTests`). One request is answered at a time: NIO's
/// `HTTPServerPipelineHandler` holds a pipelined request back until the answer before it ends.
///
/// Per-request state belongs to its request: each request gets an ID when its head arrives, and
/// the clean-up after its answer (``answered(_:)``) changes anything only while that ID is still
/// the one being answered. NIO delivers the next pipelined request (or a parser error) from
/// inside the write of the previous response's end, before that clean-up runs.
struct ConnectionState {
    /// A refusal: its status and the text of its body.
    typealias Refusal = (status: HTTPResponseStatus, reason: String)

    /// A request being read: from its head to its end.
    private struct Incoming {
        let id: Int
        let head: HTTPRequestHead
        var body: ByteBuffer?
    }

    /// A request being answered: from its end until its response ends.
    struct Answering {
        let id: Int
        let version: HTTPVersion
        /// Set by the request's task once it starts writing the response; `nil` for an answer
        /// written from the event loop, which is written before the loop turns again.
        var writing: WritingFlag?
        /// The task computing the answer, cancelled when the connection closes.
        var task: Task<Void, Never>?
    }

    /// What the handler does after an event.
    enum Action {
        /// Nothing (yet).
        case none
        /// Writes an interim `100 Continue` in `version`: the client waits for it to send its body.
        case sendContinue(HTTPVersion)
        /// Writes the refusal and closes the connection's output.
        case writeRefusal(Refusal)
        /// Answers the whole request `id`.
        case serve(id: Int, head: HTTPRequestHead, body: ByteBuffer?)
        /// Opens a tunnel (`CONNECT`).
        case connect(HTTPRequestHead)
        /// Closes the connection.
        case close
        /// Schedules the probe of a client that half-closed while request `id` is answered
        /// (``ConnectionHandler``'s `scheduleProbe`); ``probeDue(_:)`` says whether it is still due.
        case probe(id: Int)
    }

    /// The largest request body read; a larger one is refused `413`.
    let maximumBody: Int
    private var lastID = 0
    private var incoming: Incoming?
    /// The request being answered, if any.
    private(set) var answering: Answering?
    private var pendingRefusal: Refusal?
    /// Set when a request was refused: the rest of the connection is ignored.
    private(set) var isRejected = false
    /// The client half-closed its side: close once the answer in progress is written.
    private var isInputClosed = false

    init(maximumBody: Int) {
        self.maximumBody = maximumBody
    }

    /// Whether no request is being answered (the idle check closes only such a connection).
    var isIdle: Bool { answering == nil }

    // MARK: - Reading

    /// A request's head: refused when `refusal` says so, else read, with `100 Continue` when
    /// the client waits for it (`expectsContinue`).
    mutating func receivedHead(_ head: HTTPRequestHead, expectsContinue: Bool, refusal: () -> Refusal?) -> Action {
        guard !isRejected else { return .none }
        lastID += 1
        if let refusal = refusal() { return reject(refusal) }
        incoming = Incoming(id: lastID, head: head, body: nil)
        return expectsContinue ? .sendContinue(head.version) : .none
    }

    /// A part of the body being read: appended in place, or a `413` once the body passes
    /// ``maximumBody``.
    mutating func receivedBody(_ chunk: inout ByteBuffer) -> Action {
        guard !isRejected, incoming != nil else { return .none }
        let read = incoming?.body?.readableBytes ?? 0
        if read + chunk.readableBytes > maximumBody {
            incoming = nil
            return reject((.payloadTooLarge, ConnectionHandler.tooLarge(maximumBody)))
        }
        // Appended in place: a copy of `incoming` taken here would share its buffer, and the
        // append would then copy the whole body so far for every chunk (quadratic).
        if read == 0 {
            incoming?.body = chunk
        } else {
            incoming?.body?.writeBuffer(&chunk)
        }
        return .none
    }

    /// A request's end: it is served (or its tunnel opened).
    mutating func receivedEnd() -> Action {
        guard !isRejected, let request = incoming.take() else { return .none }
        if request.head.method == .CONNECT { return .connect(request.head) }
        return .serve(id: request.id, head: request.head, body: request.body)
    }

    /// NIO's parser failed: `431` for a header block over its limit, else `400`.
    mutating func parserFailed(_ error: HTTPParserError) -> Action {
        incoming = nil
        if error == .headerOverflow {
            return reject((.requestHeaderFieldsTooLarge, ConnectionHandler.headerBlockTooLarge))
        }
        return reject((.badRequest, "HTTPMock: malformed HTTP request (\(error)).\n"))
    }

    /// The client half-closed its side. A request followed by a half-close is answered first.
    mutating func inputClosed() -> Action {
        isInputClosed = true
        if let answering {
            // The probe is an interim response, which only HTTP/1.1 clients accept.
            guard answering.version.major == 1, answering.version.minor >= 1 else { return .none }
            return .probe(id: answering.id)
        }
        return incoming == nil ? .close : .none
    }

    // MARK: - Answering

    /// Request `id` is being answered now.
    mutating func startAnswering(_ id: Int, version: HTTPVersion) {
        answering = Answering(id: id, version: version)
    }

    /// The answer of the request being answered is computed and written by `task`, which sets
    /// `writing` when it starts writing.
    mutating func answerRuns(in task: Task<Void, Never>, writing: WritingFlag) {
        answering?.writing = writing
        answering?.task = task
    }

    /// Whether request `id` is the one being answered.
    func isAnswering(_ id: Int) -> Bool { answering?.id == id }

    /// The flag of request `id`'s answer when a probe scheduled for it is still due: `nil`
    /// once another request is answered, or the answer was written from the event loop.
    func probeDue(_ id: Int) -> WritingFlag? {
        guard let answering, answering.id == id else { return nil }
        return answering.writing
    }

    /// Request `id`'s answer is written. Does nothing when another request is being answered
    /// by now; else a waiting refusal is written, or a half-closed connection closed.
    mutating func answered(_ id: Int) -> Action {
        guard answering?.id == id else { return .none }
        answering = nil
        if let refusal = pendingRefusal.take() { return .writeRefusal(refusal) }
        if isInputClosed, incoming == nil { return .close }
        return .none
    }

    // MARK: - Refusing and closing

    /// Refuses the connection's current request with `refusal` and ignores the rest of the
    /// connection: written now, or after the answer in progress.
    mutating func reject(_ refusal: Refusal) -> Action {
        guard !isRejected else { return .none }
        isRejected = true
        if answering != nil {
            if pendingRefusal == nil { pendingRefusal = refusal }
            return .none
        }
        return .writeRefusal(refusal)
    }

    /// The channel closed: the task of the answer in progress, to cancel.
    mutating func closed() -> Task<Void, Never>? {
        defer { answering = nil }
        return answering?.task
    }
}
#endif

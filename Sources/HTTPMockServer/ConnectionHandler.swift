#if Server
import Foundation
import HTTPMock
import NIOCore
import NIOHTTP1

/// One connection: decodes requests (NIO's parser, with pipelining assistance, so one request
/// is served at a time per connection), turns each into a request for the instance's registry
/// and writes the answer. Runs on the channel's event loop; the answer is computed in a task.
///
/// What the connection is doing lives in a ``ConnectionState`` value: each channel event goes
/// to it, and the handler carries out the action it returns (write, serve, close, probe).
final class ConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Header blocks larger than this get 431. NIO's own limit (80 KB) is higher;
    /// its overflow error is answered 431 too.
    static let maximumHeaderBlock = 64 * 1024
    /// Request targets longer than this get 414.
    static let maximumTarget = 8 * 1024

    let site: ServingSite
    /// The request decoder in the pipeline (replaced after CONNECT and a declined upgrade).
    var decoder: ByteToMessageHandler<HTTPRequestDecoder>
    /// What the connection is doing: reading, answering, refused, half-closed.
    private var state: ConnectionState
    /// Set while an answer is written from the event loop (``writeAtOnce(_:for:context:)``).
    private var isWritingAtOnce = false
    /// The last request's target (its URL, read for lookup), with the path, `Host` value and
    /// domain it was made from.
    /// (Read and written by ``requestTarget(for:)``, ConnectionHandler+Target.swift.)
    var lastTarget: (path: String, host: String, domain: String, target: MockRequest.Target)?
    /// The parts of the last response prepared at registration that was written, to write again.
    private var keptParts: ResponseWriter.PreparedParts?
    /// Writes kept parts as the bytes they were encoded to (between the pipelining handler and
    /// the encoder); `nil` on an HTTP/2 stream, which has no HTTP/1 encoder.
    private let encodedResponses: EncodedResponses?
    /// The client's address, read when the connection opens (WireMock's `clientIp` matcher).
    private var clientAddress: String?

    /// A connection with no request in flight and nothing read for this long is closed.
    private let idleTimeout: TimeAmount
    /// When something was last read, or the last answer written.
    private var lastActivity = NIODeadline.now()
    private var idleCheck: Scheduled<Void>?

    init(
        site: ServingSite, decoder: ByteToMessageHandler<HTTPRequestDecoder>, encodedResponses: EncodedResponses?,
        idleTimeout: TimeAmount
    ) {
        self.site = site
        self.decoder = decoder
        self.encodedResponses = encodedResponses
        self.idleTimeout = idleTimeout
        self.state = ConnectionState(maximumBody: site.maximumRequestBody)
    }

    /// Sets up a new connection's pipeline.
    static func install(on channel: any Channel, site: ServingSite, idleTimeout: TimeAmount) throws {
        let decoder = makeDecoder()
        // HTTPMock frames its responses itself (ResponseWriter.framed): NIO would frame a HEAD
        // answer to an event stream as chunked and write the chunked terminator as its body.
        var encoder = HTTPResponseEncoder.Configuration()
        encoder.automaticallySetFramingHeaders = false
        let encodedResponses = EncodedResponses()
        try channel.pipeline.syncOperations.addHandlers([
            HTTPResponseEncoder(configuration: encoder),
            encodedResponses,
            decoder,
            HTTPServerPipelineHandler(),
            ConnectionHandler(site: site, decoder: decoder, encodedResponses: encodedResponses, idleTimeout: idleTimeout),
        ])
    }

    /// A request decoder: NIO's parser, handing the bytes it did not parse to the decoder that
    /// replaces it (an upgrade declined, a tunnel).
    ///
    /// NIO's limits (`NIOHTTPDecoderLimitConfiguration`) stay at their default, 80 KB: they count
    /// the request target with the header fields, so at 64 KB a 70 KB target would fail the
    /// parse as 431 where ``refusal(of:site:)`` answers 414 naming the target. Not
    /// `configureHTTPServerPipeline`: its error handler answers a parse error itself, with no
    /// body saying what was wrong, and it keeps no reference to the decoder, which a CONNECT
    /// tunnel or a declined upgrade replaces.
    static func makeDecoder() -> ByteToMessageHandler<HTTPRequestDecoder> {
        ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes))
    }

    // MARK: - Idle connections

    // Not NIO's IdleStateHandler: it makes a promise for every write to see when it ends, a
    // measurable share of a small answer. Here activity is a time stamp per read and per answer;
    // one scheduled check per timeout period looks at it.

    func handlerAdded(context: ChannelHandlerContext) {
        clientAddress = context.channel.remoteAddress?.ipAddress
        if context.channel.isActive { startIdleCheck(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        clientAddress = context.channel.remoteAddress?.ipAddress
        startIdleCheck(context: context)
        context.fireChannelActive()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        lastActivity = .now()
        context.fireChannelReadComplete()
    }

    private func startIdleCheck(context: ChannelHandlerContext) {
        guard idleCheck == nil else { return }
        lastActivity = .now()
        scheduleIdleCheck(in: idleTimeout, context: context)
    }

    private func scheduleIdleCheck(in delay: TimeAmount, context: ChannelHandlerContext) {
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        idleCheck = context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = bound.value
            handler.checkIdle(context: context)
        }
    }

    /// Closes the connection when nothing is being answered and nothing happened for
    /// `idleTimeout`; else looks again when that could first be so.
    private func checkIdle(context: ChannelHandlerContext) {
        idleCheck = nil
        guard context.channel.isActive else { return }
        let idleFor = NIODeadline.now() - lastActivity
        if state.isIdle, idleFor >= idleTimeout {
            context.close(promise: nil)
            return
        }
        scheduleIdleCheck(in: state.isIdle ? idleTimeout - idleFor : idleTimeout, context: context)
    }

    // MARK: - Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let action: ConnectionState.Action
        switch unwrapInboundIn(data) {
        case .head(let head):
            action = state.receivedHead(head, expectsContinue: Self.expectsContinue(head)) { Self.refusal(of: head, site: site) }
        case .body(var chunk):
            action = state.receivedBody(&chunk)
        case .end:
            action = state.receivedEnd()
        }
        perform(action, context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.close(promise: nil)
            return
        }
        perform(state.parserFailed(parserError), context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            perform(state.inputClosed(), context: context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.closed()?.cancel()
        idleCheck?.cancel()
        idleCheck = nil
        context.fireChannelInactive()
    }

    /// Carries out what ``state`` said to do.
    private func perform(_ action: ConnectionState.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .sendContinue(let version):
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .continue))), promise: nil)
        case .writeRefusal(let refusal):
            writeRefusal(context: context, status: refusal.status, reason: refusal.reason)
        case .serve(let id, let head, let body):
            if Self.offersUpgrade(head) { declineUpgrade(context: context) }
            serve(context: context, id: id, head: head, body: body)
        case .connect(let head):
            connect(context: context, head: head)
        case .close:
            context.close(promise: nil)
        case .probe(let id):
            scheduleProbe(of: id, context: context)
        }
    }

    /// Called on the event loop when request `id`'s answer is written. Does nothing when another
    /// request is being answered by now.
    private func answered(_ id: Int, context: ChannelHandlerContext) {
        guard state.isAnswering(id) else { return }
        lastActivity = .now()
        perform(state.answered(id), context: context)
    }

    /// A client that half-closed (`shutdown(SHUT_WR)`) and one that closed look the same until
    /// something is sent to them. When the answer is still being computed half a second after
    /// the client's side ended (a delay, a gate, a slow handler), an interim `100 Continue`
    /// (which HTTP/1.1 clients accept before any response) goes out: the kernel of a client that
    /// is gone answers it with a reset, which closes the channel and cancels the request's
    /// handler or gate; a client that only half-closed reads it and then the answer.
    private func scheduleProbe(of id: Int, context: ChannelHandlerContext) {
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .milliseconds(500)) {
            let (handler, context) = bound.value
            guard let writing = handler.state.probeDue(id) else { return }
            writing.unlessStarted {
                let interim = HTTPResponseHead(version: .http1_1, status: .continue)
                context.writeAndFlush(handler.wrapOutboundOut(.head(interim)), promise: nil)
            }
        }
    }

    // MARK: - Refusing

    /// Answers `status` with a short body and closes; after the answer in progress, if any.
    func reject(context: ChannelHandlerContext, status: HTTPResponseStatus, reason: String) {
        perform(state.reject((status, reason)), context: context)
    }

    private func writeRefusal(context: ChannelHandlerContext, status: HTTPResponseStatus, reason: String) {
        let bytes = context.channel.allocator.buffer(string: reason)
        var headers = NIOHTTP1.HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(bytes.readableBytes))
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(bytes))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            // The client may still be sending (a body over the limit): stop writing, read on
            // until it stops, so that the refusal is not lost to a reset; the idle timeout ends it.
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
        }
    }

    // MARK: - Serving (the request-dispatch point)

    /// Answers one whole request. Every request that is not CONNECT or refused comes through here.
    ///
    /// The usual request (a route matched without user code, a response from memory that
    /// starts now) is resolved and written here on the event loop, with no task
    /// (``HTTPMock/startServing(method:target:headers:body:clientAddress:)``); anything that waits, runs user
    /// code, streams or is an admin request is computed and written from a task.
    private func serve(context: ChannelHandlerContext, id: Int, head: HTTPRequestHead, body: ByteBuffer?) {
        guard let target = requestTarget(for: head) else {
            reject(context: context, status: .badRequest, reason: "HTTPMock: the request target \(head.uri) is not a URL.\n")
            return
        }
        state.startAnswering(id, version: head.version)
        let method = head.method.rawValue
        var headers = MockHeaders()
        for (name, value) in head.headers { headers.combine(name: name, value: value) }
        let bodyData = body.map { Data($0.readableBytesView) }
        let started = site.onExchange == nil ? nil : DispatchTime.now()
        // The admin paths obey one access rule; the admin API answers its own paths: not
        // journaled, never matched.
        let source: AnswerSource
        if let adminPath = AdminAccess.path(of: head.uri), let admin = adminSource(adminPath, head: head) {
            source = admin
        } else {
            let start = site.mock.startServing(
                method: method, target: target, headers: headers, body: bodyData, clientAddress: clientAddress)
            switch start {
            case .prepared(let answer, let requestMethod):
                // The usual request: a response prepared at registration, written as kept.
                writeAtOnce(.prepared(answer, to: requestMethod), id: id, head: head, started: started, context: context)
                return
            case .ready(let answer):
                if let response = ResponseWriter.writableAtOnce(answer) {
                    writeAtOnce(.whole(response), id: id, head: head, started: started, context: context)
                    return
                }
            case .later:
                break
            }
            source = .registry(start)
        }
        let writing = WritingFlag()
        let site = self.site
        let channel = context.channel
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        let keepAlive = head.isKeepAlive
        let task = Task {
            let answer: ServedAnswer =
                switch source {
                case .admin(let admin, let cors):
                    await admin.answer(method: method, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) }, body: bodyData)
                        .adding(headers: cors)
                case .direct(let answer): answer
                case .registry(.prepared(let answer, let method)): .respond(WireResponse(answer, to: method))
                case .registry(.ready(let answer)): answer
                case .registry(.later(let continuation)): await continuation.answer()
                }
            // A forward starts writing when its head comes: until then a client that left is
            // found by the probe (`scheduleProbe`), and its going cancels the forward.
            if case .forward = answer {} else { writing.start() }
            let request = "\(method) \(head.uri)"
            let statusCode = await ResponseWriter.send(
                answer, for: request, on: channel, keepAlive: keepAlive, hop: site.hop, upstreamTLS: site.upstreamTLS,
                writing: writing)
            answer.afterSend?()  // WireMock's webhooks: after the response went out
            site.record(
                method: method, target: head.uri, statusCode: statusCode, outcome: ResponseWriter.outcome(of: answer), started: started)
            if case .hold = answer { return }
            channel.eventLoop.execute {
                handler.value.answered(id, context: loopContext.value)
            }
        }
        state.answerRuns(in: task, writing: writing)
    }

    /// Who answers a request.
    private enum AnswerSource {
        /// The admin API, with the CORS header fields of an allowed origin.
        case admin(AdminAPI, cors: [(String, String)])
        /// The instance's registry, started on the event loop.
        case registry(ServedStart)
        /// The server itself: an admin request refused, a CORS preflight.
        case direct(ServedAnswer)
    }

    /// Who answers a request to an admin path (``AdminAccess``): a refusal, the admin API, or
    /// `nil` for the registry (Voodoo's admin routes once allowed; `/__admin` when the admin API
    /// is off, as any other path).
    private func adminSource(_ path: AdminAccess.Path, head: HTTPRequestHead) -> AnswerSource? {
        let method = head.method.rawValue
        guard let admin = site.admin else {
            guard case .voodoo = path else { return nil }
            let body = Data(
                "HTTPMock: the admin paths are off (--no-admin, or a bind to every interface without --admin-token), Voodoo's /_admin/ too.\n"
                    .utf8)
            return .direct(.direct(status: 404, headers: [("Content-Type", "text/plain; charset=utf-8")], body: body, method: method))
        }
        if let preflight = admin.access.preflight(head.method, headers: head.headers) { return .direct(preflight) }
        if let (status, message) = admin.access.refusal(path, method: head.method, uri: head.uri, headers: head.headers, site: site) {
            return .direct(
                AdminAPI.json(status, ["errors": [["code": .integer(status), "title": .string(message)]]], method: method)
                    .adding(headers: admin.access.corsHeaders(for: head.headers)))
        }
        if case .voodoo = path { return nil }
        return .admin(admin, cors: admin.access.corsHeaders(for: head.headers))
    }

    /// A request answered from the event loop.
    private struct Exchange {
        let id: Int
        let method: String
        let target: String
        let keepAlive: Bool
        let started: DispatchTime?
    }

    /// Writes request `id`'s whole response from the event loop: now, or on the loop's next
    /// turn when NIO delivered this pipelined request from inside the write of the previous
    /// answer's end (so a long pipeline never nests).
    private func writeAtOnce(
        _ response: ResponseWriter.AtOnce, id: Int, head: HTTPRequestHead, started: DispatchTime?, context: ChannelHandlerContext
    ) {
        let exchange = Exchange(id: id, method: head.method.rawValue, target: head.uri, keepAlive: head.isKeepAlive, started: started)
        guard isWritingAtOnce else {
            writeAtOnce(response, for: exchange, context: context)
            return
        }
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (handler, context) = bound.value
            handler.writeAtOnce(response, for: exchange, context: context)
        }
    }

    /// Writes a whole response from the event loop, unless its request is no longer the one
    /// being answered (the connection closed meanwhile).
    private func writeAtOnce(_ response: ResponseWriter.AtOnce, for exchange: Exchange, context: ChannelHandlerContext) {
        guard state.isAnswering(exchange.id) else { return }
        isWritingAtOnce = true
        ResponseWriter.writeAtOnce(
            response, context: context, keepAlive: exchange.keepAlive, kept: &keptParts, encodedBy: encodedResponses)
        isWritingAtOnce = false
        if site.onExchange != nil {
            site.record(
                method: exchange.method, target: exchange.target, statusCode: response.statusCode, outcome: "responded",
                started: exchange.started)
        }
        answered(exchange.id, context: context)
    }
}
#endif

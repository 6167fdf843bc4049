#if Server
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL

// The pipelines of HTTPS connections (TLS, then HTTP/2 or HTTP/1.1 by ALPN) and of plain ones
// that open with HTTP/2's preface (h2c with prior knowledge). Each HTTP/2 stream is served by
// the HTTP/1 `ConnectionHandler` behind NIO's `HTTP2FramePayloadToHTTP1ServerCodec`, so the
// answers, the journal and the CLI's log are the same whichever protocol carried the request.

extension ConnectionHandler {
    /// A TLS connection: TLS, then HTTP/2 when the client negotiated `h2`, else HTTP/1.1.
    static func installSecure(
        on channel: any Channel, site: ServingSite, idleTimeout: TimeAmount, context: NIOSSLContext
    ) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
        }.flatMap {
            channel.configureHTTP2SecureUpgrade(
                h2ChannelConfigurator: { channel in
                    channel.eventLoop.makeCompletedFuture { try installHTTP2(on: channel, site: site, idleTimeout: idleTimeout) }
                },
                http1ChannelConfigurator: { channel in
                    channel.eventLoop.makeCompletedFuture { try install(on: channel, site: site, idleTimeout: idleTimeout) }
                })
        }
    }

    /// A plain connection: HTTP/1.1 as before, unless its first bytes are HTTP/2's preface
    /// (`PRI * HTTP/2.0`, a client with prior knowledge: `curl --http2-prior-knowledge`).
    static func installPlain(on channel: any Channel, site: ServingSite, idleTimeout: TimeAmount) throws {
        try channel.pipeline.syncOperations.addHandler(PriorKnowledgeSniffer(site: site, idleTimeout: idleTimeout))
    }

    /// HTTP/2 on `channel`: every stream the client opens gets the HTTP/1 codec and a handler;
    /// the connection closes once it has had no open stream for `idleTimeout`.
    static func installHTTP2(on channel: any Channel, site: ServingSite, idleTimeout: TimeAmount) throws {
        let idle = HTTP2IdleConnection(idleTimeout: idleTimeout)
        let streams = NIOLoopBound(idle, eventLoop: channel.eventLoop)
        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
        ) { stream in
            // Stream channels run on their connection's event loop.
            streams.value.streamOpened()
            stream.closeFuture.whenComplete { _ in streams.value.streamClosed() }
            return stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandlers([
                    HTTP2FramePayloadToHTTP1ServerCodec(),
                    // No HTTP/1 decoder on a stream: a CONNECT there (which HTTP/2 frames
                    // differently) finds none to replace and closes the stream.
                    ConnectionHandler(site: site, decoder: makeDecoder(), encodedResponses: nil, idleTimeout: idleTimeout),
                ])
            }
        }
        try channel.pipeline.syncOperations.addHandler(idle)
    }
}

/// Closes an HTTP/2 connection that has had no open stream for the idle timeout, as
/// ``ConnectionHandler`` closes an HTTP/1.1 connection with nothing to answer: each stream's own
/// handler closes its stream when idle, and this closes the connection they leave behind.
final class HTTP2IdleConnection: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let idleTimeout: TimeAmount
    private var openStreams = 0
    /// When the last stream closed (or the connection opened); `nil` while a stream is open.
    private var idleSince: NIODeadline? = .now()
    private var check: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(idleTimeout: TimeAmount) {
        self.idleTimeout = idleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        schedule(in: idleTimeout, context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        self.context = nil
    }

    func streamOpened() {
        openStreams += 1
        idleSince = nil
    }

    func streamClosed() {
        openStreams = max(0, openStreams - 1)
        if openStreams == 0 { idleSince = .now() }
    }

    private func schedule(in delay: TimeAmount, context: ChannelHandlerContext) {
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleTask(in: delay) { bound.value.checkIdle() }
    }

    private func checkIdle() {
        check = nil
        guard let context, context.channel.isActive else { return }
        guard let idleSince else {
            schedule(in: idleTimeout, context: context)
            return
        }
        let idleFor = NIODeadline.now() - idleSince
        if idleFor >= idleTimeout {
            context.close(promise: nil)
        } else {
            schedule(in: idleTimeout - idleFor, context: context)
        }
    }
}

/// The first handler of a plain connection: reads until the first bytes tell HTTP/2's preface
/// from anything else, puts the HTTP/2 or the HTTP/1 pipeline after itself, hands it what it
/// read and leaves. A connection that sends nothing for the idle timeout is closed, as the
/// HTTP/1 handler would.
final class PriorKnowledgeSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// RFC 9113 §3.4.
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private let site: ServingSite
    private let idleTimeout: TimeAmount
    private var buffered: ByteBuffer?
    private var decided = false
    private var idleCheck: Scheduled<Void>?

    init(site: ServingSite, idleTimeout: TimeAmount) {
        self.site = site
        self.idleTimeout = idleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        idleCheck = context.eventLoop.scheduleTask(in: idleTimeout) { bound.value.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleCheck?.cancel()
        idleCheck = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        guard !decided else {
            context.fireChannelRead(data)
            return
        }
        if var held = buffered {
            held.writeBuffer(&bytes)
            bytes = held
        }
        let count = min(bytes.readableBytes, Self.preface.count)
        let start = bytes.getBytes(at: bytes.readerIndex, length: count) ?? []
        if start[...] != Self.preface[..<count] {
            decide(http2: false, context: context, read: bytes)
        } else if count == Self.preface.count {
            decide(http2: true, context: context, read: bytes)
        } else {
            buffered = bytes
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A half-close before a whole request: the HTTP/1 handler answers it as before.
        if !decided, event is ChannelEvent { decide(http2: false, context: context, read: buffered) }
        context.fireUserInboundEventTriggered(event)
    }

    private func decide(http2: Bool, context: ChannelHandlerContext, read: ByteBuffer?) {
        decided = true
        buffered = nil
        do {
            if http2 {
                try ConnectionHandler.installHTTP2(on: context.channel, site: site, idleTimeout: idleTimeout)
            } else {
                try ConnectionHandler.install(on: context.channel, site: site, idleTimeout: idleTimeout)
            }
        } catch {
            context.close(promise: nil)
            return
        }
        if let read { context.fireChannelRead(wrapInboundOut(read)) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
#endif

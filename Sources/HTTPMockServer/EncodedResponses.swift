#if Server
import NIOCore
import NIOHTTP1

/// Writes a response that a connection keeps encoded (``ResponseWriter/PreparedParts``) as its
/// bytes, past NIO's response encoder.
///
/// It sits between NIO's `HTTPServerPipelineHandler` and `HTTPResponseEncoder`. The connection
/// hands it a response's bytes (``writeNextResponse(as:)``) and then writes that response's
/// head and end as usual: the pipelining handler sees a response begin and end (on its end it
/// lets the next pipelined request through), and this handler writes the bytes in the head's
/// place and nothing for the end. The encoder, which would encode the same head again for every
/// response, never sees either; its state is set anew by the next head it encodes.
///
/// Every other write passes through unchanged. The pipelining handler passes a head on as it
/// is while it accepts requests; it changes one only after a `ChannelShouldQuiesceEvent`
/// (adding `Connection: close`), which this server never sends.
final class EncodedResponses: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The encoder's context: a write there goes on to the socket.
    private var encoder: ChannelHandlerContext?
    /// The bytes that the next head written stands for.
    private var next: ByteBuffer?
    /// Set from an encoded response's head to its end: its parts are written as nothing.
    private var isInEncodedResponse = false

    func handlerAdded(context: ChannelHandlerContext) {
        encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        encoder = nil
    }

    /// Has the next response's head written as `bytes` (its head and body, encoded) and its
    /// end as nothing. `false` when there is no encoder to write past (the caller then writes
    /// the response's parts).
    func writeNextResponse(as bytes: ByteBuffer) -> Bool {
        guard encoder != nil, !isInEncodedResponse else { return false }
        next = bytes
        return true
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard let encoder, next != nil || isInEncodedResponse else {
            context.write(data, promise: promise)
            return
        }
        let part = unwrapOutboundIn(data)
        if let bytes = next.take() {
            guard case .head = part else {
                // Not the head the bytes stand for (no caller does this): written as it is.
                context.write(data, promise: promise)
                return
            }
            isInEncodedResponse = true
            encoder.write(NIOAny(IOData.byteBuffer(bytes)), promise: promise)
            return
        }
        if case .end = part { isInEncodedResponse = false }
        // A promise is completed by an empty write, so that it completes in order with the bytes.
        if let promise { encoder.write(NIOAny(IOData.byteBuffer(ByteBuffer())), promise: promise) }
    }

    /// `head` and `body` as NIO's encoder writes them (without framing headers of its own, as
    /// ``ConnectionHandler/install(on:site:idleTimeout:)`` configures it): the status line, each
    /// field as `name: value`, an empty line, the body.
    static func encode(head: HTTPResponseHead, body: ByteBuffer?, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 256 + (body?.readableBytes ?? 0))
        buffer.writeString("HTTP/\(head.version.major).\(head.version.minor) \(head.status.code) \(head.status.reasonPhrase)\r\n")
        for (name, value) in head.headers {
            buffer.writeString(name)
            buffer.writeStaticString(": ")
            buffer.writeString(value)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("\r\n")
        if var body { buffer.writeBuffer(&body) }
        return buffer
    }
}
#endif

import NIOCore
import NIOHTTP1
import NIOPosix

/// The least an HTTP/1.1 server on SwiftNIO can do: NIO's own server pipeline and one handler
/// that answers every request with the same fixed body, written on the event loop when the
/// request ends. No routing, no journal, no tasks. It is the physical limit for a NIO server on
/// this machine, which HTTPMockServer is measured against (issue 28).
enum BareNIOServer {
    /// Starts the server on 127.0.0.1 on a free port, on NIO's singleton event loop group (the
    /// one HTTPMockServer uses).
    static func start(body: String) async throws -> (channel: any Channel, port: Int) {
        let bytes = ByteBuffer(string: body)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(FixedAnswer(body: bytes))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return (channel, channel.localAddress?.port ?? 0)
    }

    /// Answers each request with `body` once the request has ended.
    final class FixedAnswer: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private let body: ByteBuffer
        private var keepAlive = true

        init(body: ByteBuffer) { self.body = body }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                keepAlive = head.isKeepAlive
            case .body:
                break
            case .end:
                var headers = HTTPHeaders()
                headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
                headers.add(name: "Content-Length", value: String(body.readableBytes))
                if !keepAlive { headers.add(name: "Connection", value: "close") }
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
                let keepAlive = keepAlive
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                    if !keepAlive { channel.close(promise: nil) }
                }
            }
        }
    }
}

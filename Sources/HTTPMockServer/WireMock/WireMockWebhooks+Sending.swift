#if Server
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

// WireMock webhooks over `http://` on NIO's client, and the bound on webhooks in flight
// (`WireMockWebhook`). Apart from WireMockWebhooks.swift: NIOHTTP1's `HTTPMethod` and
// `HTTPHeaders` share their names with HTTPMock's.

/// Reads a webhook's answer and closes the connection once it has ended (or failed).
private final class WebhookAnswerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { context.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// The webhooks being sent (waiting for their delay included), bounded in number and in body
/// bytes; those beyond are dropped and counted.
enum WebhookFlight {
    /// The most webhooks in flight at once.
    static let maximumSends = 64
    /// The most body bytes of webhooks in flight at once (one larger body goes when no other is
    /// in flight).
    static let maximumBodyBytes = 64 * 1024 * 1024
    /// How long one send may take, connecting included.
    static let timeout = TimeAmount.seconds(30)

    private static let state = NIOLockedValueBox((sends: 0, bytes: 0, dropped: 0))

    /// Sends one request on a new connection — `fields`, then `Content-Length` and
    /// `Connection: close`, then `body` as it is (the buffer is shared, not copied) — reads the
    /// answer, closes; `done` runs once the connection is closed, at the latest ``timeout`` after.
    static func send(
        method: String, host: String, port: Int, target: String, fields: [(name: String, value: String)], body: ByteBuffer?,
        on loop: any EventLoop, done: @escaping @Sendable () -> Void
    ) {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name: name, value: value) }
        headers.add(name: "Content-Length", value: String(body?.readableBytes ?? 0))
        headers.add(name: "Connection", value: "close")
        let head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: target, headers: headers)
        ClientBootstrap(group: loop)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(WebhookAnswerHandler())
                }
            }
            .connect(host: host, port: port)
            .whenComplete { result in
                guard case .success(let channel) = result else {
                    done()
                    return
                }
                let deadline = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
                channel.closeFuture.whenComplete { _ in
                    deadline.cancel()
                    done()
                }
                channel.write(HTTPClientRequestPart.head(head), promise: nil)
                if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil) }
                channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            }
    }

    /// The webhooks dropped so far in this process.
    static var dropped: Int { state.withLockedValue { $0.dropped } }

    /// Takes a place for a send of `bytes`; `false`, counted as dropped, when there is none (a
    /// warning to `logger` the first time, then every 1,000th).
    static func admit(_ bytes: Int, url: URL, log logger: Logger) -> Bool {
        let (admitted, dropped) = state.withLockedValue { state -> (Bool, Int) in
            if state.sends >= maximumSends || (state.sends > 0 && state.bytes + bytes > maximumBodyBytes) {
                state.dropped += 1
                return (false, state.dropped)
            }
            state.sends += 1
            state.bytes += bytes
            return (true, state.dropped)
        }
        if !admitted, dropped == 1 || dropped.isMultiple(of: 1000) {
            logger.warning(
                "a webhook to \(url.absoluteString) was dropped: \(maximumSends) webhooks or \(maximumBodyBytes >> 20) MB of webhook bodies are being sent (\(dropped) dropped so far)"
            )
        }
        return admitted
    }

    /// Gives back the place of a send of `bytes` that ended.
    static func release(_ bytes: Int) {
        state.withLockedValue { state in
            state.sends -= 1
            state.bytes -= bytes
        }
    }
}
#endif

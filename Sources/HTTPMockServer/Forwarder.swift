#if Server
import Foundation
import HTTPMock
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Streams a forwarded request's answer from an `http://` or `https://` upstream to the client
/// (``ServedForward``: `forward(to:)`, `proxyBaseUrl`, `--forward-unmatched`), on NIO's HTTP/1.1
/// client, on the client connection's own event loop; over TLS (`UpstreamTLS`: the system's
/// trust store, and the certificates the server was told to trust) for `https://`.
///
/// Bounded: the upstream connection does not read on its own (`autoRead` off); a
/// read is asked for only while less than ``window`` bytes written to the client have not yet
/// left for its socket, so a 10 GB upstream holds a few hundred KB here whatever the client's
/// pace. The client leaving (its task cancelled, a write failing) closes the upstream
/// connection: the download stops. The request carries `Via: 1.1 <hop>`, the server's own
/// name, so a forward that comes back to the same server is answered 508 there at once
/// (`ConnectionHandler.refusal`), and that 508 is what the client gets. An upstream that
/// cannot be reached, or fails before its head, is a 502 naming it; one that sends no head
/// within ``ServedForward/timeout`` (``HTTPMock/forwardTimeout``) is a 504 naming it, and one
/// that stops that long in the middle of its body closes the client's connection.
///
/// A client that leaves before the head is seen leaving: the connection's probe (an interim
/// `100 Continue`, `ConnectionHandler.scheduleProbe`) may still go out until the head does
/// (`writing` starts only then), and the reset it meets cancels the forward, which closes the
/// upstream connection.
enum Forwarder {
    /// Bytes written to the client and not yet flushed to its socket above which the upstream
    /// is not read.
    static let window = 512 * 1024
    /// How long connecting to the upstream may take.
    static let connectTimeout = TimeAmount.seconds(10)

    /// Header fields that belong to one connection, never relayed (RFC 9110 §7.6.1).
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "proxy-authorization",
        "proxy-authenticate",
    ]

    /// Forwards `forward` and relays the answer on `downstream`; returns the status sent.
    static func relay(
        _ forward: ServedForward, hop: String, upstreamTLS: UpstreamTLS, on downstream: any Channel, keepAlive: Bool,
        writing: WritingFlag? = nil
    ) async -> Int? {
        let url = forward.url
        let host = url.host ?? "localhost"
        let secure = url.scheme?.lowercased() == "https"
        let port = url.port ?? (secure ? 443 : 80)
        let tls: NIOSSLContext?
        do {
            tls = secure ? try upstreamTLS.context() : nil
        } catch {
            writing?.start()
            return await badGateway(forward, reason: "no TLS client for \(host):\(port) (\(error))", on: downstream, keepAlive: keepAlive)
        }
        let done = downstream.eventLoop.makePromise(of: Relay.Outcome?.self)
        let timeout = TimeAmount.nanoseconds(Int64(WaitTime.nanoseconds(forward.timeout)))
        let relay = Relay(
            forward: forward, downstream: downstream, keepAlive: keepAlive, isHead: forward.method == "HEAD", timeout: timeout,
            writing: writing, done: done)
        let bootstrap = ClientBootstrap(group: downstream.eventLoop)
            .connectTimeout(min(connectTimeout, timeout))
            .channelOption(.autoRead, value: false)
            .channelOption(.maxMessagesPerRead, value: 1)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(UpstreamTLS.handler(context: tls, host: host)) }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(RelayHandler(relay: relay))
                }
            }
        let upstream: any Channel
        do {
            upstream = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            done.succeed(nil)
            writing?.start()
            return await badGateway(forward, reason: "\(host):\(port) cannot be reached (\(error))", on: downstream, keepAlive: keepAlive)
        }
        let head = requestHead(forward, hop: hop, authority: url.port.map { "\(host):\($0)" } ?? host)
        upstream.eventLoop.execute {
            upstream.write(HTTPClientRequestPart.head(head), promise: nil)
            if let body = forward.body, !body.isEmpty {
                upstream.write(HTTPClientRequestPart.body(.byteBuffer(upstream.allocator.buffer(bytes: body))), promise: nil)
            }
            upstream.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            upstream.read()
            relay.watch(upstream)
        }
        let outcome = await withTaskCancellationHandler {
            (try? await done.futureResult.get()) ?? nil
        } onCancel: {
            // The client left: stop the download.
            upstream.close(promise: nil)
        }
        upstream.close(promise: nil)
        switch outcome {
        case .failed(let reason)?:
            writing?.start()
            return await badGateway(forward, reason: reason, on: downstream, keepAlive: keepAlive)
        case .timedOut?:
            writing?.start()
            return await badGateway(
                forward,
                reason:
                    "no answer within \(seconds(forward.timeout)) s (forwardTimeout; httpmock serve --proxy-timeout, in milliseconds)",
                status: 504, on: downstream, keepAlive: keepAlive)
        case .relayed(let status)?:
            return status
        case nil:
            return nil
        }
    }

    /// The request sent upstream: the client's method, target, header fields (hop-by-hop ones
    /// and `Host` aside) and body, with the upstream's `Host`, this server in `Via` and one
    /// request per connection.
    static func requestHead(_ forward: ServedForward, hop: String, authority: String) -> HTTPRequestHead {
        let url = forward.url
        var target = url.path.isEmpty ? "/" : url.path
        if let components = URLComponents(url: url, resolvingAgainstBaseURL: false), !components.percentEncodedPath.isEmpty {
            target = components.percentEncodedPath
        }
        if let query = url.query { target += "?" + query }
        var headers = NIOHTTP1.HTTPHeaders()
        headers.add(name: "Host", value: authority)
        var via: [String] = []
        for (name, value) in forward.headers {
            let lowercased = name.lowercased()
            if lowercased == "via" {
                via.append(value)
            } else if lowercased != "content-length", !hopByHop.contains(lowercased) {
                headers.add(name: name, value: value)
            }
        }
        headers.add(name: "Via", value: (via + ["1.1 \(hop)"]).joined(separator: ", "))
        if let body = forward.body, !body.isEmpty || !["GET", "HEAD"].contains(forward.method) {
            headers.add(name: "Content-Length", value: String(body.count))
        }
        headers.add(name: "Connection", value: "close")
        return HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: forward.method), uri: target, headers: headers)
    }

    /// A 502 (or `status`: 504 for a timeout) naming the upstream and what went wrong, journaled
    /// as the request's outcome.
    private static func badGateway(
        _ forward: ServedForward, reason: String, status: Int = 502, on channel: any Channel, keepAlive: Bool
    ) async -> Int {
        let message = forward.failure(reason)
        let fields = [(name: "Content-Type", value: "text/plain; charset=utf-8")]
        forward.journal(status: status, headers: fields)
        let response = ServedAnswer.direct(
            status: status, headers: fields.map { ($0.name, $0.value) }, body: Data(message.utf8), method: forward.method)
        return await ResponseWriter.send(
            response, for: "\(forward.method) \(forward.url.absoluteString)", on: channel, keepAlive: keepAlive)
            ?? status
    }

    /// `value` seconds as a short number: `0.5`, `60`.
    static func seconds(_ value: TimeInterval) -> String {
        value.rounded() == value && value < 1e15 ? String(Int(value)) : String(value)
    }
}

/// One forward's state, touched only on the event loop the client and the upstream share.
final class Relay: @unchecked Sendable {
    // @unchecked: every access runs on `downstream.eventLoop`, which is also the upstream's.
    enum Outcome {
        /// The head went to the client; the status.
        case relayed(Int)
        /// Nothing went to the client: it gets a 502 saying this.
        case failed(String)
        /// No head came within the timeout: the client gets a 504.
        case timedOut
    }

    let forward: ServedForward
    let downstream: any Channel
    let keepAlive: Bool
    let isHead: Bool
    /// How long the upstream may stay silent while it is waited for.
    let timeout: TimeAmount
    /// The request's flag: set when the head (or a 502/504) goes to the client.
    let writing: WritingFlag?
    let done: EventLoopPromise<Outcome?>
    /// When the upstream last sent something (or the request went out).
    var lastUpstreamActivity = NIODeadline.now()
    private var timeoutCheck: Scheduled<Void>?
    var outcome: Outcome?
    /// The upstream's answer ended (its connection is closed next, which is not a failure).
    var upstreamEnded = false
    /// Bytes written to the client that have not left for its socket yet.
    var unflushed = 0
    /// The upstream wants to read but waits for ``unflushed`` to drop.
    var readPending = false
    var finished = false
    /// The head as journaled, and the body so far while it stays within the forward's
    /// ``ServedForward/keptBodyLimit`` (`nil` once it went over: only its size is known).
    var journaledHead: (status: Int, headers: [(name: String, value: String)])?
    var keptBody: Data? = Data()

    init(
        forward: ServedForward, downstream: any Channel, keepAlive: Bool, isHead: Bool, timeout: TimeAmount, writing: WritingFlag?,
        done: EventLoopPromise<Outcome?>
    ) {
        self.forward = forward
        self.downstream = downstream
        self.keepAlive = keepAlive
        self.isHead = isHead
        self.timeout = timeout
        self.writing = writing
        self.done = done
    }

    /// Hands the outcome (`nil`: the client left) to the waiting task, once.
    func finish(_ outcome: Outcome?) {
        guard !finished else { return }
        finished = true
        timeoutCheck?.cancel()
        timeoutCheck = nil
        done.succeed(outcome)
    }

    /// Starts the upstream's timeout (on the event loop, once the request went out): while the
    /// upstream is waited for (not while the client is, ``readPending``), ``timeout`` without a
    /// byte from it ends the forward: a 504 before the head, a closed client connection after.
    func watch(_ upstream: any Channel) {
        lastUpstreamActivity = .now()
        scheduleTimeoutCheck(in: timeout, upstream: upstream)
    }

    private func scheduleTimeoutCheck(in delay: TimeAmount, upstream: any Channel) {
        guard !finished else { return }
        timeoutCheck = downstream.eventLoop.scheduleTask(in: delay) { [self] in
            checkTimeout(upstream: upstream)
        }
    }

    private func checkTimeout(upstream: any Channel) {
        timeoutCheck = nil
        guard !finished, !upstreamEnded else { return }
        if readPending {
            // The client is being waited for, not the upstream.
            lastUpstreamActivity = .now()
        }
        let silent = NIODeadline.now() - lastUpstreamActivity
        guard silent >= timeout else {
            scheduleTimeoutCheck(in: timeout - silent, upstream: upstream)
            return
        }
        switch outcome {
        case nil:
            outcome = .timedOut
            finish(.timedOut)
        case .relayed?:
            // The head went out: the body cannot be completed.
            downstream.close(promise: nil)
            finish(outcome)
        case .failed?, .timedOut?:
            finish(outcome)
        }
        upstream.close(promise: nil)
    }
}

/// The upstream connection's last handler: relays each part of the answer to the client.
private final class RelayHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let relay: Relay

    init(relay: Relay) { self.relay = relay }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !relay.finished else { return }
        relay.lastUpstreamActivity = .now()
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard head.status.code >= 200 else { return }  // an interim answer: the final one follows
            relayHead(head)
        case .body(let buffer):
            guard case .relayed = relay.outcome else { return }
            let count = buffer.readableBytes
            if let kept = relay.keptBody?.count {
                if kept + count <= relay.forward.keptBodyLimit {
                    relay.keptBody?.append(contentsOf: buffer.readableBytesView)
                } else {
                    relay.keptBody = nil
                }
            }
            relay.unflushed += count
            let upstream = context.channel
            let relay = self.relay
            relay.downstream.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer))).whenComplete { result in
                relay.unflushed -= count
                switch result {
                case .success:
                    if relay.readPending, relay.unflushed < Forwarder.window {
                        relay.readPending = false
                        upstream.read()
                    }
                case .failure:
                    // The client is gone: stop the download.
                    relay.finish(nil)
                    upstream.close(promise: nil)
                }
            }
        case .end:
            guard case .relayed = relay.outcome else { return }
            relay.upstreamEnded = true
            // Kept whole (empty included): the journal then has the body; one over the limit
            // leaves the head alone, so a recording knows it was not kept.
            if let head = relay.journaledHead, let body = relay.keptBody {
                relay.forward.journal(status: head.status, headers: head.headers, body: body)
            }
            let relay = self.relay
            relay.downstream.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { result in
                if case .failure = result { relay.downstream.close(promise: nil) }
                if !relay.keepAlive { relay.downstream.close(promise: nil) }
                relay.finish(relay.outcome)
            }
            context.close(promise: nil)
        }
    }

    /// The upstream's status and header fields (hop-by-hop ones aside) to the client, framed by
    /// the upstream's `Content-Length`, else chunked.
    private func relayHead(_ head: HTTPResponseHead) {
        var headers = NIOHTTP1.HTTPHeaders()
        var length: String?
        for (name, value) in head.headers {
            let lowercased = name.lowercased()
            if lowercased == "content-length" {
                length = value
            } else if !Forwarder.hopByHop.contains(lowercased) {
                headers.add(name: name, value: value)
            }
        }
        let code = head.status.code
        let forbidsBody = code == 204 || code == 304 || (100..<200).contains(Int(code))
        if let length, !forbidsBody {
            headers.add(name: "Content-Length", value: length)
        } else if !forbidsBody, !relay.isHead {
            headers.add(name: "Transfer-Encoding", value: "chunked")
        }
        if !relay.keepAlive { headers.add(name: "Connection", value: "close") }
        relay.writing?.start()
        relay.outcome = .relayed(Int(code))
        let journaled = headers.map { (name: $0.name, value: $0.value) }
        relay.journaledHead = (Int(code), journaled)
        relay.forward.journal(status: Int(code), headers: journaled)
        relay.downstream.write(
            HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: head.status, headers: headers)), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard !relay.finished else { return }
        if relay.unflushed < Forwarder.window {
            context.read()
        } else {
            relay.readPending = true
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        ended(context: context, reason: "the connection closed before the answer ended")
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        ended(context: context, reason: "\(error)")
        context.close(promise: nil)
    }

    /// The upstream ended early: before the head, the client gets a 502; after it, the client's
    /// connection closes (the body cannot be completed).
    private func ended(context: ChannelHandlerContext, reason: String) {
        guard !relay.finished, !relay.upstreamEnded else { return }
        switch relay.outcome {
        case nil:
            relay.outcome = .failed(reason)
            relay.finish(relay.outcome)
        case .relayed?:
            relay.downstream.close(promise: nil)
            relay.finish(relay.outcome)
        case .failed?, .timedOut?:
            relay.finish(relay.outcome)
        }
    }
}
#endif

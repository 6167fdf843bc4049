#if Server
import Foundation
import HTTPMock
import NIOCore
import NIOHTTP1

/// One connection: decodes requests (NIO's parser, with pipelining assistance, so one request
/// is served at a time per connection), turns each into a request for the instance's registry
/// and writes the answer. Runs on the channel's event loop; the answer is computed in a task.
final class ConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Header blocks larger than this get 431 (SPEC §13). NIO's own limit (80 KB) is higher;
    /// its overflow error is answered 431 too.
    static let maximumHeaderBlock = 64 * 1024
    /// Largest chunk of a streamed body.
    static let chunkSize = 256 * 1024

    private let site: ServingSite
    private var decoder: ByteToMessageHandler<HTTPRequestDecoder>
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?
    /// The request being answered, from its end until its response ends.
    private var inFlight: Task<Void, Never>?
    private var isBusy = false
    /// Set when a request was refused (400, 431): the rest of the connection is ignored.
    private var isRejected = false

    private init(site: ServingSite, decoder: ByteToMessageHandler<HTTPRequestDecoder>) {
        self.site = site
        self.decoder = decoder
    }

    /// Sets up a new connection's pipeline.
    static func install(on channel: any Channel, site: ServingSite, idleTimeout: TimeAmount) throws {
        let decoder = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes))
        try channel.pipeline.syncOperations.addHandlers([
            HTTPResponseEncoder(),
            decoder,
            HTTPServerPipelineHandler(),
            IdleStateHandler(allTimeout: idleTimeout),
            ConnectionHandler(site: site, decoder: decoder),
        ])
    }

    // MARK: - Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isRejected else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if Self.headerBlockSize(of: head) > Self.maximumHeaderBlock {
                reject(
                    context: context, status: .requestHeaderFieldsTooLarge,
                    reason: "HTTPMock: the request's header block is larger than \(Self.maximumHeaderBlock / 1024) KB.\n")
                return
            }
            self.head = head
            self.body = nil
        case .body(var chunk):
            if body == nil {
                body = chunk
            } else {
                body?.writeBuffer(&chunk)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            let body = self.body
            self.body = nil
            if head.method == .CONNECT {
                connect(context: context, head: head)
            } else {
                serve(context: context, head: head, body: body)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.close(promise: nil)
            return
        }
        if parserError == .headerOverflow {
            reject(
                context: context, status: .requestHeaderFieldsTooLarge,
                reason: "HTTPMock: the request's header block is too large.\n")
        } else {
            reject(context: context, status: .badRequest, reason: "HTTPMock: malformed HTTP request (\(parserError)).\n")
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            if !isBusy { context.close(promise: nil) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        inFlight?.cancel()
        inFlight = nil
        context.fireChannelInactive()
    }

    /// Answers `status` with a short body and closes, unless a response is already on its way
    /// (then only closes).
    private func reject(context: ChannelHandlerContext, status: HTTPResponseStatus, reason: String) {
        isRejected = true
        guard !isBusy else {
            context.close(promise: nil)
            return
        }
        isBusy = true
        let bytes = context.channel.allocator.buffer(string: reason)
        var headers = NIOHTTP1.HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(bytes.readableBytes))
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(bytes))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Request line and header fields, as on the wire.
    static func headerBlockSize(of head: HTTPRequestHead) -> Int {
        var size = head.method.rawValue.utf8.count + head.uri.utf8.count + 12
        for (name, value) in head.headers {
            size += name.utf8.count + value.utf8.count + 4
        }
        return size
    }

    // MARK: - CONNECT

    /// `CONNECT host:port`: 200, then the tunnel is read as plain HTTP by a fresh decoder (the
    /// old one stops at the tunnel and forwards what it holds). Port 443 means TLS inside,
    /// which a mock cannot terminate: 501 with a body saying what to do instead.
    private func connect(context: ChannelHandlerContext, head: HTTPRequestHead) {
        let target = head.uri
        let port = target.split(separator: ":").last.flatMap { Int($0) }
        guard port != 443 else {
            reject(
                context: context, status: .notImplemented,
                reason: """
                    HTTPMock cannot serve CONNECT \(target): a tunnel to port 443 carries TLS, which a mock server \
                    cannot terminate. Send plain http:// URLs through this proxy (absolute-form requests or a \
                    CONNECT to port 80), or point the client at the server's baseURL directly.\n
                    """)
            return
        }
        var headers = NIOHTTP1.HTTPHeaders()
        // Without a length, the encoder would frame this response as chunked and write its
        // terminator into the tunnel; clients ignore Content-Length on a 2xx CONNECT answer.
        headers.add(name: "Content-Length", value: "0")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        let fresh = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes))
        do {
            try context.pipeline.syncOperations.addHandler(fresh, position: .after(decoder))
        } catch {
            context.close(promise: nil)
            return
        }
        context.pipeline.syncOperations.removeHandler(decoder, promise: nil)
        decoder = fresh
    }

    // MARK: - Serving

    private func serve(context: ChannelHandlerContext, head: HTTPRequestHead, body: ByteBuffer?) {
        guard let url = requestURL(for: head) else {
            reject(context: context, status: .badRequest, reason: "HTTPMock: the request target \(head.uri) is not a URL.\n")
            return
        }
        isBusy = true
        let site = self.site
        let channel = context.channel
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let keepAlive = head.isKeepAlive
        let method = head.method.rawValue
        let headers = head.headers.map { ($0.name, $0.value) }
        let bodyData = body.map { Data($0.readableBytesView) }
        let started = DispatchTime.now()
        inFlight = Task {
            // The admin API answers its own paths: not journaled, never matched (SPEC §19).
            let answer =
                if let admin = site.admin, AdminAPI.handles(head.uri) {
                    await admin.answer(method: method, uri: head.uri, headers: headers, body: bodyData)
                } else {
                    await site.mock.serve(method: method, url: url, headers: headers, body: bodyData)
                }
            let statusCode = await ResponseWriter.send(answer, on: channel, keepAlive: keepAlive)
            if let onExchange = site.onExchange {
                let outcome =
                    switch answer {
                    case .respond: "responded"
                    case .close(let reason): "closed: \(reason)"
                    case .hold: "held (.never)"
                    case .cut(_, let afterBytes): "cut after \(afterBytes) body bytes (.connectionLost)"
                    case .events: "event stream"
                    case .garbage: "closed after bytes that are not HTTP (.malformedResponse)"
                    }
                onExchange(
                    ServedExchangeRecord(
                        method: method, target: head.uri, statusCode: statusCode, outcome: outcome,
                        duration: Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9))
            }
            if case .hold = answer { return }
            channel.eventLoop.execute {
                handler.value.isBusy = false
                handler.value.inFlight = nil
            }
        }
    }

    /// The URL the registry matches: the impersonated origin for requests that name the
    /// server, the named host for absolute-form requests and foreign `Host` headers.
    private func requestURL(for head: HTTPRequestHead) -> URL? {
        let uri = head.uri
        let lowercased = uri.lowercased()
        if lowercased.hasPrefix("http://") || lowercased.hasPrefix("https://") {
            guard let url = URL(string: uri), let host = url.host else { return nil }
            let authority = url.port.map { "\(host):\($0)" } ?? host
            if site.namesServer(authority) {
                let pathStart = uri.dropFirst(lowercased.hasPrefix("https://") ? 8 : 7).firstIndex(of: "/")
                return URL(string: site.impersonatedOrigin + (pathStart.map { String(uri[$0...]) } ?? "/"))
            }
            return url
        }
        let path = uri.hasPrefix("/") ? uri : "/" + uri
        guard let host = head.headers.first(name: "Host"), !host.isEmpty, !site.namesServer(host) else {
            return URL(string: site.impersonatedOrigin + path)
        }
        return URL(string: "http://\(host)\(path)")
    }
}

/// Puts an answer on the wire from the request's task.
enum ResponseWriter {
    /// Writes `answer`; returns the status sent, if any.
    static func send(_ answer: ServedAnswer, on channel: any Channel, keepAlive: Bool) async -> Int? {
        switch answer {
        case .hold:
            return nil
        case .close:
            try? await channel.close()
            return nil
        case .respond(let response):
            await write(response, on: channel, keepAlive: keepAlive)
            return response.statusCode
        case .cut(let response, let afterBytes):
            await cut(response, afterBytes: afterBytes, on: channel)
            return response.statusCode
        case .garbage:
            writeGarbage(on: channel)
            return nil
        case .events(let response, let source, let request):
            await stream(source, head: response, for: request, on: channel, keepAlive: keepAlive)
            return response.statusCode
        }
    }

    private static func head(of response: WireResponse, keepAlive: Bool) -> HTTPServerResponsePart {
        var headers = NIOHTTP1.HTTPHeaders()
        for (name, value) in response.headers {
            headers.add(name: name, value: value)
        }
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        return .head(HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.statusCode), headers: headers))
    }

    /// What `.fault(.malformedResponse)` sends instead of a status line.
    static let garbage = "HTTPMock \u{0}\u{1}\u{2} not an HTTP response\r\n\r\n"

    /// `.fault(.malformedResponse)`: bytes that are not HTTP, then close. They are written from
    /// the HTTP encoder's place in the pipeline, so they reach the socket as they are.
    private static func writeGarbage(on channel: any Channel) {
        channel.eventLoop.execute {
            guard let encoder = try? channel.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) else {
                channel.close(promise: nil)
                return
            }
            encoder.writeAndFlush(NIOAny(channel.allocator.buffer(string: garbage))).whenComplete { _ in
                channel.close(promise: nil)
            }
        }
    }

    /// `.fault(.connectionLost(afterBytes:))`: the head (with the full `Content-Length`), the
    /// first `afterBytes` bytes of the body, then the connection closes mid-body.
    private static func cut(_ response: WireResponse, afterBytes: Int, on channel: any Channel) async {
        do {
            channel.write(head(of: response, keepAlive: false), promise: nil)
            if afterBytes > 0, response.sendsBody {
                var reader = try response.body.reader()
                defer { reader.close() }
                let bytes = try reader.next(afterBytes)
                try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(bytes: bytes)))).get()
            } else {
                channel.flush()
            }
        } catch {}
        try? await channel.close()
    }

    /// `.eventStream`: the head without a length (NIO frames the body as chunked), then one
    /// chunk per event, written and flushed when its time comes; a dynamic stream's events as
    /// its sequence yields them. Closing the connection cancels the task and ends the stream.
    private static func stream(
        _ source: MockResponse.EventSource, head response: WireResponse, for request: MockRequest,
        on channel: any Channel, keepAlive: Bool
    ) async {
        @Sendable func send(_ event: ServerSentEvent) async -> Bool {
            guard !Task.isCancelled else { return false }
            let chunk = HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(string: event.framed)))
            return (try? await channel.writeAndFlush(chunk).get()) != nil
        }
        do {
            try await channel.writeAndFlush(head(of: response, keepAlive: keepAlive)).get()
            switch source.kind {
            case .fixed(let events, let interval):
                for (index, event) in events.enumerated() {
                    if index > 0, interval > 0 { try await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000)) }
                    guard await send(event) else { return }
                }
            case .sequence(let handler):
                try await handler.run(request, MockResponse.EventSink(send: send))
            }
            try await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
        } catch {
            try? await channel.close()
            return
        }
        if !keepAlive { try? await channel.close() }
    }

    private static func write(_ response: WireResponse, on channel: any Channel, keepAlive: Bool) async {
        let head = head(of: response, keepAlive: keepAlive)
        do {
            if !response.sendsBody || (response.body.data != nil && response.bytesPerSecond == nil) {
                // One hop to the event loop for the whole response.
                let body = response.sendsBody ? response.body.data.map { channel.allocator.buffer(bytes: $0) } : nil
                let written = channel.eventLoop.makePromise(of: Void.self)
                channel.eventLoop.execute {
                    channel.write(head, promise: nil)
                    if let body { channel.write(HTTPServerResponsePart.body(.byteBuffer(body)), promise: nil) }
                    channel.writeAndFlush(HTTPServerResponsePart.end(nil), promise: written)
                }
                try await written.futureResult.get()
            } else {
                channel.write(head, promise: nil)
                try await stream(response, on: channel)
                try await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
            }
        } catch {
            try? await channel.close()
            return
        }
        if !keepAlive { try? await channel.close() }
    }

    /// Streams a file or throttled body. Each chunk is written only when the previous one has
    /// left for the socket (back-pressure: at most one chunk in memory), and at a throttled
    /// rate not before its time.
    private static func stream(_ response: WireResponse, on channel: any Channel) async throws {
        var reader = try response.body.reader()
        defer { reader.close() }
        let rate = response.bytesPerSecond
        let chunkSize = rate.map { min(ConnectionHandler.chunkSize, max(1, $0 / 10)) } ?? ConnectionHandler.chunkSize
        let started = DispatchTime.now()
        var sent = 0
        while true {
            try Task.checkCancellation()
            let chunk = try reader.next(chunkSize)
            if chunk.isEmpty { return }
            try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(bytes: chunk)))).get()
            sent += chunk.count
            if let rate {
                let due = started.uptimeNanoseconds + UInt64(Double(sent) / Double(rate) * 1e9)
                let now = DispatchTime.now().uptimeNanoseconds
                if due > now { try await Task.sleep(nanoseconds: due - now) }
            }
        }
    }
}
#endif

#if Server
import Foundation
import HTTPMock
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Puts an answer on the wire from the request's task.
enum ResponseWriter {
    /// Writes `answer` to `request` (`METHOD target`, for messages); returns the status sent, if any.
    ///
    /// A response that cannot go on the wire as it is (a 1xx status as the final answer, a
    /// header name that is not a token, a CR, LF or NUL in a header value, which would split the
    /// response) is answered 500 with a body naming the problem instead. Registration and HAR
    /// loading refuse these; a `.dynamic` handler can still produce them.
    /// A forward (``ServedAnswer/forward(_:)``) names the server as `hop` in its `Via` field,
    /// and reaches an `https://` upstream with `upstreamTLS` (the system's trust alone when `nil`).
    /// A forward sets `writing` itself, once its head (or its 502/504) goes out.
    static func send(
        _ answer: ServedAnswer, for request: String, on channel: any Channel, keepAlive: Bool, hop: String = "httpmock",
        upstreamTLS: UpstreamTLS? = nil, writing: WritingFlag? = nil
    ) async
        -> Int?
    {
        switch answer {
        case .respond(let response), .cut(let response, _), .events(let response, _, _):
            if let problem = WireCheck.problem(with: response) {
                await refuse(request, problem: problem, on: channel, keepAlive: keepAlive)
                return 500
            }
        case .hold, .close, .reset, .garbage, .forward:
            break
        }
        switch answer {
        case .hold:
            return nil
        case .close:
            try? await channel.close()
            return nil
        case .reset:
            await reset(channel)
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
        case .forward(let forward):
            return await Forwarder.relay(
                forward, hop: hop, upstreamTLS: upstreamTLS ?? UpstreamTLS(), on: channel, keepAlive: keepAlive, writing: writing)
        }
    }

    /// What the CLI's log says happened.
    static func outcome(of answer: ServedAnswer) -> String {
        switch answer {
        case .respond: "responded"
        case .close(let reason): "closed: \(reason)"
        case .reset(let reason): "reset: \(reason)"
        case .hold: "held (.never)"
        case .cut(_, let afterBytes): "cut after \(afterBytes) body bytes (.connectionLost)"
        case .events: "event stream"
        case .garbage: "closed after bytes that are not HTTP (.malformedResponse)"
        case .forward(let forward): "forwarded to \(forward.url.absoluteString)"
        }
    }

    /// The 500 sent instead of a response that cannot go on the wire.
    private static func refuse(_ request: String, problem: String, on channel: any Channel, keepAlive: Bool) async {
        let body = channel.allocator.buffer(string: ServedAnswer.unsendableText(request, problem: problem))
        var headers = NIOHTTP1.HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: .http1_1, status: .internalServerError, headers: headers)
        let written = channel.eventLoop.makePromise(of: Void.self)
        channel.eventLoop.execute {
            channel.write(HTTPServerResponsePart.head(head), promise: nil)
            channel.write(HTTPServerResponsePart.body(.byteBuffer(body)), promise: nil)
            channel.writeAndFlush(HTTPServerResponsePart.end(nil), promise: written)
        }
        do {
            try await written.futureResult.get()
        } catch {
            try? await channel.close()
            return
        }
        if !keepAlive { try? await channel.close() }
    }

    /// The response head, framed by HTTPMock (the encoder does not add framing headers): no
    /// `Content-Length` or `Transfer-Encoding` for statuses without a body, `chunked` for a
    /// stream that sends its body, else the `Content-Length` the response carries.
    private static func head(of response: WireResponse, keepAlive: Bool, chunked: Bool = false) -> HTTPResponseHead {
        var headers = NIOHTTP1.HTTPHeaders()
        for (name, value) in response.headers {
            headers.add(name: name, value: value)
        }
        headers.remove(name: "Transfer-Encoding")
        if chunked {
            headers.remove(name: "Content-Length")
            headers.add(name: "Transfer-Encoding", value: "chunked")
        } else if response.statusCode == 204 || response.statusCode == 304 {
            headers.remove(name: "Content-Length")
        }
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        // NIO maps a known code to its standard phrase; a given phrase needs `.custom`.
        let status: HTTPResponseStatus =
            if let reason = response.reasonPhrase, response.statusCode >= 100 {
                .custom(code: UInt(response.statusCode), reasonPhrase: reason)
            } else {
                HTTPResponseStatus(statusCode: response.statusCode)
            }
        return HTTPResponseHead(version: .http1_1, status: status, headers: headers)
    }

    /// `.fault(.connectionReset)`: the connection ends with a TCP `RST` (`SO_LINGER` on with a
    /// zero timeout, then close: the kernel discards what is unsent and resets), so the client
    /// reads `ECONNRESET` as from WireMock's `CONNECTION_RESET_BY_PEER`, not an orderly end.
    static func reset(_ channel: any Channel) async {
        if let socket = channel as? any SocketOptionProvider {
            try? await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
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
            channel.write(HTTPServerResponsePart.head(head(of: response, keepAlive: false)), promise: nil)
            if afterBytes > 0, response.sendsBody {
                var reader = try response.body.reader()
                defer { reader.close() }
                // `afterBytes` may be anything up to Int.max: never more than the body holds.
                let bytes = try reader.next(min(afterBytes, response.body.size))
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
        // An event that cannot be framed ends the stream with an error: the connection closes.
        let unframed = NIOLockedValueBox(false)
        @Sendable func send(_ event: ServerSentEvent) async -> Bool {
            guard !Task.isCancelled else { return false }
            guard let framed = try? event.framed(for: request) else {
                unframed.withLockedValue { $0 = true }
                return false
            }
            let chunk = HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(string: framed)))
            return (try? await channel.writeAndFlush(chunk).get()) != nil
        }
        do {
            guard response.sendsBody else {
                // HEAD, 204, 304: the head only, and the connection is ready for the next request.
                channel.write(HTTPServerResponsePart.head(head(of: response, keepAlive: keepAlive)), promise: nil)
                try await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
                if !keepAlive { try? await channel.close() }
                return
            }
            try await channel.writeAndFlush(HTTPServerResponsePart.head(head(of: response, keepAlive: keepAlive, chunked: true))).get()
            switch source.kind {
            case .fixed(let events, let interval):
                for (index, event) in events.enumerated() {
                    if index > 0, interval > 0 { try await WaitTime.sleep(interval) }
                    guard await send(event) else { return }
                }
            case .sequence(let handler):
                try await handler.run(request, MockResponse.EventSink(send: send))
            }
            if unframed.withLockedValue({ $0 }) {
                try? await channel.close()
                return
            }
            try await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
        } catch {
            try? await channel.close()
            return
        }
        if !keepAlive { try? await channel.close() }
    }

    /// `answer` when it can be written whole from the event loop at once: a response from memory,
    /// not paced, that can go on the wire. `nil` for anything that streams, waits, closes or is
    /// refused instead, which ``send(_:for:on:keepAlive:)`` writes from a task.
    static func writableAtOnce(_ answer: ServedAnswer) -> WireResponse? {
        guard case .respond(let response) = answer, isWhole(response), response.afterSend == nil,
            response.isCheckedAtRegistration || WireCheck.problem(with: response) == nil
        else { return nil }
        return response
    }

    /// Whether `response` goes out in one write: its body (if it sends one) in memory, not paced.
    private static func isWhole(_ response: WireResponse) -> Bool {
        !response.sendsBody || (response.body.data != nil && response.bytesPerSecond == nil)
    }

    /// The head and the body (when one is sent) of a whole response (``isWhole(_:)``).
    private static func parts(
        of response: WireResponse, keepAlive: Bool, allocator: ByteBufferAllocator
    ) -> (head: HTTPResponseHead, body: ByteBuffer?) {
        guard response.sendsBody, let data = response.body.data, !data.isEmpty else {
            return (head(of: response, keepAlive: keepAlive), nil)
        }
        return (head(of: response, keepAlive: keepAlive), allocator.buffer(bytes: data))
    }

    /// The parts built for a response prepared at registration (``WireResponse/preparedFrom``),
    /// kept by a connection: a client usually asks for the same thing again, and the head and the
    /// body's buffer are then written again as they are, not built anew.
    ///
    /// A class: the connection checks it for every request, and a copy of the parts (a head and
    /// its header fields, a body buffer) cost several retains.
    ///
    /// A small answer's head and body are also kept encoded, as one buffer that
    /// ``EncodedResponses`` writes past NIO's encoder (which would encode the same head again for
    /// every response). Not a large one's: its body would be held twice per connection, and
    /// encoding its head costs little beside sending it.
    final class PreparedParts {
        let answer: ImmediateAnswer
        let sendsBody: Bool
        let keepAlive: Bool
        let head: HTTPServerResponsePart
        let body: HTTPServerResponsePart?
        /// The head and the body as they go on the wire, when the body is at most
        /// ``encodedBodyLimit`` bytes.
        let encoded: ByteBuffer?
        static let encodedBodyLimit = 64 * 1024

        init(
            answer: ImmediateAnswer, sendsBody: Bool, keepAlive: Bool, head: HTTPResponseHead, body: ByteBuffer?,
            allocator: ByteBufferAllocator
        ) {
            self.answer = answer
            self.sendsBody = sendsBody
            self.keepAlive = keepAlive
            self.head = .head(head)
            self.body = body.map { .body(.byteBuffer($0)) }
            self.encoded =
                (body?.readableBytes ?? 0) <= Self.encodedBodyLimit
                ? EncodedResponses.encode(head: head, body: body, allocator: allocator) : nil
        }

        /// Whether these are the parts of `response` with `keepAlive`. The kept answer is held,
        /// so no other can take its address; prepared answers never change.
        func fit(_ response: WireResponse, keepAlive: Bool) -> Bool {
            response.preparedFrom === answer && response.sendsBody == sendsBody && self.keepAlive == keepAlive
        }
    }

    /// A response the connection's handler writes whole from the event loop.
    enum AtOnce {
        /// A response prepared at registration, in answer to a request with this method.
        case prepared(ImmediateAnswer, to: MockMethod)
        /// Any other whole response (``writableAtOnce(_:)``).
        case whole(WireResponse)

        /// The status code sent.
        var statusCode: Int {
            switch self {
            case .prepared(let answer, _): answer.statusCode
            case .whole(let response): response.statusCode
            }
        }
    }

    /// Writes `response` from the connection's handler on the event loop (see
    /// ``writeAtOnce(_:context:keepAlive:kept:encodedBy:)-(WireResponse,_,_,_,_)``). A prepared
    /// answer whose parts the connection kept is written as kept, without building its
    /// ``WireResponse``.
    static func writeAtOnce(
        _ response: AtOnce, context: ChannelHandlerContext, keepAlive: Bool, kept: inout PreparedParts?,
        encodedBy bypass: EncodedResponses?
    ) {
        switch response {
        case .prepared(let answer, let method):
            if let parts = kept, parts.answer === answer, parts.keepAlive == keepAlive, parts.sendsBody == answer.sendsBody(to: method) {
                write(parts, context: context, keepAlive: keepAlive, encodedBy: bypass)
            } else {
                writeAtOnce(WireResponse(answer, to: method), context: context, keepAlive: keepAlive, kept: &kept, encodedBy: bypass)
            }
        case .whole(let response):
            writeAtOnce(response, context: context, keepAlive: keepAlive, kept: &kept, encodedBy: bypass)
        }
    }

    /// Writes a whole response (``isWhole(_:)``) from the connection's handler on the event loop,
    /// flushes, then closes the connection unless it is kept alive (a failed write closes it).
    /// `kept` holds the parts of the last prepared response the connection wrote
    /// (``PreparedParts``), reused when they fit (then as the bytes they were encoded to, through
    /// `bypass`) and replaced when not.
    static func writeAtOnce(
        _ response: WireResponse, context: ChannelHandlerContext, keepAlive: Bool, kept: inout PreparedParts?,
        encodedBy bypass: EncodedResponses?
    ) {
        if let kept, kept.fit(response, keepAlive: keepAlive) {
            write(kept, context: context, keepAlive: keepAlive, encodedBy: bypass)
            return
        }
        let (head, body) = parts(of: response, keepAlive: keepAlive, allocator: context.channel.allocator)
        if let answer = response.preparedFrom {
            kept = PreparedParts(
                answer: answer, sendsBody: response.sendsBody, keepAlive: keepAlive, head: head, body: body,
                allocator: context.channel.allocator)
        }
        write(head: .head(head), body: body.map { .body(.byteBuffer($0)) }, context: context, keepAlive: keepAlive)
    }

    /// Writes kept parts: as their encoded bytes when `bypass` takes them, else part by part.
    private static func write(_ parts: PreparedParts, context: ChannelHandlerContext, keepAlive: Bool, encodedBy bypass: EncodedResponses?)
    {
        if let encoded = parts.encoded, let bypass, bypass.writeNextResponse(as: encoded) {
            write(head: parts.head, body: nil, context: context, keepAlive: keepAlive)
        } else {
            write(head: parts.head, body: parts.body, context: context, keepAlive: keepAlive)
        }
    }

    /// Writes a head and a body from the event loop, flushes, and closes unless kept alive.
    private static func write(
        head: HTTPServerResponsePart, body: HTTPServerResponsePart?, context: ChannelHandlerContext, keepAlive: Bool
    ) {
        context.write(NIOAny(head), promise: nil)
        if let body { context.write(NIOAny(body), promise: nil) }
        guard !keepAlive else {
            context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
            return
        }
        let channel = context.channel
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    private static func write(_ response: WireResponse, on channel: any Channel, keepAlive: Bool) async {
        do {
            if isWhole(response) {
                // One hop to the event loop for the whole response.
                let (head, body) = parts(of: response, keepAlive: keepAlive, allocator: channel.allocator)
                let written = channel.eventLoop.makePromise(of: Void.self)
                channel.eventLoop.execute {
                    channel.write(HTTPServerResponsePart.head(head), promise: nil)
                    if let body { channel.write(HTTPServerResponsePart.body(.byteBuffer(body)), promise: nil) }
                    channel.writeAndFlush(HTTPServerResponsePart.end(nil), promise: written)
                }
                try await written.futureResult.get()
            } else {
                channel.write(HTTPServerResponsePart.head(head(of: response, keepAlive: keepAlive)), promise: nil)
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
        let chunkSize = response.chunkSize
        let started = DispatchTime.now()
        var sent = 0
        while true {
            try Task.checkCancellation()
            let chunk = try reader.next(chunkSize)
            if chunk.isEmpty { return }
            try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(bytes: chunk)))).get()
            sent += chunk.count
            if let dueAfterStart = response.dueNanoseconds(afterSending: sent) {
                let due = started.uptimeNanoseconds + dueAfterStart
                let now = DispatchTime.now().uptimeNanoseconds
                if due > now { try await Task.sleep(nanoseconds: due - now) }
            }
        }
    }
}
#endif

#if Server
import Foundation
import HTTPMock
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import HTTPMockServer

/// A response a connection keeps is written as the bytes it was encoded to once, past NIO's
/// encoder (`EncodedResponses`): those bytes are what NIO's encoder writes, and the responses
/// around them on the same connection are unchanged.
@Suite("Kept responses written as encoded bytes", .timeLimit(.minutes(1)))
struct EncodedResponsesTests {
    /// What NIO's encoder, configured as the server's, writes for `head` and `body`.
    static func encodedByNIO(_ head: HTTPResponseHead, body: ByteBuffer?) throws -> ByteBuffer {
        var configuration = HTTPResponseEncoder.Configuration()
        configuration.automaticallySetFramingHeaders = false
        let channel = EmbeddedChannel(handler: HTTPResponseEncoder(configuration: configuration))
        defer { _ = try? channel.finish() }
        try channel.writeOutbound(HTTPServerResponsePart.head(head))
        if let body { try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(body))) }
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        var all = ByteBuffer()
        while var part = try channel.readOutbound(as: IOData.self).map({ data -> ByteBuffer in
            guard case .byteBuffer(let buffer) = data else { return ByteBuffer() }
            return buffer
        }) {
            all.writeBuffer(&part)
        }
        return all
    }

    @Test("every status from 100 to 599, a custom reason phrase, repeated and empty fields: the same bytes as NIO's encoder")
    func sameBytesAsNIO() throws {
        var headers = NIOHTTP1.HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Set-Cookie", value: "a=1")
        headers.add(name: "Set-Cookie", value: "b=2")
        headers.add(name: "X-Empty", value: "")
        headers.add(name: "Content-Length", value: "5")
        let body = ByteBuffer(string: "héllo")
        var statuses = (100..<600).map { HTTPResponseStatus(statusCode: $0) }
        statuses.append(.custom(code: 200, reasonPhrase: "Fine Thanks"))
        statuses.append(.custom(code: 299, reasonPhrase: ""))
        for status in statuses {
            for version in [HTTPVersion.http1_1, .http1_0] {
                let head = HTTPResponseHead(version: version, status: status, headers: headers)
                for sent in [body, nil] {
                    let ours = EncodedResponses.encode(head: head, body: sent, allocator: ByteBufferAllocator())
                    let nios = try Self.encodedByNIO(head, body: sent)
                    #expect(ours == nios, "\(status.code) \(status.reasonPhrase) \(version)")
                }
            }
        }
    }

    /// A channel with the server's outbound handlers in their order: NIO's encoder, then
    /// `EncodedResponses` (a write from the channel's end reaches it first).
    static func channel() throws -> (EmbeddedChannel, EncodedResponses) {
        var configuration = HTTPResponseEncoder.Configuration()
        configuration.automaticallySetFramingHeaders = false
        let bypass = EncodedResponses()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([HTTPResponseEncoder(configuration: configuration), bypass])
        return (channel, bypass)
    }

    static func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let data = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = data else { continue }
            text += String(buffer: buffer)
        }
        return text
    }

    @Test(
        "the head is written as the bytes, the body and the end as nothing; the end's promise completes after the bytes; the next response is encoded"
    )
    func bytesInTheHeadsPlace() throws {
        let (channel, bypass) = try Self.channel()
        defer { _ = try? channel.finish() }
        #expect(bypass.writeNextResponse(as: ByteBuffer(string: "ENCODED")))
        let head = HTTPResponseHead(version: .http1_1, status: .ok)
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        let ended = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(HTTPServerResponsePart.end(nil), promise: ended)
        // An embedded channel writes at once: the end's promise has completed.
        #expect(throws: Never.self) { try ended.futureResult.wait() }
        #expect(try Self.written(channel) == "ENCODED")
        // The next response, not handed over as bytes, goes through the encoder.
        var headers = NIOHTTP1.HTTPHeaders()
        headers.add(name: "Content-Length", value: "2")
        channel.write(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .created, headers: headers)), promise: nil)
        channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: "ok"))), promise: nil)
        channel.writeAndFlush(HTTPServerResponsePart.end(nil), promise: nil)
        #expect(try Self.written(channel) == "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
    }

    @Test("without an encoder in the pipeline (an HTTP/2 stream) nothing is taken: the caller writes the parts")
    func noEncoderNoBypass() throws {
        let bypass = EncodedResponses()
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        try channel.pipeline.syncOperations.addHandler(bypass)
        #expect(!bypass.writeNextResponse(as: ByteBuffer(string: "ENCODED")))
    }

    @Test("a kept answer over 64 KB is written part by part (not held twice): three on one connection arrive whole")
    func largeKeptAnswer() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        let body = String(repeating: "0123456789", count: 10_000)
        mock.addResponses(forPath: "/large", responses: [.plaintext(body, lifetime: .eternal)])
        let request = "GET /large HTTP/1.1\r\nHost: localhost\r\n\r\n"
        let text = try await serving(mock) { server in
            try await blocking {
                let client = try RawClient(port: server.port)
                try client.send(request + request + "GET /large HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                return client.read(timeout: 30)
            }
        }
        let answers = text.components(separatedBy: "HTTP/1.1 200 OK\r\n").dropFirst()
        #expect(answers.count == 3)
        for answer in answers {
            #expect(answer.contains("Content-Length: 100000\r\n"))
            #expect(answer.hasSuffix("\r\n\r\n" + body))
        }
    }

    @Test("one connection: kept answers pipelined around an event stream (chunked), a HEAD, a handler and a 204 keep their bytes and order")
    func keptAnswersBesideOtherResponses() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/kept", responses: [.plaintext("kept", lifetime: .eternal)])
        mock.addResponses(forPath: "/events", responses: [.eventStream([ServerSentEvent(data: "e")], interval: 0)])
        mock.addResponses(forPath: "/handler", responses: [.dynamic(lifetime: .eternal) { _ in .plaintext("H") }])
        mock.addResponses(forPath: "/empty", responses: [.empty(status: 204, lifetime: .eternal)])
        let paths = ["/kept", "/kept", "/events", "/kept", "HEAD /kept", "/kept", "/handler", "/kept", "/empty", "/kept"]
        let request = paths.map { path in
            let (method, target) = path.hasPrefix("HEAD ") ? ("HEAD", String(path.dropFirst(5))) : ("GET", path)
            return "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\n\r\n"
        }.joined()
        let text = try await serving(mock) { server in
            try await blocking {
                let client = try RawClient(port: server.port)
                try client.send(request + "GET /kept HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                return client.read(timeout: 30)
            }
        }
        let answers = text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { "HTTP/1.1 " + $0 }
        #expect(answers.count == paths.count + 1, "\(text.debugDescription)")
        guard answers.count == paths.count + 1 else { return }
        // The first answer is written part by part through NIO's encoder; the later ones as kept bytes.
        let keptAnswer = answers[0]
        #expect(keptAnswer.hasPrefix("HTTP/1.1 200 OK\r\n") && keptAnswer.hasSuffix("\r\n\r\nkept"))
        #expect(keptAnswer.contains("\r\nContent-Length: 4\r\n") && keptAnswer.contains("\r\nContent-Type: text/plain; charset=utf-8\r\n"))
        let keptHead = String(keptAnswer.dropLast(4))
        for index in [0, 1, 3, 5, 7, 9] { #expect(answers[index] == keptAnswer, "answer \(index)") }
        #expect(answers[2].lowercased().contains("transfer-encoding: chunked"))
        #expect(answers[2].hasSuffix("data: e\n\n\r\n0\r\n\r\n"))
        #expect(answers[4] == keptHead)
        #expect(answers[6].hasSuffix("\r\n\r\nH"))
        #expect(answers[8].hasPrefix("HTTP/1.1 204 No Content\r\n"))
        #expect(answers[10] == keptHead.replacingOccurrences(of: "\r\n\r\n", with: "\r\nConnection: close\r\n\r\n") + "kept")
    }
}
#endif

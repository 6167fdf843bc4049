#if Server
import Foundation
import HTTPMock
import HTTPMockServer
import Testing

/// An HTTP/2 connection the client leaves open with no stream is closed after the idle timeout,
/// as an HTTP/1.1 connection with nothing to answer is.
@Suite("HTTP/2: idle connections close", .timeLimit(.minutes(1)))
struct HTTP2IdleTests {
    /// HTTP/2's connection preface (RFC 9113 §3.4) and an empty SETTINGS frame.
    static let opening = Data("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + Data([0, 0, 0, 4, 0, 0, 0, 0, 0])

    @Test("an h2c connection with no stream is closed after idleTimeout; one that has a request served is closed after it")
    func idleConnectionCloses() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        let server = try await mock.startServer(idleTimeout: 0.5)
        defer { Task { await server.stop() } }
        let port = server.port
        // A HEADERS frame on stream 1 (END_STREAM, END_HEADERS): GET / over http, HPACK's
        // indexed fields 2, 6 and 4, and `:authority: localhost` (a literal with indexed name 1).
        let request = Data([0, 0, 14, 1, 5, 0, 0, 0, 1, 0x82, 0x86, 0x84, 0x01, 9]) + Data("localhost".utf8)
        for sendsRequest in [false, true] {
            let (closed, received) = try await blocking { () -> (Bool, Int) in
                let client = try RawClient(port: port)
                try client.send(Self.opening + (sendsRequest ? request : Data()))
                // The server's SETTINGS (and the answer) come first; then nothing until it
                // closes. A deadline a busy machine cannot reach by accident: without the idle
                // check the connection stays open.
                _ = client.read(timeout: 30)
                return (client.isClosed, client.received.count)
            }
            #expect(closed, "sends a request: \(sendsRequest)")
            #expect(received > (sendsRequest ? 40 : 0))
        }
        // Served on the stream: the journal has it.
        #expect(mock.recordedRequests.count == 1)
    }
}
#endif

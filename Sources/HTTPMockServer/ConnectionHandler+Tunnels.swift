#if Server
import NIOCore
import NIOHTTP1

// Where the connection stops reading HTTP/1.1 with its first decoder: an upgrade offer, which it
// declines, and a CONNECT tunnel, served as plain HTTP inside.

extension ConnectionHandler {
    // MARK: - Upgrade offers

    /// Whether `head` offers to switch protocols (`Connection: upgrade` and an `Upgrade` field,
    /// as Java's `HttpClient` sends `Upgrade: h2c` on its first request): NIO's decoder then
    /// stops reading the connection after this request, as if the protocol had switched.
    static func offersUpgrade(_ head: HTTPRequestHead) -> Bool {
        head.headers.contains(name: "Upgrade")
            && head.headers[canonicalForm: "Connection"].contains { $0.lowercased() == "upgrade" }
    }

    /// The offer is declined (RFC 9110 §7.8: the server answers in HTTP/1.1 and ignores it): a
    /// fresh decoder reads the rest of the connection as HTTP/1.1, fed what the old one holds.
    func declineUpgrade(context: ChannelHandlerContext) {
        replaceDecoder(context: context)
    }

    /// Puts a fresh request decoder where the current one is; the current one, removed, hands
    /// it the bytes it has not parsed (`leftOverBytesStrategy: .forwardBytes`).
    private func replaceDecoder(context: ChannelHandlerContext) {
        let fresh = Self.makeDecoder()
        do {
            try context.pipeline.syncOperations.addHandler(fresh, position: .after(decoder))
        } catch {
            context.close(promise: nil)
            return
        }
        context.pipeline.syncOperations.removeHandler(decoder, promise: nil)
        decoder = fresh
    }

    // MARK: - CONNECT

    /// `CONNECT host:port`: 200, then the tunnel is read as plain HTTP by a fresh decoder (the
    /// old one stops at the tunnel and forwards what it holds). Port 443 means TLS inside,
    /// which a mock cannot terminate: 501 with a body saying what to do instead.
    func connect(context: ChannelHandlerContext, head: HTTPRequestHead) {
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
        // Without a length, a client could wait for a body; clients ignore Content-Length on a
        // 2xx CONNECT answer.
        headers.add(name: "Content-Length", value: "0")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        replaceDecoder(context: context)
    }
}
#endif

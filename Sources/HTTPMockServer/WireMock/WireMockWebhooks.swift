#if Server
import Foundation
import HTTPMock
import Logging
import NIOCore
import NIOPosix

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// WireMock's `webhook` action (`postServeActions`, 3.x's `serveEventListeners`): once the
/// server has written the response, it sends `method url` with `headers` and `body`, after
/// `delay`. Sent from a background queue; a failure to deliver is not the client's concern
/// (WireMock logs it), so it is dropped.
///
/// No loops (forwarding's rule, applied to webhooks): every webhook carries
/// `Via: 1.1 httpmock-webhook-…`, this process's name for its webhooks, after the `Via` of the
/// request that fired it. A request that arrives carrying that name is answered as usual but
/// fires no webhook of its own, so a webhook that calls its own mapping (or a chain of
/// mappings, or of servers passing `Via` on, that comes back) is sent once, not forever.
///
/// Bounded (issue 43): the body is made into one buffer when the mapping is parsed and every
/// send over `http://` writes that buffer (no copy per send; an `https://` webhook goes through
/// a plain `URLSession`, which copies it). At most ``WebhookFlight/maximumSends`` webhooks and
/// ``WebhookFlight/maximumBodyBytes`` of their bodies are in flight (delay included) at once;
/// one beyond is dropped and counted, and the instance's log says so (a warning, the first time,
/// then every 1,000th: ``HTTPMock/HTTPMock/serverLogger``, standard error by default). A send
/// ends after ``WebhookFlight/timeout`` whatever the receiver does.
struct WireMockWebhook: Sendable {
    let method: String
    let url: URL
    let headers: HTTPHeaders
    /// The body, made once; `nil` without one.
    let body: ByteBuffer?
    let delay: WireMockDelay?

    static let keys: Set<String> = ["method", "url", "headers", "body", "base64Body", "delay"]

    /// The actions of a mapping: `postServeActions` (a list of `{"name", "parameters"}`, or
    /// the older `{"webhook": {…}}` map) and `serveEventListeners` (a list).
    static func parse(_ mapping: [String: JSONValue]) throws(WireMockMappingError) -> [WireMockWebhook] {
        var hooks: [WireMockWebhook] = []
        for key in ["postServeActions", "serveEventListeners"] {
            guard let value = mapping[key] else { continue }
            switch value {
            case .array(let items):
                for (index, item) in items.enumerated() {
                    let at = "/\(key)/\(index)"
                    guard case .object(let entry) = item, case .string(let name)? = entry["name"] else {
                        throw WireMockMappingError(
                            pointer: at, message: "an action is {\"name\": \"webhook\", \"parameters\": {…}}, got \(item)")
                    }
                    for field in entry.keys.sorted() where !["name", "parameters", "requestPhases"].contains(field) {
                        throw WireMockMappingError(pointer: at + "/" + field, message: "unsupported field \(field)")
                    }
                    guard name == "webhook" else {
                        throw WireMockMappingError(
                            pointer: at + "/name", message: "the extension \(name) is not available (HTTPMock has webhook)")
                    }
                    hooks.append(try parse(entry["parameters"] ?? .object([:]), at: at + "/parameters"))
                }
            case .object(let byName):
                for name in byName.keys.sorted() {
                    guard name == "webhook" else {
                        throw WireMockMappingError(
                            pointer: "/\(key)/\(name)", message: "the extension \(name) is not available (HTTPMock has webhook)")
                    }
                    hooks.append(try parse(byName[name] ?? .null, at: "/\(key)/\(name)"))
                }
            default:
                throw WireMockMappingError(pointer: "/" + key, message: "\(key) must be a list of actions, got \(value)")
            }
        }
        return hooks
    }

    static func parse(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> WireMockWebhook {
        guard case .object(let object) = value else {
            throw WireMockMappingError(pointer: pointer, message: "webhook parameters must be an object, got \(value)")
        }
        for key in object.keys.sorted() where !keys.contains(key) {
            if key == "transformers" || key == "transformerParameters" {
                throw WireMockMappingError(pointer: pointer + "/" + key, message: "templated webhooks are not supported yet")
            }
            throw WireMockMappingError(pointer: pointer + "/" + key, message: "unsupported webhook field \(key)")
        }
        let method =
            try object["method"].map { value throws(WireMockMappingError) in try WireMockMatchers.string(value, at: pointer + "/method") }
            ?? "POST"
        guard HTTPMethod(method).isValidToken else {
            throw WireMockMappingError(pointer: pointer + "/method", message: "\"\(method)\" is not an HTTP method")
        }
        guard case .string(let text)? = object["url"], let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil
        else {
            throw WireMockMappingError(pointer: pointer + "/url", message: "a webhook needs an http(s) url, got \(object["url"] ?? .null)")
        }
        let headers =
            try object["headers"].map { value throws(WireMockMappingError) in
                try WireMockResponse.headers(value, at: pointer + "/headers")
            } ?? HTTPHeaders()
        var body: Data?
        switch (object["body"], object["base64Body"]) {
        case (.string(let text)?, nil): body = Data(text.utf8)
        case (nil, .string(let encoded)?):
            guard let data = Data(base64Encoded: encoded) else {
                throw WireMockMappingError(pointer: pointer + "/base64Body", message: "base64Body is not base64")
            }
            body = data
        case (nil, nil): body = nil
        default:
            throw WireMockMappingError(pointer: pointer, message: "give body (a string) or base64Body, not both")
        }
        let delay = try object["delay"].map { value throws(WireMockMappingError) in try WireMockDelay.parse(value, at: pointer + "/delay") }
        return WireMockWebhook(
            method: HTTPMethod(method).rawValue, url: url, headers: headers, body: body.map { ByteBuffer(bytes: $0) }, delay: delay)
    }

    /// This process's name in the `Via` field of its webhooks.
    static let hop = "httpmock-webhook-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)

    /// Whether `request` was sent by one of this process's webhooks (its `Via` names ``hop``).
    static func isFromWebhook(_ request: MockRequest) -> Bool {
        request.headers["Via"]?.contains(hop) == true
    }

    /// A plain session: a webhook goes to the network, never back through HTTPMock.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 30
        return URLSession(configuration: configuration)
    }()

    /// Sends the webhook after its delay, unless ``WebhookFlight`` has no place for it (which
    /// `logger` hears).
    func send(after request: MockRequest, log logger: Logger) {
        let size = body?.readableBytes ?? 0
        guard WebhookFlight.admit(size, url: url, log: logger) else { return }
        let via = [headers["Via"], request.headers["Via"], "1.1 \(Self.hop)"].compactMap { $0 }.joined(separator: ", ")
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let milliseconds = max(0, min(delay?.sample() ?? 0, 86_400_000))
        let hook = self
        loop.scheduleTask(in: .milliseconds(Int64(milliseconds))) {
            if hook.url.scheme?.lowercased() == "http" {
                hook.sendOverNIO(via: via, on: loop) { WebhookFlight.release(size) }
            } else {
                hook.sendOverURLSession(via: via) { WebhookFlight.release(size) }
            }
        }
    }

    /// An `http://` webhook on NIO's client: the head, then the body's one buffer.
    private func sendOverNIO(via: String, on loop: any EventLoop, done: @escaping @Sendable () -> Void) {
        let host = url.host ?? "localhost"
        var target = url.path.isEmpty ? "/" : url.path
        if let components = URLComponents(url: url, resolvingAgainstBaseURL: false), !components.percentEncodedPath.isEmpty {
            target = components.percentEncodedPath
        }
        if let query = url.query { target += "?" + query }
        var fields = [(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)]
        for (name, value) in headers {
            guard !["host", "via", "content-length", "connection", "transfer-encoding"].contains(name.lowercased()) else { continue }
            fields.append((name, value))
        }
        fields.append(("Via", via))
        WebhookFlight.send(
            method: method, host: host, port: url.port ?? 80, target: target, fields: fields, body: body, on: loop, done: done)
    }

    /// An `https://` webhook through a plain session.
    private func sendOverURLSession(via: String, done: @escaping @Sendable () -> Void) {
        var outgoing = URLRequest(url: url)
        outgoing.httpMethod = method
        for (name, value) in headers { outgoing.setValue(value, forHTTPHeaderField: name) }
        outgoing.setValue(via, forHTTPHeaderField: "Via")
        outgoing.httpBody = body.map { Data($0.readableBytesView) }
        let sent = outgoing
        DispatchQueue.global().async {
            Self.session.dataTask(with: sent) { _, _, _ in done() }.resume()
        }
    }
}

#endif

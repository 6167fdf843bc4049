#if Server
import Foundation
import HTTPMock

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// WireMock's `webhook` action (`postServeActions`, 3.x's `serveEventListeners`): once the
/// server has written the response, it sends `method url` with `headers` and `body`, after
/// `delay`. Sent from a background queue; a failure to deliver is not the client's concern
/// (WireMock logs it), so it is dropped.
///
/// No loops (SPEC §23's rule for forwards, applied to webhooks): every webhook carries
/// `Via: 1.1 httpmock-webhook-…`, this process's name for its webhooks, after the `Via` of the
/// request that fired it. A request that arrives carrying that name is answered as usual but
/// fires no webhook of its own, so a webhook that calls its own mapping (or a chain of
/// mappings, or of servers passing `Via` on, that comes back) is sent once, not forever.
struct WireMockWebhook: Sendable {
    let method: String
    let url: URL
    let headers: HTTPHeaders
    let body: Data?
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
        return WireMockWebhook(method: HTTPMethod(method).rawValue, url: url, headers: headers, body: body, delay: delay)
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

    /// Sends the webhook, after its delay, from a background queue.
    func send(after request: MockRequest) {
        var outgoing = URLRequest(url: url)
        outgoing.httpMethod = method
        for (name, value) in headers { outgoing.setValue(value, forHTTPHeaderField: name) }
        let via = [headers["Via"], request.headers["Via"], "1.1 \(Self.hop)"].compactMap { $0 }
        outgoing.setValue(via.joined(separator: ", "), forHTTPHeaderField: "Via")
        outgoing.httpBody = body
        let sent = outgoing
        let seconds = (delay?.sample() ?? 0) / 1000
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            Self.session.dataTask(with: sent) { _, _, _ in }.resume()
        }
    }
}
#endif

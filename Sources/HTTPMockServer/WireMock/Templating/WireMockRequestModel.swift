#if Server
import Foundation
import HTTPMock

/// What a WireMock template sees as `request` (WireMock's `RequestTemplateModel`): each member
/// computed when a template first names it, so a template that reads `request.path` pays for
/// nothing else.
///
/// Compared with WireMock 2.35.1: `url` is the path and query as sent (`/t/x?a=1`), `baseUrl`,
/// `host`, `port` and `scheme` what the client called (`http://127.0.0.1:PORT`), `path.[n]`
/// and `pathSegments.[n]` the segments, `query.X`, `headers.X` (any case) and `cookies.X`
/// WireMock's single-or-list (the first value, `.[n]` for each).
final class WireMockRequestModel: TemplateObject, @unchecked Sendable {
    // @unchecked: the cache is filled by the one render that reads this model (renders run on
    // one thread from start to end; a model is made per render and never shared).
    let request: MockRequest
    private var cache: [String: TemplateValue] = [:]

    static let names = [
        "url", "path", "pathSegments", "query", "method", "headers", "cookies", "body", "bodyAsBase64", "baseUrl", "host", "port",
        "scheme", "clientIp", "pathParameters", "requestLine",
    ]

    /// What WireMock's `request.requestLine` holds (compared with the 2.35.1 jar: `port` is the
    /// port called, `url` the path and query as sent).
    static let requestLineNames = ["method", "scheme", "host", "port", "path", "pathSegments", "query", "url", "baseUrl"]

    init(_ request: MockRequest) { self.request = request }

    func member(_ name: String) -> TemplateValue? {
        if let cached = cache[name] { return cached }
        guard let value = compute(name) else { return nil }
        cache[name] = value
        return value
    }

    var members: [(key: String, value: TemplateValue)] { Self.names.compactMap { name in member(name).map { (name, $0) } } }

    /// The URL the client called, made once (`calledURL` builds it on each read).
    private lazy var called: URL = request.calledURL

    private func compute(_ name: String) -> TemplateValue? {
        switch name {
        case "url":
            let path = called.path.isEmpty ? "/" : encodedPath
            return .string(called.query.map { path + "?" + $0 } ?? path)
        case "path", "pathSegments":
            // Split as sent, then decoded: `/files/a%2Fb` has the segments `files` and `a/b`.
            let segments = encodedPath.split(separator: "/", omittingEmptySubsequences: true).map { segment in
                TemplateValue.string(String(segment).removingPercentEncoding ?? String(segment))
            }
            return .segmented(called.path.isEmpty ? "/" : called.path, segments)
        case "query":
            var order: [String] = []
            var values: [String: [TemplateValue]] = [:]
            for item in request.queryItems {
                if values[item.name] == nil { order.append(item.name) }
                values[item.name, default: []].append(.string(item.value ?? ""))
            }
            return .object(TemplateMap(order.map { ($0, .listOrSingle(values[$0] ?? [])) }))
        case "method":
            return .string(request.method.rawValue)
        case "headers":
            return .object(WireMockHeaders(request.headers))
        case "cookies":
            return .object(TemplateMap(Self.cookies(request.headers["Cookie"])))
        case "body":
            return .string(request.body.map { String(decoding: $0, as: UTF8.self) } ?? "")
        case "bodyAsBase64":
            return .string(request.body?.base64EncodedString() ?? "")
        case "baseUrl":
            let port = called.port.map { ":\($0)" } ?? ""
            return .string("\(called.scheme ?? "http")://\(called.host ?? "")\(port)")
        case "host":
            return .string(called.host ?? "")
        case "port":
            if let port = called.port { return .integer(port) }
            return .integer(called.scheme == "https" ? 443 : 80)
        case "scheme":
            return .string(called.scheme ?? "http")
        case "clientIp":
            // As the matchers read it: the peer's address when the transport hands it on.
            return .string(request.clientAddress ?? "127.0.0.1")
        case "pathParameters":
            return .object(TemplateMap(request.pathParameters.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
        case "requestLine":
            return .object(TemplateMap(Self.requestLineNames.compactMap { name in member(name).map { (name, $0) } }))
        default:
            return nil
        }
    }

    /// The path as the client sent it, percent-encoding kept.
    private lazy var encodedPath: String = URLComponents(url: called, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? called.path

    /// `Cookie: a=1; b=2; a=3` as single-or-lists by name, in order.
    static func cookies(_ header: String?) -> [(key: String, value: TemplateValue)] {
        guard let header else { return [] }
        var order: [String] = []
        var values: [String: [TemplateValue]] = [:]
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { continue }
            if values[name] == nil { order.append(name) }
            values[name, default: []].append(.string(parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""))
        }
        return order.map { ($0, .listOrSingle(values[$0] ?? [])) }
    }
}

/// `request.headers`: names in any case, each a single-or-list.
struct WireMockHeaders: TemplateObject {
    let headers: HTTPHeaders

    init(_ headers: HTTPHeaders) { self.headers = headers }

    func member(_ name: String) -> TemplateValue? {
        guard let value = headers[name] else { return nil }
        return .listOrSingle(Self.values(value))
    }

    var members: [(key: String, value: TemplateValue)] { headers.map { ($0.name, .listOrSingle(Self.values($0.value))) } }

    static func values(_ value: String) -> [TemplateValue] { [.string(value)] }
}
#endif

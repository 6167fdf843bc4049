import Foundation

/// A request as HTTPMock saw it: what matchers, dynamic responses and the journal read.
///
/// ```swift
/// let request = mock.recordedRequests[0].request
/// request.method                    // .post
/// request.headers["content-type"]   // case-insensitive
/// let login = try request.decode(Login.self)
/// ```
public struct MockRequest: Sendable, CustomStringConvertible {
    /// Everything but the path parameters, in one immutable object: requests are copied into
    /// the journal, resolutions and handlers, and a copy should cost one retain, not ten.
    final class Storage: Sendable {
        let method: HTTPMethod
        let target: Target
        let headers: HTTPHeaders
        let body: Data?
        /// The client's address, when a transport knows it (the server's peer).
        let clientAddress: String?

        init(method: HTTPMethod, target: Target, headers: HTTPHeaders, body: Data?, clientAddress: String? = nil) {
            self.method = method
            self.target = target
            self.headers = headers
            self.body = body
            self.clientAddress = clientAddress
        }
    }

    /// What a request's URL says for lookup, read once per URL: a transport that sees the same
    /// URL again (the server, for each request on a connection to the same path) reuses it
    /// instead of reading the URL again. A class: the server keeps the last one per connection
    /// and hands it to each request, and a copy should cost one retain, not eight.
    package final class Target: Sendable {
        let url: URL
        let queryItems: [URLQueryItem]
        let normalizedPath: String
        let normalizedHost: String
        let port: Int?
        let effectivePort: Int?
        /// The URL's scheme, lowercased; empty when it has none.
        let scheme: String
        /// Where a server's client sent the request, when that is not ``url`` (the server
        /// matches a request naming it as sent to the impersonated host); `nil`: ``url``.
        let called: CalledURL?
        /// The path as the client wrote it (percent-encoding kept; `/` when empty), for rules
        /// on the URL as sent (WireMock's `urlPath`, `urlPathPattern`).
        let rawPath: String
        /// The query as the client wrote it, without `?`.
        let rawQuery: String?

        /// Path and query as the client wrote them (WireMock's `url`, `urlPattern`).
        var rawPathAndQuery: String { rawQuery.map { rawPath + "?" + $0 } ?? rawPath }

        /// Reads `url`'s scheme, host, port, path and query.
        ///
        /// - Parameter called: Where the client sent the request, when a server matches it as
        ///   sent to `url` instead; `nil` when the client called `url` itself.
        package init(_ url: URL, called: CalledURL? = nil) {
            self.url = url
            self.called = called
            let port: Int?
            let scheme: String
            let path: String
            let query: String?
            let host: String
            if let plain = MockRequest.plainParts(of: url) {
                (scheme, host, path, query) = plain
                port = nil
            } else {
                (path, query, host) = MockRequest.parts(of: url)
                port = url.port
                let given = url.scheme ?? ""
                // Schemes almost always arrive lowercased already: keep the string, allocate nothing.
                scheme = given.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) ? given.lowercased() : given
            }
            self.queryItems = MockRequest.queryItems(query)
            self.rawPath = path.isEmpty ? "/" : path
            self.rawQuery = query
            self.normalizedPath = RoutePath.normalize(path)
            self.normalizedHost = RouteHost.normalize(host)
            self.port = port
            self.scheme = scheme
            switch self.scheme {
            case _ where port != nil: self.effectivePort = port
            case "https": self.effectivePort = 443
            case "http": self.effectivePort = 80
            default: self.effectivePort = nil
            }
        }
    }

    /// The URL a server's client called, kept as the parts the server had read: the request's
    /// per-connection ``Target`` holds one, and the URL is built only when someone asks
    /// (the admin API, a report), never on the way to an answer.
    package final class CalledURL: Sendable {
        /// `http` or `https`.
        let scheme: String
        /// The authority as the client sent it in `Host` (`127.0.0.1:8080`); empty for an
        /// absolute-form target, which names its own.
        let authority: String
        /// The request target as received: origin form (`/path?query`) or absolute form.
        let target: String

        /// - Parameters:
        ///   - scheme: `http` or `https`.
        ///   - authority: The `Host` header's value (the server's address when there was none);
        ///     empty when `target` is absolute.
        ///   - target: The request line's target.
        package init(scheme: String, authority: String, target: String) {
            self.scheme = scheme
            self.authority = authority
            self.target = target
        }

        /// The URL, or `nil` when the parts do not make one.
        var url: URL? {
            if authority.isEmpty { return URL(string: target) }
            let path = target.utf8.first == UInt8(ascii: "/") ? target : "/" + target
            return URL(string: scheme + "://" + authority + path)
        }
    }

    private let storage: Storage

    /// The method, uppercased.
    public var method: HTTPMethod { storage.method }
    /// The full URL the request is matched as. For a request to `HTTPMockServer` that names
    /// the server (`http://127.0.0.1:PORT/users`), the impersonated host's URL
    /// (`https://api.example.com/users`); ``calledURL`` is the one the client called.
    public var url: URL { storage.target.url }
    /// The URL the client called: for an in-process request, ``url``; for a request to
    /// `HTTPMockServer`, the server's address as the client named it in `Host` with the path
    /// and query it sent (`http://127.0.0.1:8080/users?page=2`), or the absolute URL of a
    /// request sent to the server as a proxy.
    ///
    /// ```swift
    /// let entry = mock.recordedRequests[0]
    /// entry.request.url         // https://api.example.com/users (matched as)
    /// entry.request.calledURL   // http://127.0.0.1:8080/users (what the client called)
    /// ```
    public var calledURL: URL { storage.target.called?.url ?? storage.target.url }
    /// The header fields, names case-insensitive.
    public var headers: HTTPHeaders { storage.headers }
    /// The body, whether it came from `httpBody`, `httpBodyStream` or an upload task; `nil` when
    /// there was none (or when FoundationNetworking hid it, see <doc:LinuxNotes>).
    public var body: Data? { storage.body }
    /// The query items, percent-decoded, repeated keys kept in order.
    public var queryItems: [URLQueryItem] { storage.target.queryItems }
    /// Values captured by `:name` path segments of the matched route.
    public internal(set) var pathParameters: [String: String]

    /// Normalised path and host, computed once per request for lookup.
    var normalizedPath: String { storage.target.normalizedPath }
    var normalizedHost: String { storage.target.normalizedHost }
    var port: Int? { storage.target.port }
    /// The port the request goes to: explicit, else the scheme's default (80, 443).
    var effectivePort: Int? { storage.target.effectivePort }
    /// The query items by name, for query constraints and near-miss reports: built when one
    /// asks (most routes have no query constraint, most requests no query).
    var query: RequestQuery { RequestQuery(storage.target.queryItems) }
    /// The URL's scheme, lowercased; empty when it has none.
    var scheme: String { storage.target.scheme }
    /// The decoded path segments, for pattern routes (split on demand: exact routes never need
    /// them). The request path was split on its raw `/` before decoding: `/files/a%2Fb` has the
    /// segments `files` and `a/b`.
    var pathSegments: [String] { RoutePath.segments(ofNormalized: normalizedPath) }

    init(method: HTTPMethod, url: URL, headers: HTTPHeaders, body: Data?) {
        self.init(method: method, target: Target(url), headers: headers, body: body)
    }

    /// A request to a URL already read (``Target``), from `clientAddress` when the transport knows it.
    package init(method: HTTPMethod, target: Target, headers: HTTPHeaders, body: Data?, clientAddress: String? = nil) {
        self.storage = Storage(method: method, target: target, headers: headers, body: body, clientAddress: clientAddress)
        self.pathParameters = [:]
    }

    /// The client's address, when the transport knows it (the server's peer); `nil` in process.
    package var clientAddress: String? { storage.clientAddress }

    /// The host the client named: its `Host` header without the port, else the URL's host.
    var clientHost: String {
        guard let host = headers["Host"], !host.isEmpty else { return url.host ?? normalizedHost }
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") { return String(host[...close]) }
        return String(host.prefix { $0 != ":" })
    }

    /// The scheme the client used: `http` for a request that came over the server (which
    /// serves plain HTTP, whatever host it impersonates), else the URL's.
    var clientScheme: String { clientAddress != nil ? "http" : scheme }

    /// The port the client named: its `Host` header's, else the URL's, else the scheme's default.
    var clientPort: Int? {
        if let host = headers["Host"] {
            let afterBracket = host.lastIndex(of: "]").map { host[host.index(after: $0)...] } ?? host[...]
            if let colon = afterBracket.lastIndex(of: ":"), let port = Int(afterBracket[afterBracket.index(after: colon)...]) {
                return port
            }
        }
        return effectivePort
    }

    /// What the URL says for lookup, for a copy of this request with another method, headers or body.
    var target: Target { storage.target }

    /// The scheme, host, percent-encoded path and query of a plain `http(s)://host/path?query`
    /// URL, read from its absolute string in one pass; `nil` for any other URL (a port, user
    /// info, an IPv6 or percent-encoded host, a fragment, another scheme or one not in
    /// lowercase), which ``parts(of:)`` then reads with the URL's own accessors.
    ///
    /// Each accessor of a FoundationNetworking `URL` builds its answer from the URL's string
    /// again; together they were about a microsecond of every request (Benchmarks/README.md,
    /// "fourth round"). For the URLs read here both give the same parts
    /// (`RequestModelTests.plainURLsReadAsFoundationDoes`).
    static func plainParts(of url: URL) -> (scheme: String, host: String, path: String, query: String?)? {
        let string = url.absoluteString
        // Over the bytes themselves: a `String.Index` walk costs several times more.
        let parts = string.utf8.withContiguousStorageIfAvailable { bytes -> (String, String, String, String?)? in
            func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
            let scheme: String
            var index: Int
            if bytes.starts(with: "https://".utf8) {
                (scheme, index) = ("https", 8)
            } else if bytes.starts(with: "http://".utf8) {
                (scheme, index) = ("http", 7)
            } else {
                return nil
            }
            let hostStart = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") { break }
                let isNameByte =
                    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                guard isNameByte else { return nil }
                index += 1
            }
            guard index > hostStart else { return nil }
            let hostEnd = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "?") {
                if bytes[index] == UInt8(ascii: "#") { return nil }
                index += 1
            }
            let pathEnd = index
            var query: String?
            if index < bytes.count {
                guard !bytes[(index + 1)...].contains(UInt8(ascii: "#")) else { return nil }
                query = text((index + 1)..<bytes.count)
            }
            return (scheme, text(hostStart..<hostEnd), text(hostEnd..<pathEnd), query)
        }
        guard let parts, let parts else { return nil }
        return parts
    }

    /// The percent-encoded path and query and the host of `url`. URL's own accessors where they
    /// exist: parsing a URLComponents per request costs more than the whole route lookup.
    static func parts(of url: URL) -> (path: String, query: String?, host: String) {
        if #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) {
            return (url.path(percentEncoded: true), url.query(percentEncoded: true), url.host(percentEncoded: true) ?? "")
        }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        return (components?.percentEncodedPath ?? url.path, components?.percentEncodedQuery, components?.host ?? "")
    }

    /// The items of a percent-encoded query, decoded, in order; `+` stays `+` (as URLComponents
    /// does): ``FormDecoding``'s rule.
    static func queryItems(_ query: String?) -> [URLQueryItem] {
        guard let query, !query.isEmpty else { return [] }
        return FormDecoding.pairs(query, plusIsSpace: false).map { URLQueryItem(name: $0.name, value: $0.value) }
    }

    /// The JSON body decoded as `type`.
    ///
    /// - Throws: ``HTTPMockError`` when there is no body, or the decoder's error.
    public func decode<Value: Decodable>(_ type: Value.Type = Value.self, decoder: JSONDecoder = JSONDecoder()) throws -> Value {
        guard let body else {
            throw HTTPMockError(.noRequestBody, "\(method) \(url.absoluteString) has no body to decode as \(Value.self)")
        }
        return try decoder.decode(Value.self, from: body)
    }

    /// The body's `application/x-www-form-urlencoded` fields, percent-decoded with `+` as a
    /// space (as HTML forms encode it). Empty when there is no body. A repeated key keeps its
    /// last value.
    public var formParameters: [String: String] {
        guard let body, let text = String(data: body, encoding: .utf8) else { return [:] }
        var result: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode: (Substring) -> String = { part in
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncodingIfValid
            }
            result[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return result
    }

    public var description: String { "\(method) \(url.absoluteString)" }
}

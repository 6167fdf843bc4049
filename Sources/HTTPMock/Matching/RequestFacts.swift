import Foundation

/// What the matchers of one request have decoded so far: each part of the request is read at
/// most once, however many routes and matchers ask. A local of one lookup; never shared.
struct RequestFacts {
    private var cachedJSON: JSONValue??
    private var cachedBody: RequestBody?
    private var cachedQuery: [String: [String]]?
    private var cachedCookies: [String: [String]]?
    private var cachedForm: [String: [String]]?
    private var cachedDeclaredQuery: RequestQuery?
    private var cachedParts: [MultipartPart]??

    /// The body as JSON (``BodyMatcher``'s reading: strict JSON).
    mutating func json(of request: MockRequest) -> JSONValue? {
        if let cachedJSON { return cachedJSON }
        let value = request.body.flatMap(JSONValue.parse)
        cachedJSON = .some(value)
        return value
    }

    mutating func body(of request: MockRequest) -> RequestBody {
        if let cachedBody { return cachedBody }
        let body = RequestBody(request.body)
        cachedBody = body
        return body
    }

    mutating func formDecodedQuery(of request: MockRequest) -> [String: [String]] {
        if let cachedQuery { return cachedQuery }
        let query = FormDecoding.fields(request.target.rawQuery ?? "")
        cachedQuery = query
        return query
    }

    /// The query as the DSL reads it (``MockRequest/queryItems``: `+` stays `+`).
    mutating func declaredQuery(of request: MockRequest) -> RequestQuery {
        if let cachedDeclaredQuery { return cachedDeclaredQuery }
        let query = request.query
        cachedDeclaredQuery = query
        return query
    }

    mutating func cookies(of request: MockRequest) -> [String: [String]] {
        if let cachedCookies { return cachedCookies }
        var cookies: [String: [String]] = [:]
        // Several Cookie fields arrive joined with ", "; pairs are separated by "; ".
        for pair in (request.headers["Cookie"] ?? "").split(whereSeparator: { $0 == ";" || $0 == "," }) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { continue }
            var value = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            cookies[name, default: []].append(value)
        }
        cachedCookies = cookies
        return cookies
    }

    mutating func form(of request: MockRequest) -> [String: [String]] {
        if let cachedForm { return cachedForm }
        let form = FormDecoding.fields(request.body.map { String(decoding: $0, as: UTF8.self) } ?? "")
        cachedForm = form
        return form
    }

    mutating func multipartParts(of request: MockRequest) -> [MultipartPart]? {
        if let cachedParts { return cachedParts }
        let parts = Multipart.parts(of: request)
        cachedParts = .some(parts)
        return parts
    }
}

#if Server
import Foundation
import HTTPMock

/// WireMock's request pattern compiled into what the registry indexes and checks: a method, a
/// route path (the index key: a URL's literal path, a template's `:name` segments, a regular
/// expression's literal prefix followed by `**`) and ``RequestConditions`` (the URL rule as
/// written and every matcher), each compiled once.
struct WireMockRequestPattern: Sendable {
    /// `nil`: any method (`ANY`, or none given).
    var method: HTTPMethod?
    /// The route's path pattern, for the index.
    var routePath: String
    var conditions: RequestConditions
    /// `GET /users/[0-9]+` for labels and reports.
    var summary: String

    static let keys: Set<String> = [
        "method", "url", "urlPath", "urlPattern", "urlPathPattern", "urlPathTemplate", "pathParameters", "queryParameters",
        "formParameters", "headers", "cookies", "basicAuthCredentials", "basicAuth", "host", "scheme", "port", "clientIp", "bodyPatterns",
        "multipartPatterns", "customMatcher",
    ]

    static func parse(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> WireMockRequestPattern {
        guard case .object(let raw) = value else {
            throw WireMockMappingError(pointer: pointer, message: "request must be an object, got \(value)")
        }
        let object = raw.filter { $0.value != .null }
        for key in object.keys.sorted() where !keys.contains(key) {
            throw WireMockMappingError(pointer: pointer + "/" + key, message: "unsupported field \(key)")
        }
        if object["customMatcher"] != nil {
            throw WireMockMappingError(
                pointer: pointer + "/customMatcher",
                message: "customMatcher needs a WireMock extension (Java code), which HTTPMock cannot run")
        }
        var method: HTTPMethod?
        var methodName = "ANY"
        if let given = object["method"] {
            methodName = try WireMockMatchers.string(given, at: pointer + "/method")
            method = methodName.uppercased() == "ANY" ? nil : HTTPMethod(methodName)
            if let method, !method.isValidToken {
                throw WireMockMappingError(pointer: pointer + "/method", message: "\"\(methodName)\" is not an HTTP method")
            }
        }
        let rules = ["url", "urlPath", "urlPattern", "urlPathPattern", "urlPathTemplate"].filter { object[$0] != nil }
        if rules.count > 1 {
            throw WireMockMappingError(
                pointer: pointer,
                message: "give one of url, urlPath, urlPattern, urlPathPattern, urlPathTemplate; got \(rules.joined(separator: ", "))")
        }
        var url: RequestConditions.URLRule?
        var routePath = "/**"
        var target = "(any URL)"
        var parameterNames: [String] = []
        if let rule = rules.first, let given = object[rule] {
            let at = pointer + "/" + rule
            let text = try WireMockMatchers.string(given, at: at)
            target = text
            switch rule {
            case "url":
                url = .url(text)
                routePath = Self.literalRoutePath(String(text.prefix { $0 != "?" }))
            case "urlPath":
                url = .path(text)
                routePath = Self.literalRoutePath(text)
            case "urlPathTemplate":
                (routePath, parameterNames) = try Self.templateRoutePath(text, at: at)
            default:
                let regex = try WireMockMatchers.regex(given, at: at)
                url = rule == "urlPattern" ? .urlPattern(regex) : .pathPattern(regex)
                routePath = Self.prefixRoutePath(regex, includesQuery: rule == "urlPattern")
                target = "~" + text + (rule == "urlPattern" ? " (path and query)" : "")
            }
        }
        var conditions: [RequestConditions.Condition] = []
        // Path parameters first, then as WireMock weighs a request: headers, query, cookies, form, body.
        if let parameters = object["pathParameters"] {
            guard !parameterNames.isEmpty else {
                throw WireMockMappingError(
                    pointer: pointer + "/pathParameters", message: "pathParameters needs a urlPathTemplate with {names}")
            }
            for (name, matcher) in try named(parameters, at: pointer + "/pathParameters") {
                guard parameterNames.contains(name) else {
                    throw WireMockMappingError(
                        pointer: pointer + "/pathParameters/" + name,
                        message: "the urlPathTemplate has no {\(name)}; it has \(parameterNames.map { "{\($0)}" }.joined(separator: ", "))")
                }
                conditions.append(.init(.pathParameter(name), matcher, label: "pathParameters.\(name)"))
            }
        }
        if let host = object["host"] {
            conditions.append(.init(.host, .single(try WireMockMatchers.matcher(host, at: pointer + "/host")), label: "host"))
        }
        if let scheme = object["scheme"] {
            let name = try WireMockMatchers.string(scheme, at: pointer + "/scheme").lowercased()
            conditions.append(.init(.scheme, .single(.equalTo(name, caseInsensitive: true)), label: "scheme"))
        }
        if let port = object["port"] {
            guard case .integer(let number) = port, (1...65535).contains(number) else {
                throw WireMockMappingError(pointer: pointer + "/port", message: "port must be a number from 1 to 65535, got \(port)")
            }
            conditions.append(.init(.port, .single(.equalTo(String(number), caseInsensitive: false)), label: "port"))
        }
        if let clientIP = object["clientIp"] {
            conditions.append(
                .init(.clientAddress, .single(try WireMockMatchers.matcher(clientIP, at: pointer + "/clientIp")), label: "clientIp"))
        }
        for (name, matcher) in try named(object["headers"], at: pointer + "/headers") {
            conditions.append(.init(.header(name), matcher, label: "headers.\(name)"))
        }
        // `basicAuth` is the older name WireMock 2 still reads.
        if object["basicAuthCredentials"] != nil, object["basicAuth"] != nil {
            throw WireMockMappingError(
                pointer: pointer + "/basicAuth", message: "give basicAuthCredentials or basicAuth (its older name), not both")
        }
        let credentialsKey = object["basicAuth"] != nil ? "basicAuth" : "basicAuthCredentials"
        if let credentials = object[credentialsKey] {
            guard case .object(let pair) = credentials, case .string(let user)? = pair["username"],
                case .string(let password)? = pair["password"]
            else {
                throw WireMockMappingError(
                    pointer: pointer + "/" + credentialsKey,
                    message: "needs {\"username\": \"…\", \"password\": \"…\"}, got \(credentials)")
            }
            let header = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
            conditions.append(
                .init(.header("Authorization"), .single(.equalTo(header, caseInsensitive: true)), label: credentialsKey))
        }
        for (name, matcher) in try named(object["queryParameters"], at: pointer + "/queryParameters") {
            conditions.append(.init(.query(name), matcher, label: "queryParameters.\(name)"))
        }
        for (name, matcher) in try named(object["cookies"], at: pointer + "/cookies") {
            conditions.append(.init(.cookie(name), matcher, label: "cookies.\(name)"))
        }
        for (name, matcher) in try named(object["formParameters"], at: pointer + "/formParameters") {
            conditions.append(.init(.form(name), matcher, label: "formParameters.\(name)"))
        }
        if let bodies = object["bodyPatterns"] {
            guard case .array(let list) = bodies else {
                throw WireMockMappingError(pointer: pointer + "/bodyPatterns", message: "bodyPatterns must be a list, got \(bodies)")
            }
            for (index, body) in list.enumerated() {
                let matcher = try WireMockMatchers.matcher(body, at: pointer + "/bodyPatterns/\(index)")
                conditions.append(.init(.body, .single(matcher), label: "bodyPatterns[\(index)]"))
            }
        }
        let multipart = try multipartPatterns(object["multipartPatterns"], at: pointer + "/multipartPatterns")
        return WireMockRequestPattern(
            method: method, routePath: routePath,
            conditions: RequestConditions(
                url: url, conditions: conditions, multipart: multipart, parameterPattern: parameterNames.isEmpty ? nil : routePath),
            summary: "\(method?.rawValue ?? methodName.uppercased()) \(target)")
    }

    /// `{"name": matcher, …}` in name order.
    private static func named(_ value: JSONValue?, at pointer: String) throws(WireMockMappingError) -> [(String, MultiValueMatcher)] {
        guard let value else { return [] }
        guard case .object(let object) = value else {
            throw WireMockMappingError(pointer: pointer, message: "must be an object of name → matcher, got \(value)")
        }
        var result: [(String, MultiValueMatcher)] = []
        for name in object.keys.sorted() {
            result.append((name, try WireMockMatchers.multiValue(object[name] ?? .null, at: pointer + "/" + name)))
        }
        return result
    }

    private static func multipartPatterns(_ value: JSONValue?, at pointer: String) throws(WireMockMappingError) -> [MultipartCondition] {
        guard let value else { return [] }
        guard case .array(let list) = value else {
            throw WireMockMappingError(pointer: pointer, message: "multipartPatterns must be a list, got \(value)")
        }
        var patterns: [MultipartCondition] = []
        for (index, item) in list.enumerated() {
            let at = pointer + "/\(index)"
            guard case .object(let object) = item else {
                throw WireMockMappingError(pointer: at, message: "a multipart pattern is an object")
            }
            for key in object.keys.sorted() where !["matchingType", "headers", "bodyPatterns", "name"].contains(key) {
                throw WireMockMappingError(pointer: at + "/" + key, message: "unsupported field \(key)")
            }
            let typeName =
                try object["matchingType"].map { value throws(WireMockMappingError) in
                    try WireMockMatchers.string(value, at: at + "/matchingType")
                } ?? "ANY"
            guard let type = MultipartCondition.MatchingType(rawValue: typeName.uppercased()) else {
                throw WireMockMappingError(pointer: at + "/matchingType", message: "matchingType must be ANY or ALL, got \(typeName)")
            }
            var headers = try named(object["headers"], at: at + "/headers").map { (name: $0.0, matcher: $0.1) }
            if let name = object["name"] {
                // WireMock 3's `name`: the part's Content-Disposition name.
                let text = try WireMockMatchers.string(name, at: at + "/name")
                headers.append((name: "Content-Disposition", matcher: .single(.contains("name=\"\(text)\""))))
            }
            var bodies: [ValueMatcher] = []
            if case .array(let list)? = object["bodyPatterns"] {
                for (position, body) in list.enumerated() {
                    bodies.append(try WireMockMatchers.matcher(body, at: at + "/bodyPatterns/\(position)"))
                }
            } else if let other = object["bodyPatterns"] {
                throw WireMockMappingError(pointer: at + "/bodyPatterns", message: "bodyPatterns must be a list, got \(other)")
            }
            patterns.append(MultipartCondition(matchingType: type, headers: headers, bodyPatterns: bodies))
        }
        return patterns
    }

    /// A path as HTTPMock's route syntax reads it literally: `*` and a leading `:` escaped.
    /// `text` with each `*` written `%2A` (a literal star, not a route glob). Without Foundation's
    /// `replacingOccurrences`, which bridges through `NSString` and cost a tenth of loading
    /// 10,000 mappings.
    static func escapingStars(_ text: some StringProtocol) -> String {
        guard text.utf8.contains(UInt8(ascii: "*")) else { return String(text) }
        var escaped = ""
        for character in text { if character == "*" { escaped += "%2A" } else { escaped.append(character) } }
        return escaped
    }

    static func literalRoutePath(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map { segment -> String in
            var text = Self.escapingStars(segment)
            if text.hasPrefix(":") { text = "%3A" + text.dropFirst() }
            return text
        }
        return "/" + segments.joined(separator: "/")
    }

    /// `/customers/{id}/orders` → `/customers/:id/orders`, and the parameter names.
    static func templateRoutePath(_ template: String, at pointer: String) throws(WireMockMappingError) -> (String, [String]) {
        var names: [String] = []
        var segments: [String] = []
        for segment in template.split(separator: "/", omittingEmptySubsequences: true) {
            if segment.hasPrefix("{"), segment.hasSuffix("}") {
                let name = String(segment.dropFirst().dropLast())
                guard !name.isEmpty,
                    name.unicodeScalars.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
                    )
                else {
                    throw WireMockMappingError(
                        pointer: pointer, message: "a template variable name may hold letters, digits and _, got {\(name)}")
                }
                guard !names.contains(name) else { throw WireMockMappingError(pointer: pointer, message: "{\(name)} appears twice") }
                names.append(name)
                segments.append(":" + name)
            } else if segment.utf8.contains(where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "}") }) {
                throw WireMockMappingError(pointer: pointer, message: "a template variable must be a whole path segment, got \(segment)")
            } else {
                segments.append(literalRoutePath(String(segment)).dropFirst().description)
            }
        }
        return ("/" + segments.joined(separator: "/"), names)
    }

    /// The route path a regular expression's matches all fall under: its literal prefix's
    /// whole segments, a glob for a partial last one, then `**` (any rest). A literal pattern
    /// is its exact path; a `urlPattern` prefix that reaches `?` ends the path there.
    static func prefixRoutePath(_ regex: TextRegex, includesQuery: Bool) -> String {
        var prefix = regex.literalPrefix
        guard prefix.hasPrefix("/") else { return "/**" }
        if includesQuery, let question = prefix.firstIndex(of: "?") {
            return literalRoutePath(String(prefix[..<question]))
        }
        if regex.isLiteral { return literalRoutePath(prefix) }
        var pieces = prefix.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let partial = pieces.removeLast()
        prefix = pieces.joined(separator: "/")
        var path = literalRoutePath(prefix)
        if path == "/" { path = "" }
        if !partial.isEmpty, !partial.utf8.contains(UInt8(ascii: "%")) {
            var glob = Self.escapingStars(partial)
            if glob.hasPrefix(":") { glob = "%3A" + glob.dropFirst() }
            path += "/" + glob + "*"
        }
        return path + "/**"
    }

    /// Whether `request` matches, the method included (for `requests/find` and `count`).
    func matchesWithMethod(_ request: MockRequest) -> Bool {
        if let method, method != request.method { return false }
        return conditions.matches(request)
    }

    /// Everything `request` does not satisfy, the method first, in the near-miss wording.
    func misses(_ request: MockRequest) -> [RequestConditions.Miss] {
        var found: [RequestConditions.Miss] = []
        if let method, method != request.method {
            found.append(.init(subject: "method", explanation: "expected \(method), got \(request.method)", distance: 1, weight: 3))
        }
        return found + conditions.misses(request, parameters: conditions.pathParameters(of: request))
    }

    /// WireMock's distance from `request`: 0 (a match) … 1 (nothing alike).
    func distance(_ request: MockRequest) -> Double {
        conditions.distance(request, method: method, parameters: conditions.pathParameters(of: request))
    }
}

#endif

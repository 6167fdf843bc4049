#if Server
import Foundation
import HTTPMock

/// WireMock's request pattern: method, one URL rule, query parameters, headers, body patterns.
struct WireMockRequestPattern: Sendable {
    enum URLRule: Sendable {
        case any
        /// Path and query, exactly.
        case url(String)
        case urlPath(String)
        case urlPattern(String)
        case urlPathPattern(String)
    }

    var method: String?
    var url = URLRule.any
    var query: [(String, WireMockStringMatcher)] = []
    var headers: [(String, WireMockStringMatcher)] = []
    var bodyPatterns: [WireMockBodyPattern] = []

    static let keys: Set<String> = [
        "method", "url", "urlPath", "urlPattern", "urlPathPattern", "queryParameters", "headers", "bodyPatterns",
    ]

    static func parse(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> WireMockRequestPattern {
        guard case .object(let raw) = value else {
            throw WireMockMappingError(pointer: pointer, message: "request must be an object, got \(value)")
        }
        let object = raw.filter { $0.value != .null }
        for key in object.keys.sorted() where !keys.contains(key) {
            throw WireMockMappingError(pointer: pointer + "/" + key, message: "unsupported field \(key)")
        }
        var pattern = WireMockRequestPattern()
        if let method = object["method"] {
            let name = try WireMockStringMatcher.string(method, at: pointer + "/method").uppercased()
            pattern.method = name == "ANY" ? nil : name
        }
        let rules = ["url", "urlPath", "urlPattern", "urlPathPattern"].filter { object[$0] != nil }
        if rules.count > 1 {
            throw WireMockMappingError(
                pointer: pointer, message: "give one of url, urlPath, urlPattern, urlPathPattern; got \(rules.joined(separator: ", "))")
        }
        if let rule = rules.first, let value = object[rule] {
            let at = pointer + "/" + rule
            switch rule {
            case "url": pattern.url = .url(try WireMockStringMatcher.string(value, at: at))
            case "urlPath": pattern.url = .urlPath(try WireMockStringMatcher.string(value, at: at))
            case "urlPattern": pattern.url = .urlPattern(try WireMockStringMatcher.regex(value, at: at))
            default: pattern.url = .urlPathPattern(try WireMockStringMatcher.regex(value, at: at))
            }
        }
        pattern.query = try matchers(object["queryParameters"], at: pointer + "/queryParameters")
        pattern.headers = try matchers(object["headers"], at: pointer + "/headers")
        if let bodies = object["bodyPatterns"] {
            guard case .array(let list) = bodies else {
                throw WireMockMappingError(pointer: pointer + "/bodyPatterns", message: "bodyPatterns must be an array, got \(bodies)")
            }
            for (index, body) in list.enumerated() {
                pattern.bodyPatterns.append(try WireMockBodyPattern.parse(body, at: pointer + "/bodyPatterns/\(index)"))
            }
        }
        return pattern
    }

    private static func matchers(_ value: JSONValue?, at pointer: String) throws(WireMockMappingError) -> [(String, WireMockStringMatcher)]
    {
        guard let value else { return [] }
        guard case .object(let object) = value else {
            throw WireMockMappingError(pointer: pointer, message: "must be an object of name → matcher, got \(value)")
        }
        var result: [(String, WireMockStringMatcher)] = []
        for name in object.keys.sorted() {
            result.append((name, try WireMockStringMatcher.parse(object[name] ?? .null, at: pointer + "/" + name)))
        }
        return result
    }

    /// The literal path a route can be registered under, when the URL rule names one that
    /// HTTPMock's path syntax reads literally; `nil`: any path (the predicate decides).
    var literalPath: String? {
        let path: String
        switch url {
        case .url(let text): path = String(text.prefix { $0 != "?" })
        case .urlPath(let text): path = text
        default: return nil
        }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")
        guard path.hasPrefix("/"), path.unicodeScalars.allSatisfy(allowed.contains) else { return nil }
        return path
    }

    /// Whether `request` matches everything but the method (checked by the route).
    func matches(_ request: MockRequest) -> Bool { mismatch(request) == nil }

    /// What of everything but the method does not match `request`; `nil` when all does.
    func mismatch(_ request: MockRequest) -> String? {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath.isEmpty == false ? components?.percentEncodedPath ?? "/" : "/"
        let pathAndQuery = path + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")
        switch url {
        case .any: break
        case .url(let expected): if pathAndQuery != expected { return "url: expected \(expected), got \(pathAndQuery)" }
        case .urlPath(let expected): if path != expected { return "urlPath: expected \(expected), got \(path)" }
        case .urlPattern(let regex):
            if !WireMockStringMatcher.wholeMatch(regex, pathAndQuery) { return "urlPattern: \(pathAndQuery) does not match \(regex)" }
        case .urlPathPattern(let regex):
            if !WireMockStringMatcher.wholeMatch(regex, path) { return "urlPathPattern: \(path) does not match \(regex)" }
        }
        for (name, matcher) in query {
            let values = request.queryItems.filter { $0.name == name }.map { $0.value ?? "" }
            if values.isEmpty ? !matcher.matches(nil) : !values.contains(where: { matcher.matches($0) }) {
                return "query \(name): expected \(matcher), got \(values.isEmpty ? "none" : values.joined(separator: ", "))"
            }
        }
        for (name, matcher) in headers where !matcher.matches(request.headers[name]) {
            return "header \(name): expected \(matcher), got \(request.headers[name] ?? "none")"
        }
        for (index, pattern) in bodyPatterns.enumerated() where !pattern.matches(request.body) {
            return "bodyPatterns[\(index)] does not match the body"
        }
        return nil
    }

    /// Whether `request` matches, the method included (for `requests/find` and `count`).
    func matchesWithMethod(_ request: MockRequest) -> Bool {
        if let method, method != request.method.rawValue.uppercased() { return false }
        return matches(request)
    }

    /// `GET /path` for labels.
    var summary: String {
        let target: String =
            switch url {
            case .any: "(any URL)"
            case .url(let text): text
            case .urlPath(let text): text
            case .urlPattern(let regex): "~" + regex
            case .urlPathPattern(let regex): "~" + regex + " (path)"
            }
        return "\(method ?? "ANY") \(target)"
    }
}

/// One WireMock stub mapping, parsed: its JSON (with `id` and `uuid`), its request pattern
/// and what it answers.
struct WireMockMapping: Sendable {
    let id: UUID
    /// The mapping as given, with `id` and `uuid` set: what `GET /__admin/mappings` returns.
    let json: JSONValue
    let name: String?
    let priority: Int?
    let request: WireMockRequestPattern
    let response: JSONValue
    let scenarioName: String?
    let requiredState: String?
    let newState: String?

    static let keys: Set<String> = [
        "id", "uuid", "name", "request", "response", "priority", "persistent", "scenarioName",
        "requiredScenarioState", "newScenarioState", "metadata",
    ]

    /// Parses one mapping; `id` replaces the mapping's own (a `PUT` names it in the path).
    static func parse(_ value: JSONValue, id forcedID: UUID? = nil) throws(WireMockMappingError) -> WireMockMapping {
        guard case .object(let raw) = value else {
            throw WireMockMappingError(pointer: "", message: "a mapping must be a JSON object, got \(value)")
        }
        let object = raw.filter { $0.value != .null }
        for key in object.keys.sorted() where !keys.contains(key) {
            throw WireMockMappingError(pointer: "/" + key, message: "unsupported field \(key)")
        }
        var id = forcedID
        if id == nil {
            for key in ["id", "uuid"] {
                guard let given = object[key] else { continue }
                guard case .string(let text) = given, let parsed = UUID(uuidString: text) else {
                    throw WireMockMappingError(pointer: "/" + key, message: "\(key) must be a UUID, got \(given)")
                }
                id = parsed
            }
        }
        let mappingID = id ?? UUID()
        let request = try WireMockRequestPattern.parse(object["request"] ?? .object([:]), at: "/request")
        let response = object["response"] ?? .object([:])
        try WireMockResponse.validate(response)
        var priority: Int?
        if let given = object["priority"] {
            guard case .integer(let number) = given, number >= 1 else {
                throw WireMockMappingError(pointer: "/priority", message: "priority must be an integer ≥ 1, got \(given)")
            }
            priority = number
        }
        func text(_ key: String) throws(WireMockMappingError) -> String? {
            try object[key].map { value throws(WireMockMappingError) in try WireMockStringMatcher.string(value, at: "/" + key) }
        }
        let scenarioName = try text("scenarioName")
        let requiredState = try text("requiredScenarioState")
        let newState = try text("newScenarioState")
        if scenarioName == nil, requiredState != nil || newState != nil {
            throw WireMockMappingError(pointer: "/scenarioName", message: "requiredScenarioState and newScenarioState need a scenarioName")
        }
        var json = object
        json["id"] = .string(mappingID.uuidString.lowercased())
        json["uuid"] = .string(mappingID.uuidString.lowercased())
        return WireMockMapping(
            id: mappingID, json: .object(json), name: try text("name"), priority: priority, request: request, response: response,
            scenarioName: scenarioName, requiredState: requiredState, newState: newState)
    }

    /// WireMock names the initial state `Started`; HTTPMock `"started"` (SPEC §16). Compared
    /// case-insensitively.
    static func ourState(_ state: String) -> String {
        state.lowercased() == ScenarioState.started ? ScenarioState.started : state
    }

    /// The state as WireMock clients expect it (`Started`).
    static func theirState(_ state: String) -> String {
        state == ScenarioState.started ? "Started" : state
    }

    /// The label of its route: name or method and URL, and the id.
    var label: String {
        let forward = if case .string(let base)? = response["proxyBaseUrl"] { " → forward to \(base)" } else { "" }
        return "\(name.map { "\($0): " } ?? "")\(request.summary)\(forward) [wiremock \(id.uuidString.lowercased())]"
    }
}
#endif

#if Server
import Foundation
import HTTPMock

/// WireMock's response definition, read once when a mapping is parsed and turned into a
/// ``MockResponse`` when it is registered (a body file is checked then).
///
/// As WireMock does, nothing is added that the mapping does not name: no `Content-Type` for
/// `body`, `jsonBody`, `base64Body` or `bodyFileName` without one in `headers`.
struct WireMockResponse: Sendable {
    static let keys: Set<String> = [
        "status", "statusMessage", "headers", "body", "jsonBody", "base64Body", "bodyFileName", "fixedDelayMilliseconds",
        "delayDistribution", "chunkedDribbleDelay", "fault", "proxyBaseUrl", "additionalProxyRequestHeaders",
        "removeProxyRequestHeaders", "proxyUrlPrefixToRemove",
        // Response templating: WireMock/Templating/ reads these two keys.
        "transformers", "transformerParameters",
    ]

    static let faults: [String: MockResponse.Fault] = [
        "CONNECTION_RESET_BY_PEER": .connectionReset,
        "EMPTY_RESPONSE": .emptyResponse,
        "MALFORMED_RESPONSE_CHUNK": .connectionLost(afterBytes: 1),
        "RANDOM_DATA_THEN_CLOSE": .malformedResponse,
    ]

    enum Body: Sendable {
        case none
        case data(Data)
        case file(String)
    }

    var status = 200
    var statusMessage: String?
    var headers = HTTPHeaders()
    var body = Body.none
    var fixedDelay: Double = 0
    var randomDelay: WireMockDelay?
    var dribble: (chunks: Int, milliseconds: Double)?
    var fault: MockResponse.Fault?
    var proxy: WireMockProxy?
    /// The definition as given (without `null` members), which templating reads.
    var raw: [String: JSONValue] = [:]

    /// Reads a definition; a mistake names its field (`/response/…`). `jsonBody` is the
    /// `jsonBody` with its members in document order, when the caller has it.
    static func parse(_ value: JSONValue, jsonBody orderedBody: OrderedJSON? = nil) throws(WireMockMappingError) -> WireMockResponse {
        guard case .object(let raw) = value else {
            throw WireMockMappingError(pointer: "/response", message: "response must be an object, got \(value)")
        }
        let object = raw.filter { $0.value != .null }
        for key in object.keys.sorted() where !keys.contains(key) {
            throw WireMockMappingError(pointer: "/response/" + key, message: "unsupported field \(key)")
        }
        var response = WireMockResponse()
        response.raw = object
        if let status = object["status"] {
            // Jackson (WireMock) takes a number written as a string ("400") too.
            guard let code = WireMockMatchers.javaInteger(status), (100...599).contains(code) else {
                throw WireMockMappingError(pointer: "/response/status", message: "status must be an HTTP status (100...599), got \(status)")
            }
            response.status = code
        }
        if let message = object["statusMessage"] {
            let text = try WireMockMatchers.string(message, at: "/response/statusMessage")
            guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw WireMockMappingError(
                    pointer: "/response/statusMessage", message: "statusMessage may not hold control characters (CR, LF), got \(message)")
            }
            response.statusMessage = text
        }
        if let headers = object["headers"] { response.headers = try Self.headers(headers, at: "/response/headers") }
        let bodies = ["body", "jsonBody", "base64Body", "bodyFileName"].filter { object[$0] != nil }
        if bodies.count > 1 {
            throw WireMockMappingError(
                pointer: "/response", message: "give one of body, jsonBody, base64Body, bodyFileName; got \(bodies.joined(separator: ", "))"
            )
        }
        switch object["body"] {
        case .string(let text)?: response.body = .data(Data(text.utf8))
        case nil: break
        case let other?:
            throw WireMockMappingError(pointer: "/response/body", message: "body must be a string (use jsonBody for JSON), got \(other)")
        }
        if let json = object["jsonBody"] { response.body = .data(Data((orderedBody ?? OrderedJSON(json)).compactJSON.utf8)) }
        if let encoded = object["base64Body"] {
            guard case .string(let text) = encoded, let data = Data(base64Encoded: text) else {
                throw WireMockMappingError(pointer: "/response/base64Body", message: "base64Body is not base64")
            }
            response.body = .data(data)
        }
        if let name = object["bodyFileName"] {
            let text = try WireMockMatchers.string(name, at: "/response/bodyFileName")
            let components = text.split(separator: "/", omittingEmptySubsequences: true)
            guard !text.hasPrefix("/"), !components.contains(".."), !text.isEmpty else {
                throw WireMockMappingError(
                    pointer: "/response/bodyFileName", message: "bodyFileName must name a file inside __files, got \(text)")
            }
            response.body = .file(text)
        }
        if let fault = object["fault"] {
            guard case .string(let name) = fault, let known = faults[name] else {
                throw WireMockMappingError(
                    pointer: "/response/fault",
                    message: "fault must be one of \(faults.keys.sorted().joined(separator: ", ")), got \(fault)")
            }
            response.fault = known
        }
        if let delay = object["fixedDelayMilliseconds"] {
            response.fixedDelay = try WireMockDelay.milliseconds(delay, at: "/response/fixedDelayMilliseconds")
        }
        if let distribution = object["delayDistribution"] {
            response.randomDelay = try WireMockDelay.parse(distribution, at: "/response/delayDistribution")
        }
        if let dribble = object["chunkedDribbleDelay"] {
            guard case .object(let fields) = dribble, case .integer(let chunks)? = fields["numberOfChunks"], chunks >= 1,
                let total = fields["totalDuration"]
            else {
                throw WireMockMappingError(
                    pointer: "/response/chunkedDribbleDelay",
                    message: "needs {\"numberOfChunks\": n ≥ 1, \"totalDuration\": milliseconds}, got \(dribble)")
            }
            response.dribble = (chunks, try WireMockDelay.milliseconds(total, at: "/response/chunkedDribbleDelay/totalDuration"))
        }
        response.proxy = try WireMockProxy.parse(object)
        return response
    }

    /// Header fields; a list value sends the field once per value (joined by `, `, as HTTP
    /// combines repeated fields).
    static func headers(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> HTTPHeaders {
        guard case .object(let object) = value else {
            throw WireMockMappingError(pointer: pointer, message: "headers must be an object, got \(value)")
        }
        var headers = HTTPHeaders()
        for name in object.keys.sorted() {
            let text: String
            switch object[name] {
            case .array(let values)?:
                text = try values.map { value throws(WireMockMappingError) in try WireMockMatchers.string(value, at: pointer + "/" + name) }
                    .joined(separator: ", ")
            case let value?:
                text = try WireMockMatchers.string(value, at: pointer + "/" + name)
            case nil:
                continue
            }
            guard !text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw WireMockMappingError(pointer: pointer + "/" + name, message: "a header value may not hold CR, LF or NUL")
            }
            headers[name] = text
        }
        return headers
    }

    /// The response, its body file read from `files` (`DIR/__files`). A templated definition
    /// (`transformers`, or `globalTemplating`) renders per request: it is built by
    /// `WireMock/Templating/WireMockResponseTemplate.swift`, which calls back here for its
    /// static parts.
    ///
    /// `stubHeaders` (WireMock's `Matched-Stub-Id`, `Matched-Stub-Name`) follow the mapping's own
    /// fields on every response it answers itself, a fault aside; a forward relays its
    /// upstream's fields alone, as WireMock does.
    func make(
        files: URL?, webhooks: [WireMockWebhook], globalTemplating: Bool = false, stubHeaders: [(name: String, value: String)] = [],
        log: ServerLog? = nil
    ) throws(WireMockMappingError) -> MockResponse {
        if let templated = try WireMockResponseTemplate.make(
            raw, files: files, globalTemplating: globalTemplating,
            staticResponse: { twin throws(WireMockMappingError) in
                try WireMockResponse.parse(.object(twin)).make(files: files, webhooks: [], stubHeaders: stubHeaders)
            })
        {
            return Self.sending(webhooks, after: templated, log: log)
        }
        let status = HTTPStatus(self.status, reasonPhrase: statusMessage)
        var delivery = Delivery.instant
        if fixedDelay > 0 { delivery = .delayed(fixedDelay / 1000) }
        var throttle: Int?
        var response: MockResponse
        var missing: (name: String, file: URL, folder: URL)?
        if let proxy {
            response = proxy.response(delivery: delivery)
        } else {
            var payload: MockResponse.RawBody
            switch body {
            case .none:
                payload = .none
            case .data(let data):
                payload = .data(data)
            case .file(let name):
                guard let files else {
                    throw WireMockMappingError(
                        pointer: "/response/bodyFileName", message: "bodyFileName \(name) needs a __files folder (--wiremock-root DIR)")
                }
                let file = files.appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                if !FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) || isDirectory.boolValue {
                    // As WireMock: a file missing now does not stop the folder; each request looks
                    // again (the files API may add it) and gets a 500 naming it while it is missing.
                    missing = (name, file, files)
                }
                payload = .file(file)
            }
            if let dribble {
                let size: Int
                switch payload {
                case .none: size = 0
                case .data(let data): size = data.count
                case .file(let url): size = ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0
                }
                // The body spread over the duration: numberOfChunks only shapes WireMock's writes.
                let seconds = max(0.001, dribble.milliseconds / 1000)
                throttle = max(1, Int(Double(size) / seconds))
                delivery = .throttled(bytesPerSecond: throttle ?? 1, delay: fixedDelay / 1000)
            }
            var headers = headers
            // A fault's head (MALFORMED_RESPONSE_CHUNK) carries none: WireMock 2.35.1 sends them only
            // on a response it completes.
            if fault == nil {
                for field in stubHeaders { headers.combine(name: field.name, value: field.value) }
            }
            response = .raw(status: status, headers: headers, body: payload, fault: fault, delivery: delivery)
        }
        if let randomDelay {
            response = randomDelay.wrapping(response, fixed: fixedDelay, bytesPerSecond: throttle)
        }
        if let missing {
            let found = response
            let message = Data("HTTPMock: bodyFileName \(missing.name): no file \(missing.name) in \(missing.folder.path)\n".utf8)
            response = .dynamic(lifetime: .eternal) { _ in
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: missing.file.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                    return found
                }
                return .raw(status: 500, headers: ["Content-Type": "text/plain; charset=utf-8"], body: .data(message))
            }
        }
        return Self.sending(webhooks, after: response, log: log)
    }

    /// `response`, sending `webhooks` once it has been served, unless the request came from one
    /// of this process's webhooks (a loop, ``WireMockWebhook/isFromWebhook(_:)``); they report to
    /// `log` (`nil`: standard error).
    private static func sending(_ webhooks: [WireMockWebhook], after response: MockResponse, log: ServerLog?) -> MockResponse {
        guard !webhooks.isEmpty else { return response }
        var response = response
        response.afterServed = { request in
            guard !WireMockWebhook.isFromWebhook(request) else { return }
            for hook in webhooks { hook.send(after: request, log: log?.current ?? ServerLog.standardError) }
        }
        return response
    }
}

/// WireMock's `delayDistribution`: `uniform` (`lower`, `upper`), `lognormal` (`median`,
/// `sigma`, optional `maxValue`) or `fixed` (`milliseconds`), each drawn per request.
struct WireMockDelay: Sendable {
    enum Kind: Sendable {
        case uniform(lower: Double, upper: Double)
        case lognormal(median: Double, sigma: Double, maximum: Double?)
        case fixed(Double)
    }

    let kind: Kind

    /// A delay in milliseconds: a finite number ≥ 0, at most a day.
    static func milliseconds(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> Double {
        let number: Double?
        switch value {
        case .integer(let count): number = Double(count)
        case .double(let count): number = count
        default: number = nil
        }
        guard let number, number.isFinite, number >= 0, number <= 86_400_000 else {
            throw WireMockMappingError(pointer: pointer, message: "must be milliseconds from 0 to 86400000, got \(value)")
        }
        return number
    }

    static func parse(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> WireMockDelay {
        guard case .object(let object) = value, case .string(let type)? = object["type"] else {
            throw WireMockMappingError(
                pointer: pointer, message: "needs {\"type\": \"uniform\" | \"lognormal\" | \"fixed\", …}, got \(value)")
        }
        func field(_ name: String) throws(WireMockMappingError) -> Double {
            guard let given = object[name] else {
                throw WireMockMappingError(pointer: pointer + "/" + name, message: "\(type) needs \(name)")
            }
            return try milliseconds(given, at: pointer + "/" + name)
        }
        let allowed: Set<String>
        let kind: Kind
        switch type {
        case "uniform":
            allowed = ["type", "lower", "upper"]
            let (lower, upper) = (try field("lower"), try field("upper"))
            guard lower <= upper else { throw WireMockMappingError(pointer: pointer + "/upper", message: "upper must be ≥ lower") }
            kind = .uniform(lower: lower, upper: upper)
        case "lognormal":
            allowed = ["type", "median", "sigma", "maxValue"]
            guard case let sigmaValue? = object["sigma"], let sigma = sigmaValue.number, sigma.isFinite, sigma >= 0, sigma <= 10 else {
                throw WireMockMappingError(pointer: pointer + "/sigma", message: "lognormal needs sigma from 0 to 10")
            }
            kind = .lognormal(median: try field("median"), sigma: sigma, maximum: object["maxValue"] == nil ? nil : try field("maxValue"))
        case "fixed":
            allowed = ["type", "milliseconds"]
            kind = .fixed(try field("milliseconds"))
        default:
            throw WireMockMappingError(pointer: pointer + "/type", message: "type must be uniform, lognormal or fixed, got \(type)")
        }
        for key in object.keys.sorted() where !allowed.contains(key) {
            throw WireMockMappingError(pointer: pointer + "/" + key, message: "unsupported field \(key) for a \(type) delay")
        }
        return WireMockDelay(kind: kind)
    }

    /// One draw, in milliseconds, capped at a day.
    func sample() -> Double {
        let value: Double
        switch kind {
        case .uniform(let lower, let upper): value = Double.random(in: lower...upper)
        case .fixed(let milliseconds): value = milliseconds
        case .lognormal(let median, let sigma, let maximum):
            // Box–Muller: a standard normal draw.
            let u = Double.random(in: Double.ulpOfOne..<1)
            let v = Double.random(in: 0..<1)
            let normal = (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
            value = min(maximum ?? .infinity, median * exp(sigma * normal))
        }
        return min(86_400_000, max(0, value))
    }

    /// `response` delayed per request by a draw added to the fixed delay (WireMock applies
    /// both); a dribbled body keeps its pace.
    func wrapping(_ response: MockResponse, fixed: Double, bytesPerSecond: Int?) -> MockResponse {
        let base = response
        let delay = self
        return MockResponse.dynamic(lifetime: .eternal) { _ in
            var drawn = base
            let seconds = (fixed + delay.sample()) / 1000
            if let bytesPerSecond {
                drawn.delivery = .throttled(bytesPerSecond: bytesPerSecond, delay: seconds)
            } else {
                drawn.delivery = seconds > 0 ? .delayed(seconds) : .instant
            }
            return drawn
        }
    }
}
#endif

#if Server
import Foundation
import HTTPMock

// `/__admin/settings` (WireMock's global settings), `/__admin/health` and `/__admin/version`.

extension AdminAPI {
    /// The WireMock version whose admin API HTTPMock speaks (`GET /__admin/version`).
    static let wireMockVersion = "2.35.1"

    /// When this process's first admin API was made, for `uptimeInSeconds`.
    private static let started = Date()

    func settings(method: String, _ path: [String], body: Data?) -> ServedAnswer {
        do throws(WireMockMappingError) {
            switch (method, path) {
            case ("GET", []):
                return Self.json(200, ["settings": currentSettings], method: method)
            case ("POST", []), ("PUT", []):
                var object = try Self.parseObject(body)
                // `{"settings": {...}}` (what GET answers) is accepted too, as WireMock does.
                if object.count == 1, case .object(let inner)? = object["settings"] { object = inner }
                try replaceSettings(object)
                // WireMock answers with no body; Python's client reads the settings back.
                return Self.json(200, currentSettings, method: method)
            case ("PATCH", ["extended"]):
                let object = try Self.parseObject(body)
                for key in object.keys.sorted() where key != "extended" {
                    throw WireMockMappingError(pointer: "/" + key, message: "send {\"extended\": {...}}; unsupported field \(key)")
                }
                guard case .object(let added)? = object["extended"] else {
                    throw WireMockMappingError(pointer: "/extended", message: "extended must be an object")
                }
                adminState.contents.withLockedValue { contents in
                    var merged: [String: JSONValue] = [:]
                    if case .object(let existing)? = contents.extended { merged = existing }
                    for (key, value) in added { merged[key] = value }
                    contents.extended = .object(merged)
                }
                return Self.json(200, [:], method: method)
            default:
                return unknown(method, ["settings"] + path)
            }
        } catch {
            return Self.invalid(error, method: method)
        }
    }

    /// `fixedDelay` (the instance's ``HTTPMock/HTTPMock/defaultDelay``, in milliseconds),
    /// `delayDistribution` and `extended`, each only when set.
    private var currentSettings: JSONValue {
        var settings: [String: JSONValue] = [:]
        let delay = mock.defaultDelay
        if delay > 0 { settings["fixedDelay"] = .integer(Int((delay * 1000).rounded())) }
        let contents = adminState.contents.withLockedValue { $0 }
        if let distribution = contents.delayDistribution { settings["delayDistribution"] = distribution }
        if let extended = contents.extended { settings["extended"] = extended }
        return .object(settings)
    }

    /// `POST`/`PUT /__admin/settings`: the whole settings, as WireMock replaces them.
    private func replaceSettings(_ raw: [String: JSONValue]) throws(WireMockMappingError) {
        let object = raw.filter { $0.value != .null }
        for key in object.keys.sorted() where !["fixedDelay", "delayDistribution", "extended", "proxyPassThrough"].contains(key) {
            throw WireMockMappingError(pointer: "/" + key, message: "unsupported setting \(key)")
        }
        if let pass = object["proxyPassThrough"], pass != .bool(true) {
            throw WireMockMappingError(
                pointer: "/proxyPassThrough", message: "only true (proxy mappings forward) is supported, got \(pass)")
        }
        var delay: TimeInterval = 0
        switch object["fixedDelay"] {
        case .integer(let ms)? where ms >= 0: delay = Double(ms) / 1000
        case .double(let ms)? where ms >= 0 && ms.isFinite && ms < 1e9: delay = ms / 1000
        case nil: delay = 0
        case let other?: throw WireMockMappingError(pointer: "/fixedDelay", message: "must be milliseconds ≥ 0, got \(other)")
        }
        let random = try object["delayDistribution"].map { value throws(WireMockMappingError) in
            try Self.randomDelay(value, at: "/delayDistribution")
        }
        if let extended = object["extended"] {
            guard case .object = extended else {
                throw WireMockMappingError(pointer: "/extended", message: "extended must be an object, got \(extended)")
            }
        }
        mock.defaultDelay = delay
        mock.adminRandomDelay = random
        adminState.contents.withLockedValue { contents in
            contents.delayDistribution = object["delayDistribution"]
            contents.extended = object["extended"]
        }
    }

    /// A `delayDistribution`: `{"type": "uniform", "lower": ms, "upper": ms}`, `{"type":
    /// "lognormal", "median": ms, "sigma": s}` or `{"type": "fixed", "milliseconds": ms}`.
    static func randomDelay(_ value: JSONValue, at pointer: String) throws(WireMockMappingError) -> RandomDelay {
        guard case .object(let object) = value, case .string(let type)? = object["type"] else {
            throw WireMockMappingError(
                pointer: pointer, message: "a delay distribution needs a type (uniform, lognormal, fixed), got \(value)")
        }
        func number(_ key: String) throws(WireMockMappingError) -> Double {
            switch object[key] {
            case .integer(let value)? where value >= 0: return Double(value)
            case .double(let value)? where value >= 0 && value.isFinite && value < 1e9: return value
            default:
                throw WireMockMappingError(
                    pointer: pointer + "/" + key, message: "\(key) must be a number ≥ 0, got \(object[key].map { "\($0)" } ?? "nothing")")
            }
        }
        switch type {
        case "uniform":
            let lower = try number("lower")
            let upper = try number("upper")
            guard upper >= lower else {
                throw WireMockMappingError(pointer: pointer + "/upper", message: "upper (\(upper)) must be ≥ lower (\(lower))")
            }
            return RandomDelay(.uniform(lower: lower / 1000, upper: upper / 1000))
        case "lognormal":
            return RandomDelay(.lognormal(median: try number("median") / 1000, sigma: try number("sigma")))
        case "fixed":
            let milliseconds = try number("milliseconds")
            return RandomDelay(.uniform(lower: milliseconds / 1000, upper: milliseconds / 1000))
        default:
            throw WireMockMappingError(
                pointer: pointer + "/type", message: "unknown delay distribution \(type): uniform, lognormal or fixed")
        }
    }

    /// `GET /__admin/health`, in WireMock 3's shape.
    var health: JSONValue {
        [
            "status": "healthy", "message": "HTTPMock is ok", "version": .string(Self.wireMockVersion),
            "uptimeInSeconds": .integer(Int(Date().timeIntervalSince(Self.started))),
            "timestamp": .string(Self.loggedDateString(Date())),
        ]
    }
}
#endif

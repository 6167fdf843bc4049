#if Server
import Foundation
import HTTPMock

/// WireMock's record and snapshot spec (`POST /__admin/recordings/start`, `/snapshot`): what to
/// record and how to write it as mappings.
struct RecordSpec: Sendable {
    enum BodyMatcher: Sendable, Equatable {
        /// JSON bodies by `equalToJson`, others by `equalTo` (WireMock's `auto`).
        case auto
        case equalTo(caseInsensitive: Bool)
        case equalToJson
        case equalToXml
    }

    /// Where a recording forwards to (`start` only).
    var targetBaseURL: URL?
    /// Which requests are recorded (`filters`, a request pattern).
    var filters: WireMockRequestPattern?
    /// Which serve events a snapshot takes (`filters.ids`), as journal IDs.
    var ids: Set<Int>?
    /// Whether a snapshot takes requests no proxy answered (`filters.allowNonProxied`).
    var allowNonProxied = false
    /// Request headers the mappings match on (`captureHeaders`), with `caseInsensitive`.
    var captureHeaders: [(name: String, caseInsensitive: Bool)] = []
    /// Bodies larger than these many bytes go to `__files/` when persisting (`extractBodyCriteria`).
    var textSizeThreshold = 10_240
    var binarySizeThreshold = 0
    /// Write the mappings to the root's `mappings/` (`persist`).
    var persist = true
    /// Repeated identical requests become a scenario (`repeatsAsScenarios`); else only the first is kept.
    var repeatsAsScenarios = true
    /// Answer with the mappings' ids only (`outputFormat: IDS`).
    var idsOnly = false
    var bodyMatcher = BodyMatcher.auto
    var ignoreArrayOrder = true
    var ignoreExtraElements = true

    static let keys: Set<String> = [
        "targetBaseUrl", "filters", "captureHeaders", "extractBodyCriteria", "persist", "repeatsAsScenarios", "outputFormat",
        "requestBodyPatternFactory", "transformers", "transformerParameters",
    ]

    /// Parses a spec; `requiresTarget` for `recordings/start`.
    static func parse(_ raw: [String: JSONValue], requiresTarget: Bool) throws(WireMockMappingError) -> RecordSpec {
        let object = raw.filter { $0.value != .null }
        for key in object.keys.sorted() where !keys.contains(key) {
            throw WireMockMappingError(pointer: "/" + key, message: "unsupported field \(key)")
        }
        var spec = RecordSpec()
        if case .string(let text)? = object["targetBaseUrl"] {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                url.host != nil
            else {
                throw WireMockMappingError(pointer: "/targetBaseUrl", message: "targetBaseUrl must be an http(s) URL, got \"\(text)\"")
            }
            spec.targetBaseURL = url
        } else if let other = object["targetBaseUrl"] {
            throw WireMockMappingError(pointer: "/targetBaseUrl", message: "targetBaseUrl must be a URL string, got \(other)")
        } else if requiresTarget {
            throw WireMockMappingError(pointer: "/targetBaseUrl", message: "recording needs a targetBaseUrl to forward to")
        }
        if case .array(let transformers)? = object["transformers"], !transformers.isEmpty {
            throw WireMockMappingError(pointer: "/transformers", message: "recording transformers (extensions) are not supported")
        }
        if let filters = object["filters"] { try spec.parseFilters(filters) }
        if let headers = object["captureHeaders"] {
            guard case .object(let fields) = headers else {
                throw WireMockMappingError(pointer: "/captureHeaders", message: "captureHeaders must be an object of name → {}")
            }
            spec.captureHeaders = fields.keys.sorted().map { name in
                (name: name, caseInsensitive: fields[name]?["caseInsensitive"] == .bool(true))
            }
        }
        if case .object(let criteria)? = object["extractBodyCriteria"] {
            spec.textSizeThreshold = try size(criteria["textSizeThreshold"], at: "/extractBodyCriteria/textSizeThreshold") ?? 10_240
            spec.binarySizeThreshold = try size(criteria["binarySizeThreshold"], at: "/extractBodyCriteria/binarySizeThreshold") ?? 0
        }
        spec.persist = try flag(object["persist"], at: "/persist") ?? true
        spec.repeatsAsScenarios = try flag(object["repeatsAsScenarios"], at: "/repeatsAsScenarios") ?? true
        switch object["outputFormat"] {
        case nil, .string("FULL")?: spec.idsOnly = false
        case .string("IDS")?: spec.idsOnly = true
        case let other?: throw WireMockMappingError(pointer: "/outputFormat", message: "outputFormat must be FULL or IDS, got \(other)")
        }
        if case .object(let factory)? = object["requestBodyPatternFactory"] {
            spec.ignoreArrayOrder = try flag(factory["ignoreArrayOrder"], at: "/requestBodyPatternFactory/ignoreArrayOrder") ?? true
            spec.ignoreExtraElements =
                try flag(factory["ignoreExtraElements"], at: "/requestBodyPatternFactory/ignoreExtraElements") ?? true
            let caseInsensitive = try flag(factory["caseInsensitive"], at: "/requestBodyPatternFactory/caseInsensitive") ?? false
            switch factory["matcher"] {
            case nil, .null?, .string("auto")?: spec.bodyMatcher = .auto
            case .string("equalTo")?: spec.bodyMatcher = .equalTo(caseInsensitive: caseInsensitive)
            case .string("equalToJson")?: spec.bodyMatcher = .equalToJson
            case .string("equalToXml")?: spec.bodyMatcher = .equalToXml
            case let other?:
                throw WireMockMappingError(
                    pointer: "/requestBodyPatternFactory/matcher",
                    message: "matcher must be auto, equalTo, equalToJson or equalToXml, got \(other)")
            }
        }
        return spec
    }

    private mutating func parseFilters(_ value: JSONValue) throws(WireMockMappingError) {
        guard case .object(var object) = value else {
            throw WireMockMappingError(pointer: "/filters", message: "filters must be an object (a request pattern, ids, allowNonProxied)")
        }
        allowNonProxied = try Self.flag(object.removeValue(forKey: "allowNonProxied"), at: "/filters/allowNonProxied") ?? false
        if let list = object.removeValue(forKey: "ids"), list != .null {
            guard case .array(let items) = list else {
                throw WireMockMappingError(pointer: "/filters/ids", message: "ids must be an array of serve event ids")
            }
            var found: Set<Int> = []
            for (index, item) in items.enumerated() {
                guard case .string(let text) = item else {
                    throw WireMockMappingError(pointer: "/filters/ids/\(index)", message: "a serve event id, got \(item)")
                }
                if let id = AdminAPI.journalID(text) { found.insert(id) }
            }
            ids = found
        }
        if !object.filter({ $0.value != .null }).isEmpty {
            filters = try WireMockRequestPattern.parse(.object(object), at: "/filters")
        }
    }

    private static func flag(_ value: JSONValue?, at pointer: String) throws(WireMockMappingError) -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case let other?: throw WireMockMappingError(pointer: pointer, message: "must be true or false, got \(other)")
        }
    }

    /// A byte count, as a number or a string of digits (the Java client sends strings).
    private static func size(_ value: JSONValue?, at pointer: String) throws(WireMockMappingError) -> Int? {
        switch value {
        case nil, .null?: return nil
        case .integer(let number)? where number >= 0: return number
        case .string(let text)?:
            if let number = Int(text), number >= 0 { return number }
            throw WireMockMappingError(pointer: pointer, message: "must be a number of bytes ≥ 0, got \"\(text)\"")
        case let other?: throw WireMockMappingError(pointer: pointer, message: "must be a number of bytes ≥ 0, got \(other)")
        }
    }

    /// Whether `request` passes `filters`.
    func admits(_ request: MockRequest) -> Bool {
        filters?.matchesWithMethod(request) ?? true
    }
}
#endif

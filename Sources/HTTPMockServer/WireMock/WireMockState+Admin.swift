#if Server
import Foundation
import HTTPMock

// What the admin API needs of the mappings beyond adding and removing one:
// metadata queries, removal by request pattern, imports, the mappings files saved.

extension WireMockState {
    /// The mappings whose ids `ids` lists, by id (one pass over the mappings).
    func mappings(_ ids: Set<UUID>) -> [UUID: WireMockMapping] {
        guard !ids.isEmpty else { return [:] }
        return contents.withLockedValue { contents in
            var found: [UUID: WireMockMapping] = [:]
            for id in ids { if let entry = contents.entries[id] { found[id] = entry.mapping } }
            return found
        }
    }

    /// Removes the mappings `ids` lists; returns those removed.
    @discardableResult
    func remove(_ ids: Set<UUID>, from mock: HTTPMock) -> [WireMockMapping] {
        guard !ids.isEmpty else { return [] }
        return contents.withLockedValue { contents in
            let removed = ids.compactMap { contents.entries[$0] }
            mock.removeAdminRoutes(Set(removed.map(\.order)))
            for entry in removed { contents.forget(entry.mapping.id) }
            return removed.map(\.mapping)
        }
    }

    /// The mappings whose metadata `pattern` matches (its JSON text, as WireMock matches it);
    /// mappings without metadata never match.
    func mappings(withMetadata pattern: ValueMatcher) -> [WireMockMapping] {
        mappings.filter { mapping in
            guard let metadata = mapping.metadata else { return false }
            return pattern.matches(AdminAPI.metadataInput(metadata))
        }
    }

    /// Checks that `mapping`'s response can be made (a body file that exists) without adding it.
    func check(_ mapping: WireMockMapping) throws(WireMockMappingError) {
        let (files, global) = contents.withLockedValue { ($0.files, $0.globalTemplating) }
        _ = try mapping.route(files: files, globalTemplating: global, log: log)
    }

    /// Makes `mappings` the ones `POST /__admin/mappings/reset` brings back in place of those
    /// with the same ids (they were saved to the mappings folder).
    func keepAsFileMappings(_ mappings: [WireMockMapping]) {
        let ids = Set(mappings.map(\.id))
        contents.withLockedValue { contents in
            contents.fileMappings.removeAll { ids.contains($0.id) }
            contents.fileMappings += mappings
        }
    }
}

extension WireMockMapping {
    /// The mapping's metadata, `nil` when it has none.
    var metadata: JSONValue? {
        guard let metadata = json["metadata"], metadata != .null else { return nil }
        return metadata
    }

    /// The request pattern as given, without `null` members (to compare two patterns as
    /// WireMock's `removeStub(MappingBuilder)` does).
    var requestJSON: JSONValue { (json["request"] ?? .object([:])).withoutNulls }

    /// A name for files: the mapping's `name`, else its URL, made safe (`My Stub!` → `my-stub`,
    /// `/users/1` → `users_1`).
    var fileStem: String {
        if let name, !name.isEmpty { return Self.safeName(name) }
        for key in ["url", "urlPath", "urlPattern", "urlPathPattern"] {
            if case .string(let url)? = json["request"]?[key] {
                let path = String(url.prefix { $0 != "?" }).split(separator: "/").joined(separator: "_")
                return Self.safeName(path.isEmpty ? "root" : path)
            }
        }
        return "mapping"
    }

    /// Lowercased ASCII letters, digits, `_`; every other run of characters one `-`.
    static func safeName(_ text: String) -> String {
        var result = ""
        for character in text.lowercased() {
            if character.isASCII, character.isLetter || character.isNumber || character == "_" {
                result.append(character)
            } else if !result.isEmpty, result.last != "-" {
                result.append("-")
            }
        }
        while result.hasSuffix("-") { result.removeLast() }
        return result.isEmpty ? "mapping" : String(result.prefix(60))
    }
}

extension JSONValue {
    /// The value with `null` object members removed, at every depth.
    var withoutNulls: JSONValue {
        switch self {
        case .object(let object): .object(object.filter { $0.value != .null }.mapValues(\.withoutNulls))
        case .array(let array): .array(array.map(\.withoutNulls))
        default: self
        }
    }
}
#endif

#if Server
import Foundation
import HTTPMock

// `/__admin/mappings…`: WireMock's stub mappings, in its shapes.

extension AdminAPI {
    func mappings(method: String, _ path: [String], query: [URLQueryItem], body: Data?) -> ServedAnswer {
        do throws(WireMockMappingError) {
            switch (method, path) {
            case ("GET", []):
                let all = inWireMockOrder(state.mappings)
                let offset = try Self.count("offset", in: query) ?? 0
                let limit = try Self.count("limit", in: query)
                let page = all.dropFirst(offset).prefix(limit ?? Int.max)
                return Self.json(200, Self.mappingList(Array(page), total: all.count), method: method)
            case ("POST", []):
                return addMapping(body, id: nil, status: 201, method: method)
            case ("DELETE", []):
                state.removeAll(from: mock, restoringFiles: false)
                return Self.json(200, [:], method: method)
            case ("POST", ["reset"]):
                state.removeAll(from: mock, restoringFiles: true)
                return Self.empty(method: method)
            case ("POST", ["save"]):
                try save()
                return Self.empty(method: method)
            case ("POST", ["find-by-metadata"]):
                let found = inWireMockOrder(state.mappings(withMetadata: try WireMockMatchers.matcher(try Self.parse(body), at: "")))
                return Self.json(200, Self.mappingList(found, total: found.count), method: method)
            case ("POST", ["remove-by-metadata"]):
                let found = state.mappings(withMetadata: try WireMockMatchers.matcher(try Self.parse(body), at: ""))
                state.remove(Set(found.map(\.id)), from: mock)
                return Self.json(200, [:], method: method)
            case ("POST", ["remove"]):
                removeMatching(try WireMockMapping.parse(try Self.parse(body)))
                return Self.empty(method: method)
            case ("POST", ["edit"]):
                let ordered = try Self.parseOrdered(body)
                let mapping = try WireMockMapping.parse(ordered.value, ordered: ordered)
                guard state.mapping(mapping.id) != nil else {
                    return Self.notFound("no mapping \(mapping.id.uuidString.lowercased()) to edit", method: method)
                }
                try state.add(mapping, to: mock)
                return Self.empty(204, method: method)
            case ("POST", ["import"]):
                let ordered = try Self.parseOrdered(body)
                guard case .object(let object) = ordered.value else {
                    throw WireMockMappingError(pointer: "", message: "the body must be a JSON object, got \(ordered.value)")
                }
                try importMappings(object, ordered: ordered["mappings"])
                return Self.empty(method: method)
            case ("GET", ["unmatched"]):
                let unmatched = inWireMockOrder(unmatchedMappings())
                return Self.json(200, Self.mappingList(unmatched, total: unmatched.count), method: method)
            case ("DELETE", ["unmatched"]):
                let unmatched = inWireMockOrder(unmatchedMappings())
                state.remove(Set(unmatched.map(\.id)), from: mock)
                return Self.json(200, Self.mappingList(unmatched, total: unmatched.count), method: method)
            case (_, _) where path.count == 1:
                let id = path[0]
                guard let uuid = UUID(uuidString: id) else {
                    return Self.notFound("no mapping \(id): ids are UUIDs", method: method)
                }
                return mapping(uuid, method: method, body: body)
            default:
                return unknown(method, ["mappings"] + path)
            }
        } catch {
            return Self.invalid(error, method: method)
        }
    }

    /// `{"mappings": [...], "meta": {"total": n}}`, each mapping as it was written.
    static func mappingList(_ mappings: [WireMockMapping], total: Int) -> OrderedJSON {
        .object([
            .init(key: "mappings", value: .array(mappings.map(\.document))),
            .init(key: "meta", value: .object([.init(key: "total", value: .scalar(.integer(total)))])),
        ])
    }

    /// WireMock's order (its lists, its matching): by priority (1 first, 5 without one), then
    /// the most recently added first.
    func inWireMockOrder(_ mappings: [WireMockMapping]) -> [WireMockMapping] {
        mappings.enumerated().sorted { left, right in
            let (a, b) = (left.element.priority ?? 5, right.element.priority ?? 5)
            return a != b ? a < b : left.offset > right.offset
        }.map(\.element)
    }

    private func addMapping(_ body: Data?, id: UUID?, status: Int, method: String) -> ServedAnswer {
        do throws(WireMockMappingError) {
            let ordered = try Self.parseOrdered(body)
            let mapping = try WireMockMapping.parse(ordered.value, id: id, ordered: ordered)
            try addPersistingIfAsked(mapping)
            return Self.json(status, mapping.document, method: method)
        } catch {
            return Self.invalid(error, method: method)
        }
    }

    private func mapping(_ id: UUID, method: String, body: Data?) -> ServedAnswer {
        switch method {
        case "GET":
            guard let mapping = state.mapping(id) else {
                return Self.notFound("no mapping \(id.uuidString.lowercased())", method: method)
            }
            return Self.json(200, mapping.document, method: method)
        case "PUT":
            guard state.mapping(id) != nil else { return Self.notFound("no mapping \(id.uuidString.lowercased())", method: method) }
            return addMapping(body, id: id, status: 200, method: method)
        case "DELETE":
            guard removePersisted(id) else { return Self.notFound("no mapping \(id.uuidString.lowercased())", method: method) }
            return Self.json(200, [:], method: method)
        default:
            return unknown(method, ["mappings", id.uuidString.lowercased()])
        }
    }

    /// `POST /__admin/mappings/remove` (WireMock's `removeStub`): the mapping with the given id,
    /// else every mapping whose request pattern is the given one.
    private func removeMatching(_ given: WireMockMapping) {
        if removePersisted(given.id) { return }
        let pattern = given.requestJSON
        let same = state.mappings.filter { $0.requestJSON == pattern }
        state.remove(Set(same.map(\.id)), from: mock)
    }

    /// `POST /__admin/mappings/import`: `{"mappings": [...], "importOptions": {"duplicatePolicy":
    /// "OVERWRITE" | "IGNORE", "deleteAllNotInImport": bool}}`. Every mapping is checked
    /// before any changes.
    private func importMappings(_ object: [String: JSONValue], ordered: OrderedJSON?) throws(WireMockMappingError) {
        for key in object.keys.sorted() where key != "mappings" && key != "importOptions" {
            throw WireMockMappingError(pointer: "/" + key, message: "unsupported field \(key)")
        }
        guard case .array(let list)? = object["mappings"] else {
            throw WireMockMappingError(pointer: "/mappings", message: "mappings must be an array of stub mappings")
        }
        var overwrite = true
        var deleteOthers = false
        if let options = object["importOptions"], options != .null {
            guard case .object(let fields) = options else {
                throw WireMockMappingError(pointer: "/importOptions", message: "importOptions must be an object, got \(options)")
            }
            for key in fields.keys.sorted() where key != "duplicatePolicy" && key != "deleteAllNotInImport" {
                throw WireMockMappingError(pointer: "/importOptions/" + key, message: "unsupported field \(key)")
            }
            switch fields["duplicatePolicy"] {
            case nil, .null?, .string("OVERWRITE")?: overwrite = true
            case .string("IGNORE")?: overwrite = false
            case let other?:
                throw WireMockMappingError(
                    pointer: "/importOptions/duplicatePolicy", message: "duplicatePolicy must be OVERWRITE or IGNORE, got \(other)")
            }
            switch fields["deleteAllNotInImport"] {
            case nil, .null?: deleteOthers = false
            case .bool(let flag)?: deleteOthers = flag
            case let other?:
                throw WireMockMappingError(
                    pointer: "/importOptions/deleteAllNotInImport", message: "deleteAllNotInImport must be true or false, got \(other)")
            }
        }
        var parsed: [WireMockMapping] = []
        var orderedItems: [OrderedJSON] = []
        if case .array(let items)? = ordered { orderedItems = items }
        for (index, item) in list.enumerated() {
            do throws(WireMockMappingError) {
                let mapping = try WireMockMapping.parse(item, ordered: index < orderedItems.count ? orderedItems[index] : nil)
                try state.check(mapping)
                parsed.append(mapping)
            } catch {
                throw WireMockMappingError(pointer: "/mappings/\(index)" + error.pointer, message: error.message)
            }
        }
        let importedIDs = Set(parsed.map(\.id))
        if deleteOthers {
            state.remove(Set(state.mappings.map(\.id)).subtracting(importedIDs), from: mock)
        }
        for mapping in parsed {
            if !overwrite, state.mapping(mapping.id) != nil { continue }
            try state.add(mapping, to: mock)
        }
    }

    /// The mappings no journaled request was answered by.
    private func unmatchedMappings() -> [WireMockMapping] {
        let (entries, _) = mock.adminNewestJournalEntries(limit: nil, since: nil)
        let served = Set(entries.compactMap { $0.route.flatMap(Self.mappingID(inRoute:)) })
        return state.mappings.filter { !served.contains($0.id) }
    }

    /// The mapping id in the route name a WireMock mapping's route carries (`… [wiremock ID]`).
    static func mappingID(inRoute name: String) -> UUID? {
        // `… [wiremock UUID]`, read from the end by bytes: Foundation's backward search cost
        // more than the rest of a journal page (admin traffic).
        let bytes = name.utf8
        guard bytes.count >= 47, bytes.last == UInt8(ascii: "]") else { return nil }
        let end = bytes.index(before: bytes.endIndex)
        let idStart = bytes.index(end, offsetBy: -36)
        guard bytes[bytes.index(idStart, offsetBy: -10)..<idStart].elementsEqual("[wiremock ".utf8) else { return nil }
        guard let text = String(bytes[idStart..<end]) else { return nil }
        return UUID(uuidString: text)
    }
}
#endif

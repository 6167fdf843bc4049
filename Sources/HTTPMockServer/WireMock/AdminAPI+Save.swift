#if Server
import Foundation
import HTTPMock

// Mapping files written under the WireMock root (`--wiremock-root DIR`): `POST
// /__admin/mappings/save` writes every mapping to `DIR/mappings/`, a mapping posted with
// `"persistent": true` is written at once, as WireMock does. Only files HTTPMock wrote are
// ever deleted (when their mapping is removed by id); `DELETE /__admin/mappings` removes
// mappings, never files.

extension AdminAPI {
    var adminState: WireMockAdminState { WireMockAdminState.of(mock) }

    /// The mappings folder, made when missing; a 422 naming the missing option without a root.
    func mappingsFolder(for action: String) throws(WireMockMappingError) -> URL {
        guard let root = state.root else {
            throw WireMockMappingError(
                pointer: "", message: "\(action) needs a WireMock root folder: start with httpmock serve --wiremock-root DIR")
        }
        let folder = root.appendingPathComponent("mappings", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw WireMockMappingError(pointer: "", message: "cannot make \(folder.path): \(error.localizedDescription)")
        }
        return folder
    }

    /// `POST /__admin/mappings/save`: every mapping to `mappings/NAME-ID.json`, marked
    /// `"persistent": true`; `POST /__admin/mappings/reset` brings them back from then on.
    func save() throws(WireMockMappingError) {
        let folder = try mappingsFolder(for: "POST /__admin/mappings/save")
        let all = state.mappings
        for mapping in all { try write(mapping, in: folder) }
        state.keepAsFileMappings(all)
    }

    /// Writes `mapping` at once when it says `"persistent": true` and there is a root (without
    /// one, it is kept in memory only, as every mapping is).
    func persistIfAsked(_ mapping: WireMockMapping) throws(WireMockMappingError) {
        guard mapping.json["persistent"] == .bool(true), state.root != nil else { return }
        try write(mapping, in: try mappingsFolder(for: "a persistent mapping"))
        state.keepAsFileMappings([mapping])
    }

    /// Writes one mapping file (replacing the one HTTPMock wrote for it before).
    func write(_ mapping: WireMockMapping, in folder: URL) throws(WireMockMappingError) {
        var json = mapping.json
        if case .object(var object) = json {
            object["persistent"] = .bool(true)
            json = .object(object)
        }
        let file = folder.appendingPathComponent("\(mapping.fileStem)-\(mapping.id.uuidString.lowercased()).json")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        do {
            try ((try? encoder.encode(json)) ?? Data("{}".utf8)).write(to: file, options: .atomic)
        } catch {
            throw WireMockMappingError(pointer: "", message: "cannot write \(file.path): \(error.localizedDescription)")
        }
        let previous = adminState.contents.withLockedValue { contents -> URL? in
            defer { contents.writtenFiles[mapping.id] = file }
            return contents.writtenFiles[mapping.id]
        }
        if let previous, previous != file { try? FileManager.default.removeItem(at: previous) }
    }

    /// Deletes the file HTTPMock wrote for mapping `id`, if any (WireMock deletes a removed
    /// persistent mapping's file).
    func deleteWrittenFile(of id: UUID) {
        let file = adminState.contents.withLockedValue { $0.writtenFiles.removeValue(forKey: id) }
        guard let file else { return }
        try? FileManager.default.removeItem(at: file)
        state.contents.withLockedValue { $0.fileMappings.removeAll { $0.id == id } }
    }
}
#endif

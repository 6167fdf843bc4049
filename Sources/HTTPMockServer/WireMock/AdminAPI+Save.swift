#if Server
import Foundation
import HTTPMock

// Mapping files written under the WireMock root (`--wiremock-root DIR`): `POST
// /__admin/mappings/save` writes every mapping to `DIR/mappings/`, a mapping posted with
// `"persistent": true` is written at once, as WireMock does. A mapping loaded from a file is
// written back to that file (one of a file of several mappings is read-only, as in WireMock).
// Only files HTTPMock wrote are ever deleted (when their mapping is removed by id);
// `DELETE /__admin/mappings` removes mappings, never files. Writing and deleting files hold one
// lock (`WireMockAdminState.persisting`), with the change to the mappings they follow.

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

    /// `POST /__admin/mappings/save`: every mapping to its file, marked `"persistent": true` —
    /// the file it was loaded from or HTTPMock wrote for it, else `mappings/NAME-ID.json`;
    /// `POST /__admin/mappings/reset` brings them back from then on. An unchanged mapping of a
    /// file of several mappings is left in its file; a changed one is a 422 naming the file,
    /// before anything is written.
    func save() throws(WireMockMappingError) {
        let folder = try mappingsFolder(for: "POST /__admin/mappings/save")
        try adminState.persisting { () throws(WireMockMappingError) in
            let all = state.mappings
            var planned: [(WireMockMapping, URL)] = []
            for mapping in all {
                if let file = try destination(of: mapping, in: folder) { planned.append((mapping, file)) }
            }
            for (mapping, file) in planned { try write(mapping, to: file) }
            state.keepAsFileMappings(all)
        }
    }

    /// Adds `mapping` (replacing one with its id) and, when it says `"persistent": true` and
    /// there is a root, writes it at once (without one, it is kept in memory only, as every
    /// mapping is); a mapping that cannot be written is not added.
    func addPersistingIfAsked(_ mapping: WireMockMapping) throws(WireMockMappingError) {
        guard mapping.json["persistent"] == .bool(true), state.root != nil else {
            try state.add(mapping, to: mock)
            return
        }
        let folder = try mappingsFolder(for: "a persistent mapping")
        try adminState.persisting { () throws(WireMockMappingError) in
            let file = try destination(of: mapping, in: folder)
            try state.add(mapping, to: mock)
            if let file { try write(mapping, to: file) }
            state.keepAsFileMappings([mapping])
        }
    }

    /// Removes mapping `id` and the file HTTPMock wrote for it, in one step against saves;
    /// `false` when there is no such mapping.
    func removePersisted(_ id: UUID) -> Bool {
        // `persisting` throws only what its body throws; this body throws nothing.
        (try? adminState.persisting { () throws(WireMockMappingError) -> Bool in
            guard state.remove(id, from: mock) else { return false }
            deleteWrittenFile(of: id)
            return true
        }) ?? false
    }

    /// The file `mapping` is written to: the one HTTPMock wrote for it, else the one it was
    /// loaded from, else `mappings/NAME-ID.json`; `nil` for an unchanged mapping of a file of
    /// several mappings (it is there already).
    private func destination(of mapping: WireMockMapping, in folder: URL) throws(WireMockMappingError) -> URL? {
        if let written = adminState.contents.withLockedValue({ $0.writtenFiles[mapping.id] }) { return written }
        if let loaded = state.contents.withLockedValue({ $0.loadedFiles[mapping.id] }) {
            guard loaded.shared else { return loaded.file }
            guard loaded.json != mapping.json else { return nil }
            throw WireMockMappingError(
                pointer: "",
                message:
                    "mapping \(mapping.idString) was loaded from \(loaded.display), which holds several mappings: such a file is read-only (as in WireMock), so its change cannot be saved; edit the file, or post the mapping under a new id"
            )
        }
        return folder.appendingPathComponent("\(mapping.fileStem)-\(mapping.idString).json")
    }

    /// Writes `mapping` to its file (a recorded mapping: a new one), holding the persistence lock.
    func write(_ mapping: WireMockMapping, in folder: URL) throws(WireMockMappingError) {
        try adminState.persisting { () throws(WireMockMappingError) in
            if let file = try destination(of: mapping, in: folder) { try write(mapping, to: file) }
        }
    }

    /// Writes one mapping file, marked `"persistent": true`.
    private func write(_ mapping: WireMockMapping, to file: URL) throws(WireMockMappingError) {
        var json = mapping.json
        if case .object(var object) = json {
            object["persistent"] = .bool(true)
            json = .object(object)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        do {
            try ((try? encoder.encode(json)) ?? Data("{}".utf8)).write(to: file, options: .atomic)
        } catch {
            throw WireMockMappingError(pointer: "", message: "cannot write \(file.path): \(error.localizedDescription)")
        }
        adminState.contents.withLockedValue { $0.writtenFiles[mapping.id] = file }
    }

    /// Deletes the file HTTPMock wrote for mapping `id`, if any (WireMock deletes a removed
    /// persistent mapping's file).
    private func deleteWrittenFile(of id: UUID) {
        let file = adminState.contents.withLockedValue { $0.writtenFiles.removeValue(forKey: id) }
        guard let file else { return }
        try? FileManager.default.removeItem(at: file)
        state.contents.withLockedValue { $0.fileMappings.removeAll { $0.id == id } }
    }
}
#endif

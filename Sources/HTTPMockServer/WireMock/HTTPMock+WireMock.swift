#if Server
import Foundation
import HTTPMock
import NIOConcurrencyHelpers

/// The WireMock mappings of one `HTTPMock` instance: each with the route it became, and the
/// ones loaded from files, which `POST /__admin/reset` brings back.
final class WireMockState: Sendable {
    struct Entry: Sendable {
        var mapping: WireMockMapping
        /// The route's identity in the registry.
        var order: Int
    }

    /// Where a mapping loaded from a file lives, as loaded.
    struct LoadedFile: Sendable {
        let file: URL
        /// Its name as reports print it (`mappings/orders.json`).
        let display: String
        /// The file holds other mappings too (`{"mappings": [...]}`): read-only, as in WireMock.
        let shared: Bool
        /// The mapping as loaded, to tell whether it changed since.
        let json: JSONValue
    }

    struct Contents: Sendable {
        /// By id; ``order`` lists the ids in the order they were added.
        var entries: [UUID: Entry] = [:]
        var order: [UUID] = []
        var fileMappings: [WireMockMapping] = []
        /// The file each mapping loaded from a file lives in, by id: `POST /__admin/mappings/save`
        /// writes such a mapping back to its own file, never a second one with its id.
        var loadedFiles: [UUID: LoadedFile] = [:]
        /// `DIR/__files`, for `bodyFileName`.
        var files: URL?
        /// Every mapping's response is a template, not only those that say so.
        var globalTemplating = false
        /// Mappings from files whose response holds `{{` but is served as written.
        var literalTemplates = 0

        /// The entries in the order they were added (ids removed since are skipped).
        var ordered: [Entry] { order.compactMap { entries[$0] } }

        mutating func forget(_ id: UUID) {
            guard entries.removeValue(forKey: id) != nil else { return }
            // Removing is rare next to adding: compact the order list once it is mostly stale.
            if order.count > 32, order.count > entries.count * 2 { order = order.filter { entries[$0] != nil } }
        }
    }

    let contents = NIOLockedValueBox(Contents())
    /// The instance's log, where its mappings' webhooks report.
    let log: ServerLog

    init(log: ServerLog) { self.log = log }

    /// The state of `mock`, made on first use and kept by it.
    static func of(_ mock: HTTPMock) -> WireMockState {
        mock.frontEndState(WireMockState.self) { WireMockState(log: ServerLog.of(mock)) }
    }

    /// Turns `mapping` into a route of `mock`, replacing a mapping with the same id. O(1)
    /// amortised when it replaces nothing.
    func add(_ mapping: WireMockMapping, to mock: HTTPMock) throws(WireMockMappingError) {
        try add([mapping], to: mock)
    }

    /// Turns `mappings` into routes of `mock` in one step: all of them or none (a mapping with
    /// the id of an existing one replaces it).
    func add(_ mappings: [WireMockMapping], to mock: HTTPMock) throws(WireMockMappingError) {
        let result = contents.withLockedValue { contents -> Result<Void, WireMockMappingError> in
            do throws(WireMockMappingError) {
                let routes = try Self.routes(of: mappings, in: contents, log: log)
                var replaced: Set<Int> = []
                for mapping in mappings { if let existing = contents.entries[mapping.id] { replaced.insert(existing.order) } }
                let orders: [Int]
                do {
                    orders = try mock.register(routes, replacing: replaced, code: .invalidRegistration, operation: "WireMock mappings")
                        .compactMap { $0 }
                } catch {
                    throw WireMockMappingError(pointer: "", message: (error as? HTTPMockError)?.message ?? "\(error)")
                }
                for (mapping, order) in zip(mappings, orders) {
                    if contents.entries[mapping.id] == nil { contents.order.append(mapping.id) }
                    contents.entries[mapping.id] = Entry(mapping: mapping, order: order)
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Removes the mapping `id`; `false` when there is none.
    func remove(_ id: UUID, from mock: HTTPMock) -> Bool {
        contents.withLockedValue { contents in
            guard let entry = contents.entries[id] else { return false }
            mock.removeAdminRoutes([entry.order])
            contents.forget(id)
            return true
        }
    }

    /// The routes `mappings` become, compiled on every core (a root of 10,000 mappings is one
    /// batch); an error names a file mapping's place first.
    private static func routes(
        of mappings: [WireMockMapping], in contents: Contents, log: ServerLog
    ) throws(WireMockMappingError) -> [RouteSpec] {
        let (files, globalTemplating) = (contents.files, contents.globalTemplating)
        return try Concurrently.map(mappings) { mapping throws(WireMockMappingError) -> RouteSpec in
            do throws(WireMockMappingError) {
                return try mapping.route(files: files, globalTemplating: globalTemplating, log: log)
            } catch {
                guard let source = mapping.source else { throw error }
                // A file's mapping: its place first, then the field (as a parse error reads).
                let field = error.pointer.isEmpty ? "" : error.pointer + ": "
                throw WireMockMappingError(
                    pointer: "", message: "\(source.display):\(source.line) (mapping \(mapping.idString)): \(field)\(error.message)"
                )
            }
        }
    }

    /// Removes every mapping; with `restoringFiles`, the mappings from files come back in the
    /// same step: a request meanwhile sees the old routes or the restored ones, never none
    /// (`POST /__admin/reset` under load answered file mappings 404 before).
    func removeAll(from mock: HTTPMock, restoringFiles: Bool) {
        contents.withLockedValue { contents in
            let current = Set(contents.entries.values.map(\.order))
            var restored: [(WireMockMapping, Int)] = []
            // They loaded before; a body file deleted since is the only way to fail, and then they
            // stay out (as a fresh load would refuse them).
            if restoringFiles, !contents.fileMappings.isEmpty,
                let routes = try? Self.routes(of: contents.fileMappings, in: contents, log: log),
                let orders = try? mock.register(routes, replacing: current, code: .invalidRegistration, operation: "WireMock mappings")
                    .compactMap({ $0 })
            {
                restored = Array(zip(contents.fileMappings, orders))
            } else {
                mock.removeAdminRoutes(current)
            }
            contents.entries = [:]
            contents.order = []
            for (mapping, order) in restored {
                if contents.entries[mapping.id] == nil { contents.order.append(mapping.id) }
                contents.entries[mapping.id] = Entry(mapping: mapping, order: order)
            }
        }
    }

    /// The mappings, in the order they were added.
    var mappings: [WireMockMapping] { contents.withLockedValue { $0.ordered.map(\.mapping) } }

    /// The mapping `id`, if any.
    func mapping(_ id: UUID) -> WireMockMapping? { contents.withLockedValue { $0.entries[id]?.mapping } }
}

extension HTTPMock {
    /// Loads a WireMock root folder: every stub mapping in `mappings/` (and its subfolders,
    /// each `.json` file one mapping or `{"mappings": [...]}`), answering `bodyFileName` from
    /// `__files/`.
    ///
    /// A mapping becomes a route of this instance, matched with the others: `priority` first
    /// (1 is highest), then HTTPMock's specificity. Every mapping answers any number of times.
    /// Files are read as WireMock reads them: `//` and `/* */` comments and single-quoted
    /// strings are allowed. The admin API (`startServer(admin: true)`, `httpmock serve`) lists
    /// them, and its `POST /__admin/reset` brings them back after they were removed.
    ///
    /// ```swift
    /// // mocks/mappings/user.json: {"request": {"method": "GET", "urlPath": "/users/1"},
    /// //                            "response": {"status": 200, "bodyFileName": "user.json"}}
    /// try mock.loadWireMock(from: URL(fileURLWithPath: "mocks"))
    /// ```
    ///
    /// Responses are templates (WireMock's response templating) when the mapping
    /// says `"transformers": ["response-template"]`, or for every mapping with
    /// `globalTemplating` (WireMock's `--global-response-templating`): `body`, `jsonBody`,
    /// `bodyFileName` (the name and the file), header values and `proxyBaseUrl` are rendered
    /// per request with `request.*` and `parameters.*` (`transformerParameters`). Templates are
    /// parsed here: an unknown helper fails the load naming the helper and the mapping. Without
    /// templating, `{{…}}` is served as written, as WireMock serves it.
    ///
    /// ```swift
    /// // mocks/mappings/echo.json: {"request": {"urlPathPattern": "/echo/.*"},
    /// //   "response": {"body": "{{request.pathSegments.[1]}} at {{now format='yyyy'}}"}}
    /// try mock.loadWireMock(from: URL(fileURLWithPath: "mocks"), globalTemplating: true)
    /// ```
    ///
    /// - Parameters:
    ///   - directory: The WireMock root: the folder that holds `mappings/` and `__files/`.
    ///   - globalTemplating: Render every mapping's response as a template, from now on for
    ///     this instance (admin API mappings included); `false` leaves it as it was.
    /// - Throws: `HTTPMockError` naming the file, its line, the field (a JSON pointer) and what
    ///   was wrong, for a file that is not JSON, an unsupported field or an invalid value (a
    ///   template with an unknown helper); then no mapping of the folder is registered.
    public func loadWireMock(from directory: URL, globalTemplating: Bool = false) throws {
        let mappingsFolder = directory.appendingPathComponent("mappings", isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: mappingsFolder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw HTTPMockError(.mockTree, "loadWireMock: \(directory.path) has no mappings/ folder")
        }
        // Paths computed once: sorting URLs by `.path` would rebuild each path per comparison.
        let files =
            (FileManager.default.enumerator(at: mappingsFolder, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL } ?? [])
            .filter { $0.pathExtension.lowercased() == "json" }
            .map { ($0.path, $0) }
            .sorted { $0.0 < $1.0 }
        var loaded: [WireMockMapping] = []
        // Files are named from the root (`mappings/orders.json`): the enumerator's URLs extend
        // the mappings folder's own path, so no per-file standardizing is needed.
        let base = mappingsFolder.path.hasSuffix("/") ? mappingsFolder.path : mappingsFolder.path + "/"
        let named = files.map { path, file in
            (path: path, file: file, display: path.hasPrefix(base) ? "mappings/" + path.dropFirst(base.count) : path)
        }
        // Read and parsed on every core; the first file in order with a mistake is reported.
        for result in Self.parsedConcurrently(named) { loaded += try result.get() }
        var seen: [UUID: String] = [:]
        for mapping in loaded {
            let place = mapping.source.map { "\($0.display):\($0.line)" } ?? ""
            if let first = seen[mapping.id] {
                throw HTTPMockError(
                    .mockTree, "loadWireMock: \(place): the id \(mapping.idString) is also the id of the mapping at \(first)")
            }
            seen[mapping.id] = place
        }
        let state = WireMockState.of(self)
        let global = state.contents.withLockedValue { contents in
            contents.files = directory.appendingPathComponent("__files", isDirectory: true)
            if globalTemplating { contents.globalTemplating = true }
            return contents.globalTemplating
        }
        do throws(WireMockMappingError) {
            try state.add(loaded, to: self)
        } catch {
            throw HTTPMockError(.mockTree, "loadWireMock: \(error.pointer.isEmpty ? "" : error.pointer + ": ")\(error.message)")
        }
        let literal = global ? 0 : loaded.filter { WireMockResponseTemplate.holdsUnrenderedTags($0.json["response"] ?? .null) }.count
        var perFile: [String: Int] = [:]
        for mapping in loaded { if let source = mapping.source { perFile[source.file.path, default: 0] += 1 } }
        state.contents.withLockedValue {
            $0.fileMappings += loaded
            $0.literalTemplates += literal
            for mapping in loaded {
                guard let source = mapping.source else { continue }
                $0.loadedFiles[mapping.id] = WireMockState.LoadedFile(
                    file: source.file, display: source.display, shared: (perFile[source.file.path] ?? 0) > 1 || source.isList,
                    json: mapping.json)
            }
        }
    }

    /// The ids of this instance's WireMock mappings, lowercased, in the order they were added.
    package var wireMockMappingIDs: [String] { WireMockState.of(self).mappings.map(\.idString) }

    /// Each file's mappings (or its error), in the order given, read and parsed on every core:
    /// loading 10,000 files is mostly parsing, which no file shares with another.
    static func parsedConcurrently(
        _ files: [(path: String, file: URL, display: String)]
    ) -> [Result<[WireMockMapping], any Error>] {
        Concurrently.map(files) { item in Result { try wireMockMappings(in: item.file, path: item.path, display: item.display) } }
    }

    /// The mappings in one file, each with the line it starts on.
    static func wireMockMappings(in file: URL, path: String, display: String) throws -> [WireMockMapping] {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw HTTPMockError(.mockTree, "loadWireMock: \(path) cannot be read: \(error.localizedDescription)")
        }
        let document: OrderedJSON
        let elementLines: [Int]?
        do throws(JSONReader.Failure) {
            (document, elementLines) = try JSONReader.parseOrdered(data, lenient: true, linesOfElementsOf: "mappings")
        } catch {
            throw HTTPMockError(.mockTree, "loadWireMock: \(display):\(error.line):\(error.column): not JSON: \(error.message)")
        }
        let list: [OrderedJSON]
        var lines: [Int]
        if case .array(let mappings)? = document["mappings"] {
            list = mappings
            lines = elementLines ?? []
        } else {
            list = [document]
            lines = [Self.firstLine(of: data)]
        }
        if lines.count != list.count { lines = Array(repeating: 1, count: list.count) }
        var mappings: [WireMockMapping] = []
        let isList = document["mappings"] != nil
        for (index, item) in list.enumerated() {
            do throws(WireMockMappingError) {
                // Without an id of its own, one derived from the file and the place in it: the
                // same at every start, so a save writes it back to its file, not a new one.
                let given = item.value["id"] != nil || item.value["uuid"] != nil
                var mapping = try WireMockMapping.parse(
                    item.value, id: given ? nil : WireMockMapping.stableID(display, index), ordered: item)
                mapping.source = (file, display, lines[index], isList)
                mappings.append(mapping)
            } catch {
                throw HTTPMockError(
                    .mockTree,
                    "loadWireMock: \(display):\(lines[index]): \(error.pointer.isEmpty ? "" : error.pointer + ": ")\(error.message)")
            }
        }
        return mappings
    }

    /// The line of a file's first non-blank, non-comment character.
    private static func firstLine(of data: Data) -> Int {
        var line = 1
        var index = data.startIndex
        while index < data.endIndex {
            let byte = data[index]
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { return line }
            if byte == 0x0A { line += 1 }
            index += 1
        }
        return 1
    }

    /// Turns global templating on for mappings added from now on (the admin API's), without a
    /// WireMock root (`httpmock serve --global-response-templating`).
    package func enableWireMockGlobalTemplating() { WireMockState.of(self).contents.withLockedValue { $0.globalTemplating = true } }

    /// How many mappings loaded from files hold `{{` in a response that is served as written
    /// (templating off for them), for the CLI's start-up note.
    package var wireMockLiteralTemplateCount: Int { WireMockState.of(self).contents.withLockedValue { $0.literalTemplates } }
}
#endif

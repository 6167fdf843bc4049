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

    struct Contents: Sendable {
        var entries: [Entry] = []
        var fileMappings: [WireMockMapping] = []
        /// `DIR/__files`, for `bodyFileName`.
        var files: URL?
        /// Every mapping's response is a template (SPEC §21), not only those that say so.
        var globalTemplating = false
        /// Mappings from files whose response holds `{{` but is served as written.
        var literalTemplates = 0
    }

    let contents = NIOLockedValueBox(Contents())

    private struct Slot: Sendable {
        weak var mock: HTTPMock?
        let state: WireMockState
    }

    private static let all = NIOLockedValueBox<[ObjectIdentifier: Slot]>([:])

    /// The state of `mock`, made on first use.
    static func of(_ mock: HTTPMock) -> WireMockState {
        all.withLockedValue { all in
            all = all.filter { $0.value.mock != nil }
            if let slot = all[ObjectIdentifier(mock)] { return slot.state }
            let state = WireMockState()
            all[ObjectIdentifier(mock)] = Slot(mock: mock, state: state)
            return state
        }
    }

    /// Turns `mapping` into a route of `mock`, replacing a mapping with the same id.
    func add(_ mapping: WireMockMapping, to mock: HTTPMock) throws(WireMockMappingError) {
        let result = contents.withLockedValue { contents -> Result<Void, WireMockMappingError> in
            do throws(WireMockMappingError) {
                var response = try WireMockResponse.make(
                    mapping.response, files: contents.files, globalTemplating: contents.globalTemplating)
                var required: ScenarioState?
                if let scenario = mapping.scenarioName {
                    if let state = mapping.requiredState { required = ScenarioState(scenario, WireMockMapping.ourState(state)) }
                    if let state = mapping.newState { response = response.transitioning(scenario, to: WireMockMapping.ourState(state)) }
                }
                let request = mapping.request
                let order: Int
                do {
                    order = try mock.addAdminRoute(
                        path: request.literalPath ?? "/**", host: "**", method: request.method.map { HTTPMethod($0) },
                        predicate: { request.matches($0) },
                        explanation: { request.mismatch($0) }, scenario: required, priority: mapping.priority, label: mapping.label,
                        responses: [response], source: "WireMock mapping \(mapping.id.uuidString.lowercased())")
                } catch {
                    throw WireMockMappingError(pointer: "", message: (error as? HTTPMockError)?.message ?? "\(error)")
                }
                if let index = contents.entries.firstIndex(where: { $0.mapping.id == mapping.id }) {
                    mock.removeAdminRoutes([contents.entries[index].order])
                    contents.entries[index] = Entry(mapping: mapping, order: order)
                } else {
                    contents.entries.append(Entry(mapping: mapping, order: order))
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
            guard let index = contents.entries.firstIndex(where: { $0.mapping.id == id }) else { return false }
            mock.removeAdminRoutes([contents.entries[index].order])
            contents.entries.remove(at: index)
            return true
        }
    }

    /// Removes every mapping; with `restoringFiles`, the mappings from files come back.
    func removeAll(from mock: HTTPMock, restoringFiles: Bool) {
        let files = contents.withLockedValue { contents -> [WireMockMapping] in
            mock.removeAdminRoutes(Set(contents.entries.map(\.order)))
            contents.entries = []
            return restoringFiles ? contents.fileMappings : []
        }
        for mapping in files {
            // They loaded before; a file deleted since is the only way to fail, and then the
            // mapping stays out (as a fresh load would refuse it).
            try? add(mapping, to: mock)
        }
    }

    var mappings: [WireMockMapping] { contents.withLockedValue { $0.entries.map(\.mapping) } }
}

extension HTTPMock {
    /// Loads a WireMock root folder: every stub mapping in `mappings/` (and its subfolders,
    /// each `.json` file one mapping or `{"mappings": [...]}`), answering `bodyFileName` from
    /// `__files/` (SPEC §19).
    ///
    /// A mapping becomes a route of this instance, matched with the others: `priority` first
    /// (1 is highest), then HTTPMock's specificity. Every mapping answers any number of times.
    /// The admin API (`startServer(admin: true)`, `httpmock serve`) lists them, and its
    /// `POST /__admin/reset` brings them back after they were removed.
    ///
    /// ```swift
    /// // mocks/mappings/user.json: {"request": {"method": "GET", "urlPath": "/users/1"},
    /// //                            "response": {"status": 200, "bodyFileName": "user.json"}}
    /// try mock.loadWireMock(from: URL(fileURLWithPath: "mocks"))
    /// ```
    ///
    /// Responses are templates (WireMock's response templating, SPEC §21) when the mapping
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
    /// - Throws: `HTTPMockError` naming the file, the field (a JSON pointer) and what was
    ///   wrong, for a file that is not JSON, an unsupported field or an invalid value (a
    ///   template with an unknown helper); then no mapping of the folder is registered.
    public func loadWireMock(from directory: URL, globalTemplating: Bool = false) throws {
        let mappingsFolder = directory.appendingPathComponent("mappings", isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: mappingsFolder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw HTTPMockError(.mockTree, "loadWireMock: \(directory.path) has no mappings/ folder")
        }
        let files =
            FileManager.default.enumerator(at: mappingsFolder, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }
            .filter { $0.pathExtension.lowercased() == "json" }
            .sorted { $0.path < $1.path } ?? []
        var loaded: [WireMockMapping] = []
        for file in files {
            let value: JSONValue
            do {
                value = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: file))
            } catch {
                throw HTTPMockError(.mockTree, "loadWireMock: \(file.path) is not JSON: \(error)")
            }
            let list: [JSONValue]
            if case .array(let mappings)? = value["mappings"] { list = mappings } else { list = [value] }
            for (index, item) in list.enumerated() {
                do throws(WireMockMappingError) {
                    loaded.append(try WireMockMapping.parse(item))
                } catch {
                    let place = list.count > 1 || value["mappings"] != nil ? " mapping \(index + 1)" : ""
                    throw HTTPMockError(
                        .mockTree,
                        "loadWireMock: \(file.path)\(place): \(error.pointer.isEmpty ? "" : error.pointer + ": ")\(error.message)")
                }
            }
        }
        let state = WireMockState.of(self)
        let filesFolder = directory.appendingPathComponent("__files", isDirectory: true)
        let global = state.contents.withLockedValue { contents in
            contents.files = filesFolder
            if globalTemplating { contents.globalTemplating = true }
            return contents.globalTemplating
        }
        // Responses are checked (a missing body file, a template) before anything is registered.
        for mapping in loaded {
            do throws(WireMockMappingError) {
                _ = try WireMockResponse.make(mapping.response, files: filesFolder, globalTemplating: global)
            } catch {
                throw HTTPMockError(
                    .mockTree, "loadWireMock: mapping \(mapping.id.uuidString.lowercased()): \(error.pointer): \(error.message)")
            }
        }
        for mapping in loaded {
            do throws(WireMockMappingError) {
                try state.add(mapping, to: self)
            } catch {
                throw HTTPMockError(.mockTree, "loadWireMock: mapping \(mapping.id.uuidString.lowercased()): \(error.message)")
            }
        }
        let literal = global ? 0 : loaded.filter { WireMockResponseTemplate.holdsUnrenderedTags($0.response) }.count
        state.contents.withLockedValue {
            $0.fileMappings += loaded
            $0.literalTemplates += literal
        }
    }

    /// Turns global templating on for mappings added from now on (the admin API's), without a
    /// WireMock root (`httpmock serve --global-response-templating`).
    package func enableWireMockGlobalTemplating() { WireMockState.of(self).contents.withLockedValue { $0.globalTemplating = true } }

    /// How many mappings loaded from files hold `{{` in a response that is served as written
    /// (templating off for them), for the CLI's start-up note.
    package var wireMockLiteralTemplateCount: Int { WireMockState.of(self).contents.withLockedValue { $0.literalTemplates } }
}
#endif

#if Server
import Foundation
import HTTPMock

/// One WireMock stub mapping, parsed and compiled: its JSON (with `id` and `uuid`), its request
/// pattern, its response and what happens after serving.
struct WireMockMapping: Sendable {
    /// The parsed mapping, shared by copies: a loader and the admin state pass mappings around
    /// by value, and copying a dozen reference-counted fields each time was a tenth of the
    /// start-up time with 10,000 mappings.
    private final class Storage: Sendable {
        let id: UUID
        let json: JSONValue
        let document: OrderedJSON
        let name: String?
        let priority: Int?
        let request: WireMockRequestPattern
        let response: WireMockResponse
        let webhooks: [WireMockWebhook]
        let scenarioName: String?
        let requiredState: String?
        let newState: String?

        init(
            id: UUID, json: JSONValue, document: OrderedJSON, name: String?, priority: Int?, request: WireMockRequestPattern,
            response: WireMockResponse,
            webhooks: [WireMockWebhook], scenarioName: String?, requiredState: String?, newState: String?
        ) {
            self.id = id
            self.json = json
            self.document = document
            self.name = name
            self.priority = priority
            self.request = request
            self.response = response
            self.webhooks = webhooks
            self.scenarioName = scenarioName
            self.requiredState = requiredState
            self.newState = newState
        }
    }

    private let storage: Storage

    var id: UUID { storage.id }
    /// The mapping as given, with `id` and `uuid` set: what `GET /__admin/mappings` returns.
    var json: JSONValue { storage.json }
    /// The mapping as it was written (members in their order, `null` ones dropped, `id` and
    /// `uuid` set), as the admin API lists it: a `jsonBody` reads back as it was sent.
    var document: OrderedJSON { storage.document }
    var name: String? { storage.name }
    var priority: Int? { storage.priority }
    var request: WireMockRequestPattern { storage.request }
    var response: WireMockResponse { storage.response }
    var webhooks: [WireMockWebhook] { storage.webhooks }
    var scenarioName: String? { storage.scenarioName }
    var requiredState: String? { storage.requiredState }
    var newState: String? { storage.newState }
    /// The file it was read from, its name as reports print it (relative to the WireMock
    /// root) and the line it starts on; `nil` for one posted to the admin API.
    /// `isList`: the file holds `{"mappings": [...]}`.
    var source: (file: URL, display: String, line: Int, isList: Bool)?

    static let keys: Set<String> = [
        "id", "uuid", "name", "request", "response", "priority", "persistent", "scenarioName", "requiredScenarioState",
        "newScenarioState", "metadata", "insertionIndex", "$schema", "postServeActions", "serveEventListeners",
    ]

    /// Fields WireMock has that HTTPMock refuses by name.
    static let refused: [String: String] = [
        "fromConfiguredStub": "fromConfiguredStub is not supported", "extensions": "WireMock extensions (Java code) cannot run in HTTPMock",
    ]

    /// Parses one mapping; `id` replaces the mapping's own (a `PUT` names it in the path).
    /// `ordered` is the same mapping with its members in document order, when the caller read
    /// it so: a `jsonBody` is then sent in the order it was written, as WireMock sends it.
    static func parse(
        _ value: JSONValue, id forcedID: UUID? = nil, ordered: OrderedJSON? = nil
    ) throws(WireMockMappingError)
        -> WireMockMapping
    {
        guard case .object(let raw) = value else {
            throw WireMockMappingError(pointer: "", message: "a mapping must be a JSON object, got \(value)")
        }
        let object = raw.filter { $0.value != .null }
        for key in object.keys.sorted() where !keys.contains(key) {
            throw WireMockMappingError(pointer: "/" + key, message: refused[key] ?? "unsupported field \(key)")
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
        let response = try WireMockResponse.parse(object["response"] ?? .object([:]), jsonBody: ordered?["response"]?["jsonBody"])
        let webhooks = try WireMockWebhook.parse(object)
        var priority: Int?
        if let given = object["priority"] {
            // WireMock takes any integer (0 sorts before 1), also written as a string.
            guard let number = WireMockMatchers.javaInteger(given), number >= 0 else {
                throw WireMockMappingError(
                    pointer: "/priority", message: "priority must be an integer ≥ 0 (1 is the highest WireMock documents), got \(given)")
            }
            priority = number
        }
        if let index = object["insertionIndex"], index.number == nil {
            throw WireMockMappingError(pointer: "/insertionIndex", message: "insertionIndex must be a number, got \(index)")
        }
        if let persistent = object["persistent"], case .bool = persistent {
        } else if let persistent = object["persistent"] {
            throw WireMockMappingError(pointer: "/persistent", message: "persistent must be true or false, got \(persistent)")
        }
        if let metadata = object["metadata"], case .object = metadata {
        } else if let metadata = object["metadata"] {
            throw WireMockMappingError(pointer: "/metadata", message: "metadata must be an object, got \(metadata)")
        }
        func text(_ key: String) throws(WireMockMappingError) -> String? {
            try object[key].map { value throws(WireMockMappingError) in try WireMockMatchers.string(value, at: "/" + key) }
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
        let idText = OrderedJSON.scalar(.string(mappingID.uuidString.lowercased()))
        let document = (ordered ?? OrderedJSON(.object(object))).droppingNullMembers.setting("id", to: idText).setting("uuid", to: idText)
        return WireMockMapping(
            storage: Storage(
                id: mappingID, json: .object(json), document: document, name: try text("name"), priority: priority, request: request,
                response: response,
                webhooks: webhooks, scenarioName: scenarioName, requiredState: requiredState, newState: newState),
            source: nil)
    }

    /// WireMock names the initial state `Started`; HTTPMock `"started"`. Compared
    /// case-insensitively.
    static func ourState(_ state: String) -> String {
        state.lowercased() == ScenarioState.started ? ScenarioState.started : state
    }

    /// The state as WireMock clients expect it (`Started`).
    static func theirState(_ state: String) -> String {
        state == ScenarioState.started ? "Started" : state
    }

    /// The id of the `index`th mapping of the file `display` names (`mappings/orders.json`,
    /// relative to the root) when it gives none: the same at every start. A version 8 UUID (RFC
    /// 9562, custom) from two 64-bit FNV-1a hashes of `display#index`.
    static func stableID(_ display: String, _ index: Int) -> UUID {
        let text = Array("\(display)#\(index)".utf8)
        func hash(_ seed: UInt64) -> UInt64 {
            var value = seed
            for byte in text {
                value ^= UInt64(byte)
                value = value &* 0x100_0000_01b3
            }
            return value
        }
        let (high, low) = (hash(0xcbf2_9ce4_8422_2325), hash(0x8422_2325_cbf2_9ce4))
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// The lowercased id, as WireMock writes ids.
    var idString: String { id.uuidString.lowercased() }

    /// The fields WireMock adds to the responses a mapping answers: `Matched-Stub-Id`, and
    /// `Matched-Stub-Name` when it has a name (measured on WireMock 2.35.1). A name with a
    /// control character (a line break) cannot be a field value and is left out.
    var matchedStubHeaders: [(name: String, value: String)] {
        guard let name, !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return [("Matched-Stub-Id", idString)]
        }
        return [("Matched-Stub-Id", idString), ("Matched-Stub-Name", name)]
    }

    /// The route's name in reports, the journal and the dashboard: what it matches, then the
    /// mapping's `name`, else its id.
    var label: String {
        let forward = response.proxy.map { " → forward to \($0.baseURL.absoluteString)" } ?? ""
        return "\(name.map { "\($0): " } ?? "")\(request.summary)\(forward) [wiremock \(idString)]"
    }

    /// Where reports say the mapping is registered: its file and line, or the admin API.
    var location: (display: String, path: String, line: Int) {
        // The id is in the label already (`[wiremock ID]`): near-miss lines named it twice.
        guard let source else { return ("the admin API", "", 0) }
        return (source.display, source.file.path, source.line)
    }

    /// The route it becomes; its body file is read from `files` (`DIR/__files`); with
    /// `globalTemplating` its response is a template even without `transformers`; its webhooks
    /// report to `log`.
    func route(files: URL?, globalTemplating: Bool = false, log: ServerLog) throws(WireMockMappingError) -> RouteSpec {
        var response = try self.response.make(
            files: files, webhooks: webhooks, globalTemplating: globalTemplating, stubHeaders: matchedStubHeaders, log: log)
        var required: ScenarioState?
        if let scenario = scenarioName {
            if let state = requiredState { required = ScenarioState(scenario, Self.ourState(state)) }
            if let state = newState { response = response.transitioning(scenario, to: Self.ourState(state)) }
        }
        let place = location
        var route = RouteSpec(
            path: request.routePath, host: "**", method: request.method, responses: [response], file: place.path, fileID: place.display,
            line: place.line)
        route.conditions = request.conditions
        route.scenario = required
        route.priority = priority
        route.label = label
        route.placement = .own(newestFirst: true)
        return route
    }

    /// Everything `request` does not satisfy, in the near-miss wording (for the admin API's
    /// near-miss endpoints); empty when it matches.
    func misses(_ request: MockRequest) -> [RequestConditions.Miss] { self.request.misses(request) }

    /// WireMock's distance between this mapping and `request`: 0 (it matches) … 1.
    func distance(to request: MockRequest) -> Double { self.request.distance(request) }
}
#endif

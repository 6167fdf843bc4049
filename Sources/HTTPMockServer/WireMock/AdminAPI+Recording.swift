#if Server
import Foundation
import HTTPMock

// `/__admin/recordings/…`: WireMock's recorder through HTTPMock's forwarding.
// `start` adds a route (the lowest priority: mappings still answer what they match) that
// forwards every request to `targetBaseUrl`; `stop` turns what it forwarded into mappings,
// `snapshot` does so for the proxied requests already in the journal. The journal keeps what
// the upstream answered, so a mapping is made from the exchange as the client saw it.

extension AdminAPI {
    /// Below every mapping's priority (WireMock's lowest is `Int.max`; 5 is the default).
    static let recordingPriority = Int(Int32.max)

    func recordings(method: String, _ path: [String], body: Data?) async -> ServedAnswer {
        do throws(WireMockMappingError) {
            switch (method, path) {
            case ("GET", ["status"]):
                let status = adminState.contents.withLockedValue { $0.recordingStatus }
                return Self.json(200, ["status": .string(status.rawValue)], method: method)
            case ("POST", ["start"]):
                try startRecording(try RecordSpec.parse(try Self.parseObject(body), requiresTarget: true))
                return Self.empty(method: method)
            case ("POST", ["stop"]):
                return Self.json(200, try stopRecording(), method: method)
            case ("POST", ["snapshot"]):
                let spec = try RecordSpec.parse(try Self.parseObject(body), requiresTarget: false)
                return Self.json(200, try snapshot(spec), method: method)
            default:
                return unknown(method, ["recordings"] + path)
            }
        } catch {
            return Self.invalid(error, method: method)
        }
    }

    private func startRecording(_ spec: RecordSpec) throws(WireMockMappingError) {
        guard let target = spec.targetBaseURL else {
            throw WireMockMappingError(pointer: "/targetBaseUrl", message: "recording needs a targetBaseUrl to forward to")
        }
        let label = "WireMock recording → forward to \(target.absoluteString) [wiremock recording]"
        let firstJournalID = mock.adminNewestJournalEntries(limit: 1, since: nil).entries.first?.journalID ?? 0
        var forward = RouteSpec(
            path: "/**", host: "**", method: nil, responses: [.forward(to: target, lifetime: .eternal)], file: "WireMock recording",
            line: 0)
        forward.priority = Self.recordingPriority
        forward.label = label
        forward.predicate = { spec.admits($0) }
        forward.placement = .own(newestFirst: false)
        let added: [Int?]
        do {
            added = try mock.register([forward], code: .invalidRegistration, operation: "startRecording")
        } catch {
            throw WireMockMappingError(pointer: "", message: (error as? HTTPMockError)?.message ?? "\(error)")
        }
        guard let route = added.first.flatMap({ $0 }) else {
            throw WireMockMappingError(pointer: "", message: "the recording's route was not added")
        }
        let previous = adminState.contents.withLockedValue { contents -> WireMockAdminState.Recording? in
            defer {
                contents.recording = WireMockAdminState.Recording(route: route, label: label, firstJournalID: firstJournalID, spec: spec)
                contents.recordingStatus = .recording
            }
            return contents.recording
        }
        if let previous { mock.removeAdminRoutes([previous.route]) }
    }

    private func stopRecording() throws(WireMockMappingError) -> JSONValue {
        let recording = adminState.contents.withLockedValue { contents -> WireMockAdminState.Recording? in
            defer {
                if contents.recording != nil { contents.recordingStatus = .stopped }
                contents.recording = nil
            }
            return contents.recording
        }
        guard let recording else {
            throw WireMockMappingError(pointer: "", message: "not recording: POST /__admin/recordings/start first")
        }
        mock.removeAdminRoutes([recording.route])
        let entries = allEntries().filter { $0.journalID > recording.firstJournalID && $0.route == recording.label }
        return try record(entries, spec: recording.spec)
    }

    /// `POST /__admin/recordings/snapshot`: mappings from the journal's proxied requests
    /// (every answered request with `allowNonProxied`), filtered by the spec.
    private func snapshot(_ spec: RecordSpec) throws(WireMockMappingError) -> JSONValue {
        // Proxied: answered by a route that forwards (a mapping with `proxyBaseUrl`, or the
        // recorder), as its name in the journal says — the mapping may be gone by now.
        let chosen = allEntries().filter { entry in
            if let ids = spec.ids, !ids.contains(entry.journalID) { return false }
            guard spec.admits(entry.request) else { return false }
            return spec.allowNonProxied || entry.route?.contains(" → forward to ") == true
        }
        return try record(chosen, spec: spec)
    }

    /// Turns `entries` into mappings, adds them (and writes them when the spec persists and
    /// there is a root), and answers `{"mappings": [...]}` (or `{"ids": [...]}`).
    private func record(_ entries: [RecordedRequest], spec: RecordSpec) throws(WireMockMappingError) -> JSONValue {
        // A forward whose upstream body the journal did not keep (over 64 MB, or cut off): a
        // mapping would replay 0 bytes under the original length, so nothing is recorded.
        let incomplete = entries.filter { entry in
            guard let served = entry.servedResponse, served.body == nil else { return false }
            return entry.route?.contains(" → forward to ") == true
        }
        if !incomplete.isEmpty {
            let names = incomplete.prefix(5).map { "\($0.request.method.rawValue) \($0.request.url.absoluteString)" }
            throw WireMockMappingError(
                pointer: "",
                message:
                    "nothing was recorded: the upstream's body of \(names.joined(separator: ", "))\(incomplete.count > 5 ? " and \(incomplete.count - 5) more" : "") was not kept whole (larger than \(ServedForward.keptBodyLimit >> 20) MB, or cut off), so its mapping could not replay it; record the others with POST /__admin/recordings/snapshot and filters"
            )
        }
        var folder: URL?
        if spec.persist, state.root != nil { folder = try mappingsFolder(for: "recording") }
        let files = state.root?.appendingPathComponent("__files", isDirectory: true)
        var groups: [JSONValue: [RecordedRequest]] = [:]
        var order: [JSONValue] = []
        for entry in entries where entry.servedResponse != nil {
            let pattern = requestPattern(for: entry.request, spec: spec)
            if groups[pattern] == nil { order.append(pattern) }
            groups[pattern, default: []].append(entry)
        }
        var made: [WireMockMapping] = []
        var scenarioCount = 0
        for pattern in order {
            var group = groups[pattern] ?? []
            if !spec.repeatsAsScenarios { group = Array(group.prefix(1)) }
            let scenario: String?
            if group.count > 1 {
                scenarioCount += 1
                scenario = "scenario-\(scenarioCount)-" + Self.recordedName(group[0].request)
            } else {
                scenario = nil
            }
            for (index, entry) in group.enumerated() {
                let id = UUID()
                var mapping: [String: JSONValue] = [
                    "id": .string(id.uuidString.lowercased()), "uuid": .string(id.uuidString.lowercased()),
                    "name": .string(Self.recordedName(entry.request)), "request": pattern,
                    "response": try recordedResponse(entry, id: id, spec: spec, files: folder == nil ? nil : files),
                ]
                if spec.persist { mapping["persistent"] = true }
                if let scenario {
                    mapping["scenarioName"] = .string(scenario)
                    mapping["requiredScenarioState"] = .string(index == 0 ? "Started" : "\(scenario)-\(index + 1)")
                    if index + 1 < group.count { mapping["newScenarioState"] = .string("\(scenario)-\(index + 2)") }
                }
                made.append(try WireMockMapping.parse(.object(mapping)))
            }
        }
        for mapping in made {
            try state.add(mapping, to: mock)
            if let folder { try write(mapping, in: folder) }
        }
        if folder != nil { state.keepAsFileMappings(made) }
        if spec.idsOnly { return ["ids": .array(made.map { .string($0.id.uuidString.lowercased()) })] }
        return ["mappings": .array(made.map(\.json))]
    }

    /// The request pattern a recorded request gets: its method and URL, the captured headers,
    /// its body by the spec's matcher.
    private func requestPattern(for request: MockRequest, spec: RecordSpec) -> JSONValue {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath.isEmpty == false ? components?.percentEncodedPath ?? "/" : "/"
        var pattern: [String: JSONValue] = [
            "url": .string(path + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")),
            "method": .string(request.method.rawValue),
        ]
        var headers: [String: JSONValue] = [:]
        for (name, caseInsensitive) in spec.captureHeaders {
            guard let value = request.headers[name] else { continue }
            var matcher: [String: JSONValue] = ["equalTo": .string(value)]
            if caseInsensitive { matcher["caseInsensitive"] = true }
            headers[name] = .object(matcher)
        }
        if !headers.isEmpty { pattern["headers"] = .object(headers) }
        if let body = request.body, !body.isEmpty, let text = String(data: body, encoding: .utf8) {
            let isJSON = (try? JSONReader.parse(body)) != nil
            let matcher: JSONValue
            switch spec.bodyMatcher {
            case .auto where isJSON, .equalToJson:
                matcher = [
                    "equalToJson": .string(text), "ignoreArrayOrder": .bool(spec.ignoreArrayOrder),
                    "ignoreExtraElements": .bool(spec.ignoreExtraElements),
                ]
            case .equalToXml: matcher = ["equalToXml": .string(text)]
            case .equalTo(let caseInsensitive) where caseInsensitive: matcher = ["equalTo": .string(text), "caseInsensitive": true]
            default: matcher = ["equalTo": .string(text)]
            }
            pattern["bodyPatterns"] = [matcher]
        }
        return .object(pattern)
    }

    /// What the upstream answered, as a mapping response: a body over the spec's threshold goes
    /// to `__files/` when the mapping is written (`files` given).
    private func recordedResponse(
        _ entry: RecordedRequest, id: UUID, spec: RecordSpec, files: URL?
    ) throws(WireMockMappingError)
        -> JSONValue
    {
        guard let served = entry.servedResponse else { return ["status": .integer(entry.statusCode ?? 200)] }
        var response: [String: JSONValue] = ["status": .integer(served.statusCode)]
        if !served.headers.isEmpty { response["headers"] = .object(served.headers.mapValues(JSONValue.string)) }
        guard let body = served.body, !body.isEmpty else { return .object(response) }
        let text = String(data: body, encoding: .utf8)
        let threshold = text == nil ? spec.binarySizeThreshold : spec.textSizeThreshold
        if let files, body.count > threshold {
            let name = "\(Self.recordedName(entry.request))-\(id.uuidString.lowercased().prefix(8)).\(text == nil ? "bin" : "txt")"
            do {
                try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
                try body.write(to: files.appendingPathComponent(name), options: .atomic)
            } catch {
                throw WireMockMappingError(pointer: "", message: "cannot write __files/\(name): \(error.localizedDescription)")
            }
            response["bodyFileName"] = .string(name)
        } else if let text {
            response["body"] = .string(text)
        } else {
            response["base64Body"] = .string(body.base64EncodedString())
        }
        return .object(response)
    }

    /// A recorded mapping's name, from its path as WireMock names them (`/rec/a` → `rec_a`).
    static func recordedName(_ request: MockRequest) -> String {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let path = (components?.percentEncodedPath ?? "").split(separator: "/").joined(separator: "_")
        return WireMockMapping.safeName(path.isEmpty ? "root" : path)
    }
}
#endif

#if Server
extension AdminAPI {
    /// `httpmock serve --record-mappings --proxy-all URL` (WireMock's standalone flags): records
    /// from start-up, as `POST /__admin/recordings/start` with `persist` does.
    /// - Throws: ``HTTPMockError`` naming what is wrong (no root folder to write into).
    package func startRecordingAtLaunch(forwardingTo target: URL) throws {
        guard state.root != nil else {
            throw HTTPMockError(
                .invalidRegistration, "--record-mappings writes into a WireMock root folder's mappings/: give --root-dir DIR")
        }
        do throws(WireMockMappingError) {
            try startRecording(
                try RecordSpec.parse(["targetBaseUrl": .string(target.absoluteString), "persist": true], requiresTarget: true))
        } catch {
            throw HTTPMockError(.invalidRegistration, "--record-mappings: \(error.message)")
        }
    }

    /// Ends the recording ``startRecordingAtLaunch(forwardingTo:)`` started and writes its
    /// mappings into `mappings/` of the root folder; returns how many, or throws saying why not.
    package func stopRecordingAtExit() throws -> Int {
        do throws(WireMockMappingError) {
            guard case .object(let answer) = try stopRecording(), case .array(let mappings)? = answer["mappings"] else { return 0 }
            return mappings.count
        } catch {
            throw HTTPMockError(.invalidRegistration, "--record-mappings: \(error.message)")
        }
    }
}
#endif

#if Server
import Foundation
import HTTPMock
import NIOConcurrencyHelpers

// `/__admin/requests…`: the journal as WireMock's serve events and logged requests.

extension AdminAPI {
    /// What WireMock 2.35.1 answers under `--no-request-journal`: a count of -1 and empty
    /// searches flagged `requestJournalDisabled`, 500 for listings (its text); `nil`: answered
    /// as usual (removals, a reset).
    private func journalDisabledAnswer(method: String, _ path: [String]) -> ServedAnswer? {
        guard journalDisabled else { return nil }
        let message =
            "The request journal is disabled (--no-request-journal), so no verification or request searching operations are available"
        switch (method, path) {
        case ("POST", ["count"]):
            return Self.json(200, ["count": -1, "requestJournalDisabled": true], method: method)
        case ("POST", ["find"]), ("GET", ["unmatched"]):
            return Self.json(200, ["requests": [], "requestJournalDisabled": true], method: method)
        case ("GET", []), ("GET", ["unmatched", "near-misses"]):
            return Self.error(500, message, method: method)
        case ("GET", _) where path.count == 1:
            return Self.error(500, message, method: method)
        default:
            return nil
        }
    }

    func requests(method: String, _ path: [String], query: [URLQueryItem], body: Data?) -> ServedAnswer {
        if let answer = journalDisabledAnswer(method: method, path) { return answer }
        do throws(WireMockMappingError) {
            switch (method, path) {
            case ("GET", []):
                return Self.json(200, try journalPage(query), method: method)
            case ("DELETE", []), ("POST", ["reset"]):
                mock.clearAdminJournal()
                return Self.json(200, [:], method: method)
            case ("POST", ["count"]):
                let pattern = try WireMockRequestPattern.parse(try Self.parse(body), at: "")
                let count = allEntries().filter { pattern.matchesWithMethod($0.request) }.count
                return Self.json(200, ["count": .integer(count), "requestJournalDisabled": false], method: method)
            case ("POST", ["find"]):
                let pattern = try WireMockRequestPattern.parse(try Self.parse(body), at: "")
                let found = allEntries().filter { pattern.matchesWithMethod($0.request) }
                return Self.json(200, Self.loggedRequests(found), method: method)
            case ("GET", ["unmatched"]):
                return Self.json(200, Self.loggedRequests(allEntries().filter { !$0.isMatched }), method: method)
            case ("GET", ["unmatched", "near-misses"]):
                return Self.json(200, nearMissesOfUnmatched(), method: method)
            case ("POST", ["remove"]):
                let pattern = try WireMockRequestPattern.parse(try Self.parse(body), at: "")
                return Self.json(200, removeEvents { entry, _ in pattern.matchesWithMethod(entry.request) }, method: method)
            case ("POST", ["remove-by-metadata"]):
                let pattern = try WireMockMatchers.matcher(try Self.parse(body), at: "")
                return Self.json(
                    200,
                    removeEvents { _, mapping in
                        guard let metadata = mapping?.metadata else { return false }
                        return pattern.matches(Self.metadataInput(metadata))
                    }, method: method)
            case ("GET", _) where path.count == 1:
                let id = path[0]
                guard let entry = Self.journalID(id).flatMap(mock.adminJournalEntry(id:)) else {
                    return Self.notFound("no request \(id) in the journal", method: method)
                }
                return Self.json(200, Self.serveEvent(entry, mappings: mappingsOfRoutes([entry])), method: method)
            case ("DELETE", _) where path.count == 1:
                let id = path[0]
                if let journalID = Self.journalID(id) { mock.removeAdminJournalEntries([journalID]) }
                return Self.json(200, [:], method: method)
            default:
                return unknown(method, ["requests"] + path)
            }
        } catch {
            return Self.invalid(error, method: method)
        }
    }

    /// The whole journal, oldest first (for searches, which WireMock runs over all of it).
    func allEntries() -> [RecordedRequest] {
        mock.adminNewestJournalEntries(limit: nil, since: nil).entries.reversed()
    }

    /// `GET /__admin/requests`: the newest first; `limit`, `since` (ISO 8601), `unmatched=true`,
    /// `matchingStub=ID` (the Java client's `ServeEventQuery`). Reads `limit` entries, not the
    /// journal.
    private func journalPage(_ query: [URLQueryItem]) throws(WireMockMappingError) -> JSONValue {
        let limit = try Self.count("limit", in: query)
        var since: Date?
        if let text = Self.parameter("since", in: query), !text.isEmpty {
            guard let date = Self.date(text) else {
                throw WireMockMappingError(pointer: "?since", message: "since must be an ISO 8601 date-time, got \"\(text)\"")
            }
            since = date
        }
        let onlyUnmatched = Self.parameter("unmatched", in: query) == "true"
        var stub: UUID?
        if let text = Self.parameter("matchingStub", in: query), !text.isEmpty {
            guard let id = UUID(uuidString: text) else {
                throw WireMockMappingError(pointer: "?matchingStub", message: "matchingStub must be a mapping id, got \"\(text)\"")
            }
            stub = id
        }
        let (entries, total) = mock.adminNewestJournalEntries(limit: limit, since: since) { entry in
            if onlyUnmatched, entry.isMatched { return false }
            if let stub, entry.route.flatMap(Self.mappingID(inRoute:)) != stub { return false }
            return true
        }
        let mappings = mappingsOfRoutes(entries)
        return [
            "requests": .array(entries.map { Self.serveEvent($0, mappings: mappings) }),
            "meta": ["total": .integer(total)],
            "requestJournalDisabled": false,
        ]
    }

    /// `{"requests": [LoggedRequest…], "requestJournalDisabled": false}`.
    static func loggedRequests(_ entries: [RecordedRequest]) -> JSONValue {
        ["requests": .array(entries.map(loggedRequest)), "requestJournalDisabled": false]
    }

    /// Removes the serve events `shouldRemove` picks (given the mapping that answered each);
    /// answers `{"serveEvents": [...]}` with them.
    private func removeEvents(_ shouldRemove: (RecordedRequest, WireMockMapping?) -> Bool) -> JSONValue {
        let entries = allEntries()
        let mappings = mappingsOfRoutes(entries)
        let chosen = entries.filter { entry in
            shouldRemove(entry, entry.route.flatMap(Self.mappingID(inRoute:)).flatMap { mappings[$0] })
        }
        let removed = mock.removeAdminJournalEntries(Set(chosen.map(\.journalID)))
        return ["serveEvents": .array(removed.reversed().map { Self.serveEvent($0, mappings: mappings) })]
    }

    /// An ISO 8601 date-time, with or without fractional seconds.
    static func date(_ text: String) -> Date? {
        sinceFormatters.withLockedValue { formatters in
            formatters.fractional.date(from: text) ?? formatters.whole.date(from: text)
        }
    }

    /// ``date(_:)``'s formatters, built once (about 0.4 ms each on Linux) and used under a lock:
    /// swift-corelibs-foundation's `ISO8601DateFormatter` builds its CoreFoundation formatter
    /// lazily, unguarded. Not `Date.ISO8601FormatStyle`: its parse of `…00.123Z` is
    /// 1795948200.1230001 where the formatter's is 1795948200.123, and `since` compares dates.
    /// `nonisolated(unsafe)`: `ISO8601DateFormatter` is not `Sendable` on Linux; the box's lock
    /// guards every use.
    nonisolated(unsafe) private static let sinceFormatters:
        NIOLockedValueBox<(fractional: ISO8601DateFormatter, whole: ISO8601DateFormatter)> = {
            let fractional = ISO8601DateFormatter()
            fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let whole = ISO8601DateFormatter()
            whole.formatOptions = [.withInternetDateTime]
            return NIOLockedValueBox((fractional, whole))
        }()
}
#endif

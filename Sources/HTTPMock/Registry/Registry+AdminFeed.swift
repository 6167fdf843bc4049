import Foundation

// What the dashboard reads beyond the admin API's needs: the journal's newest
// entries by identity, without copying the journal; each route's conditions; what a client
// received. Reading, never changing: the dashboard's feed polls these while a page is open.

/// A route's conditions as the dashboard shows them, fixed when it is registered.
package struct AdminRouteConditions: Sendable {
    /// The route's identity (its registration order).
    package let order: Int
    /// The route as the journal names it (its label, for a WireMock mapping).
    package let name: String
    /// `nil`: any method.
    package let method: String?
    package let host: String
    package let path: String
    /// `?page=1&q=swift`, `nil` when any query matches.
    package let query: String?
    package let headers: String?
    package let body: String?
    /// The scenario and state the route needs, `nil` when none.
    package let scenario: String?
    package let scenarioState: String?
    /// Whether a predicate (`where:`, a WireMock pattern HTTPMock evaluates itself) decides too.
    package let hasPredicate: Bool
    /// WireMock's `priority`, `nil` when none.
    package let priority: Int?
    /// Where it was registered: `file:line`, a file, or `WireMock mapping <id>`.
    package let location: String?
}

/// What a client received, as the journal keeps it.
package struct AdminServedResponse: Sendable {
    package let statusCode: Int
    package let headers: [(name: String, value: String)]
    /// The body in memory; `nil` for none, a file or an event stream (see ``bodyNote``).
    package let body: Data?
    /// What the body was when it is not in ``body``: a file's path, "event stream".
    package let bodyNote: String?
    /// When it was handed to the client; `nil`: at the lookup (the entry's date).
    package let date: Date?
}

extension RecordedRequest {
    /// What the client received, when the journal knows (a response was handed over), with what
    /// a body not kept in memory was (a file, an event stream), for the dashboard.
    package var servedResponseDetail: AdminServedResponse? {
        guard let served else { return nil }
        var body: Data?
        var note: String?
        switch served.body {
        case .none: break
        case .data(let data): body = data
        case .file(let url): note = "the file \(url.path)"
        case .events: note = "an event stream"
        }
        return AdminServedResponse(
            statusCode: served.statusCode,
            headers: served.headerFields.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { ($0.key, $0.value) },
            body: body, bodyNote: note, date: served.date)
    }
}

extension HTTPMock {
    /// The journal's newest entries with an identity above `id`, at most `limit` (the newest of
    /// them), oldest first; how many entries the journal holds; the identity of its oldest entry
    /// (`nil` when empty). Costs O(log n + limit): the journal is shared, not copied, and its
    /// identities increase.
    package func adminJournal(after id: Int, limit: Int) -> (entries: [RecordedRequest], total: Int, oldestID: Int?) {
        let journal = registry.journal
        let start = Self.firstIndex(in: journal, above: id)
        let from = max(start, journal.count - max(0, limit))
        return (Array(journal[from..<journal.count]), journal.count, journal.first?.id)
    }

    /// The entries whose identities `ids` lists (those still in the journal), in journal order.
    package func adminJournalEntries(_ ids: [Int]) -> [RecordedRequest] {
        let journal = registry.journal
        return ids.sorted().compactMap { id in
            let index = Self.firstIndex(in: journal, above: id - 1)
            return index < journal.count && journal[index].id == id ? journal[index] : nil
        }
    }

    /// The position of the first entry whose identity is above `id` (binary search).
    private static func firstIndex(in journal: Journal, above id: Int) -> Int {
        var low = 0
        var high = journal.count
        while low < high {
            let middle = (low + high) / 2
            if journal[middle].id <= id { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Every route's conditions, in registration order; `known` routes (by order) are left out,
    /// so a caller that keeps what it read asks only for new ones. The expected values of secret
    /// headers and query items are masked unless `revealSecrets` (``SecretMasking``).
    package func adminRouteConditions(except known: Set<Int> = [], revealSecrets: Bool) -> [AdminRouteConditions] {
        let routes = registry.state.withLock { $0.routes.routes }
        return routes.filter { !known.contains($0.order) }.map { route in
            let key = route.key
            return AdminRouteConditions(
                order: route.order, name: revealSecrets ? route.name : key.maskedDescription, method: key.method?.rawValue,
                host: key.host.description,
                path: key.path.description,
                query: revealSecrets ? key.declared?.query?.description : key.declared?.query?.maskedDescription,
                headers: revealSecrets ? key.declared?.headers?.description : key.declared?.headers?.maskedDescription,
                body: key.declared?.body?.description, scenario: key.scenario?.scenario, scenarioState: key.scenario?.state,
                hasPredicate: key.predicate != nil, priority: key.priority, location: route.location?.description)
        }
    }
}

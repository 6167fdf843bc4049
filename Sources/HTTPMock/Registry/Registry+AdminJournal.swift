import Foundation

// What the WireMock admin API reads and changes in the journal, at a cost that does
// not grow with the journal: entries are in arrival order and their IDs only grow, so the
// newest `limit` are the last `limit`, and an ID is found by binary search.

extension HTTPMock {
    /// The newest journal entries first: at most `limit` (`nil`: all), only those journaled at
    /// or after `since` (`nil`: any), each kept when `include` says so; and how many entries
    /// the journal holds. Reads `limit` entries (plus those `include` skips), never the whole
    /// journal: a client polling `GET /__admin/requests?limit=20` costs O(20) however long the
    /// journal is.
    package func adminNewestJournalEntries(
        limit: Int?, since: Date?, include: (RecordedRequest) -> Bool = { _ in true }
    ) -> (entries: [RecordedRequest], total: Int) {
        registry.state.withLock { state in
            let journal = state.journal
            var found: [RecordedRequest] = []
            if let limit { found.reserveCapacity(min(max(0, limit), journal.count)) }
            var position = journal.count - 1
            while position >= 0, found.count < (limit ?? Int.max) {
                let entry = journal[position]
                // Dates grow with positions (up to the clock reads of concurrent requests).
                if let since, entry.date < since { break }
                if include(entry) { found.append(entry) }
                position -= 1
            }
            return (found, journal.count)
        }
    }

    /// The journal entry whose ``RecordedRequest/journalID`` is `id`, found by binary search.
    package func adminJournalEntry(id: Int) -> RecordedRequest? {
        registry.state.withLock { state in
            state.journal.position(ofID: id).map { state.journal[$0] }
        }
    }

    /// Removes the journal entries whose ``RecordedRequest/journalID`` is in `ids` (and their
    /// unreported misses); returns the entries removed, oldest first.
    @discardableResult
    package func removeAdminJournalEntries(_ ids: Set<Int>) -> [RecordedRequest] {
        guard !ids.isEmpty else { return [] }
        let removed = registry.state.withLock { state -> [RecordedRequest] in
            var removed: [RecordedRequest] = []
            state.journal.removeAll { entry in
                guard ids.contains(entry.id) else { return false }
                removed.append(entry)
                return true
            }
            state.unreportedMisses.removeAll { ids.contains($0.id) }
            return removed
        }
        return removed
    }

    /// A random delay added to every `.instant` response's start, after ``defaultDelay``
    /// (WireMock's global `delayDistribution`); `nil`: none.
    package var adminRandomDelay: RandomDelay? {
        get { registry.settings.randomDelay }
        set { registry.updateSettings { $0.randomDelay = newValue } }
    }
}

extension Journal {
    /// The position of the entry whose ID is `id` (IDs grow with positions), or `nil`.
    func position(ofID id: Int) -> Int? {
        var low = 0
        var high = count - 1
        while low <= high {
            let middle = (low + high) / 2
            let found = self[middle].id
            if found == id { return middle }
            if found < id { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }
}

extension RecordedRequest {
    /// The entry's identity in its instance's journal: unique, and larger for later requests.
    package var journalID: Int { id }

    /// What the client received as far as the journal keeps it: status, header fields and an
    /// in-memory body (`nil` for a file, an event stream or none); `nil` when the journal holds
    /// no response (a failure, or an answer still in progress).
    package var servedResponse: (statusCode: Int, headers: [String: String], body: Data?, date: Date?)? {
        guard let served else { return nil }
        let body: Data? = if case .data(let data) = served.body { data } else { nil }
        return (served.statusCode, served.headerFields, body, served.date)
    }
}

/// A random delay drawn for each response (WireMock's `delayDistribution`).
package struct RandomDelay: Sendable, Equatable {
    package enum Distribution: Sendable, Equatable {
        /// Uniform between `lower` and `upper` seconds.
        case uniform(lower: TimeInterval, upper: TimeInterval)
        /// Log-normal with median `median` seconds and shape `sigma`.
        case lognormal(median: TimeInterval, sigma: Double)
    }

    let distribution: Distribution

    package init(_ distribution: Distribution) {
        self.distribution = distribution
    }

    /// One draw, in seconds, never negative.
    package func sample() -> TimeInterval {
        switch distribution {
        case .uniform(let lower, let upper):
            return upper > lower ? Double.random(in: lower...upper) : max(0, lower)
        case .lognormal(let median, let sigma):
            // Box-Muller: a standard normal draw from two uniform ones.
            let u1 = Double.random(in: Double.leastNonzeroMagnitude..<1)
            let u2 = Double.random(in: 0..<1)
            let normal = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
            let value = median * exp(sigma * normal)
            return value.isFinite ? max(0, value) : median
        }
    }
}

extension InstanceSettings {
    /// The delay before an `.instant` response: ``defaultDelay`` plus a draw of ``randomDelay``.
    var instantDelay: TimeInterval {
        guard let randomDelay else { return defaultDelay }
        return defaultDelay + randomDelay.sample()
    }
}

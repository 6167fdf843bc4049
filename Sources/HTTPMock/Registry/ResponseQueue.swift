/// FIFO queue of responses, each served as often as its `Lifetime` says.
struct ResponseQueue: Sendable {
    private var entries: [(response: MockResponse, remaining: Int?)] = []
    private var head = 0
    /// How many requests this queue has answered.
    private(set) var servedCount = 0

    var isEmpty: Bool { head == entries.count }

    mutating func append(_ response: MockResponse) {
        entries.append((response, response.lifetime.uses))
    }

    /// The next response, consuming one use of it. Served entries dropped by compaction are
    /// appended to `compacted`, for the caller to release outside its lock (they hold user
    /// closures, whose captured values' `deinit` may call back into the instance).
    mutating func pop(compacted: inout [MockResponse]) -> MockResponse? {
        guard head < entries.count else { return nil }
        servedCount += 1
        let response = entries[head].response
        if let remaining = entries[head].remaining {
            if remaining <= 1 {
                head += 1
                if head > 32, head * 2 > entries.count {
                    compacted += entries[..<head].map(\.response)
                    entries.removeFirst(head)
                    head = 0
                }
            } else {
                entries[head].remaining = remaining - 1
            }
        }
        return response
    }

    /// Responses not yet served (a `.multiple` response counts once).
    var pendingCount: Int { entries.count - head }

    /// Pending responses that are not `.eternal`: what `verify()` expects to be consumed.
    var pendingFiniteCount: Int { entries[head...].filter { $0.remaining != nil }.count }

    /// Whether a pending response is `.eternal`, so anything appended is unreachable.
    var endsWithEternal: Bool { entries[head...].contains { $0.remaining == nil } }
}

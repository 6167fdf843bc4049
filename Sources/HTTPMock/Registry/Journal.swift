/// The journal's entries, in arrival order, stored in chunks of fixed capacity.
///
/// An `Array` doubles and copies itself as it grows: over a long run every entry is moved into
/// fresh memory again and again, and the page faults of that memory were about a sixth of
/// HTTPMock's own samples in a profile (Benchmarks/README.md, "third round"). A chunk is allocated once
/// at its full capacity and an append never moves what is already journaled. Copies share the
/// chunks (copy-on-write), so taking a snapshot under the registry's lock costs one retain per
/// chunk array, and an append after a snapshot copies only the last chunk.
struct Journal: RandomAccessCollection, MutableCollection, Sendable {
    /// Entries per chunk: 256 × 80 bytes, small enough for malloc's heap rather than `mmap`.
    private static let chunkCapacity = 256

    private var chunks: [[RecordedRequest]] = []
    /// Entries at the start of the first chunk that were removed (``removeFirst(_:)``).
    private var head = 0
    private(set) var count = 0
    /// The bytes the entries hold beyond their fixed size (``RecordedRequest/journalBytes``),
    /// for ``HTTPMock/journalBytesLimit``.
    private(set) var bytes = 0

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> RecordedRequest {
        get {
            precondition(position >= 0 && position < count, "journal index \(position) out of 0..<\(count)")
            let slot = position + head
            return chunks[slot / Self.chunkCapacity][slot % Self.chunkCapacity]
        }
        set {
            precondition(position >= 0 && position < count, "journal index \(position) out of 0..<\(count)")
            let slot = position + head
            bytes += newValue.journalBytes - chunks[slot / Self.chunkCapacity][slot % Self.chunkCapacity].journalBytes
            chunks[slot / Self.chunkCapacity][slot % Self.chunkCapacity] = newValue
        }
    }

    mutating func append(_ entry: consuming RecordedRequest) {
        if (head + count) % Self.chunkCapacity == 0 {
            var chunk: [RecordedRequest] = []
            chunk.reserveCapacity(Self.chunkCapacity)
            chunks.append(chunk)
        }
        bytes += entry.journalBytes
        chunks[chunks.count - 1].append(entry)
        count += 1
    }

    /// Removes the `k` oldest entries; a chunk is freed once none of its entries is left.
    mutating func removeFirst(_ k: Int) {
        let k = Swift.min(Swift.max(0, k), count)
        for position in 0..<k { bytes -= self[position].journalBytes }
        head += k
        count -= k
        let freed = head / Self.chunkCapacity
        if freed > 0 {
            chunks.removeFirst(freed)
            head -= freed * Self.chunkCapacity
        }
    }

    /// Keeps the entries `shouldBeRemoved` rejects, in order.
    mutating func removeAll(where shouldBeRemoved: (RecordedRequest) throws -> Bool) rethrows {
        var kept = Journal()
        for entry in self where try !shouldBeRemoved(entry) { kept.append(entry) }
        self = kept
    }
}

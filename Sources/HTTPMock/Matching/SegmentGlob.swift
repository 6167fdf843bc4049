/// A `*` inside one path segment or host label, glob-style: `*.json`, `v*`, `api-*`, `*-*`.
///
/// Each `*` stands for any run of characters (possibly none) within the segment; it never
/// crosses a `/` (paths) or a `.` (hosts), because it is matched against one segment at a time.
/// Everything else is literal. Matching is linear in practice and at worst proportional to
/// the segment's length times the pattern's, with no allocation.
struct SegmentGlob: Hashable, Sendable {
    /// The literal pieces around the `*`s, decoded: `*.json` is `["", ".json"]`. At least two.
    let pieces: [String]

    init(pieces: [String]) {
        self.pieces = pieces
        self.bytes = pieces.map { Array($0.utf8) }
    }

    /// `pieces` as UTF-8, for matching without re-encoding.
    private let bytes: [[UInt8]]

    static func == (lhs: SegmentGlob, rhs: SegmentGlob) -> Bool { lhs.pieces == rhs.pieces }
    func hash(into hasher: inout Hasher) { hasher.combine(pieces) }

    /// Characters that are literal (they count for specificity).
    var literalCharacterCount: Int { pieces.reduce(0) { $0 + $1.count } }

    /// The pieces joined by `*` (a literal `*` in a piece is written `%2A`).
    var description: String {
        pieces.map { $0.replacingOccurrences(of: "*", with: "%2A") }.joined(separator: "*")
    }

    /// Whether `subject` (one whole segment or label) matches.
    func matches(_ subject: String) -> Bool {
        var subject = subject
        return subject.withUTF8 { matches(bytes: $0) }
    }

    func matches(_ subject: Substring) -> Bool {
        var subject = subject
        return subject.withUTF8 { matches(bytes: $0) }
    }

    /// Anchored first and last pieces, the middle ones found leftmost in order. Leftmost is
    /// enough: a later occurrence of a middle piece never leaves more room than an earlier one.
    private func matches(bytes subject: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last else { return false }
        guard subject.count >= first.count + last.count else { return false }
        guard Self.equal(subject, at: 0, first) else { return false }
        guard Self.equal(subject, at: subject.count - last.count, last) else { return false }
        var position = first.count
        let end = subject.count - last.count
        for piece in bytes.dropFirst().dropLast() where !piece.isEmpty {
            guard let found = Self.find(piece, in: subject, from: position, before: end) else { return false }
            position = found + piece.count
        }
        return true
    }

    private static func equal(_ subject: UnsafeBufferPointer<UInt8>, at offset: Int, _ piece: [UInt8]) -> Bool {
        var index = 0
        while index < piece.count {
            if subject[offset + index] != piece[index] { return false }
            index += 1
        }
        return true
    }

    /// The first offset ≥ `start` where `piece` lies entirely before `end`.
    private static func find(_ piece: [UInt8], in subject: UnsafeBufferPointer<UInt8>, from start: Int, before end: Int) -> Int? {
        var offset = start
        while offset + piece.count <= end {
            if equal(subject, at: offset, piece) { return offset }
            offset += 1
        }
        return nil
    }
}

/// How many requests one queued response answers before the next one in its queue is used.
///
/// ```swift
/// mock.addResponses(forPath: "/job", responses: [
///     .json(#"{"state":"running"}"#, lifetime: .multiple(2)),
///     .json(#"{"state":"done"}"#, lifetime: .eternal),   // polling: every later request
/// ])
/// ```
public struct Lifetime: Hashable, Sendable, CustomStringConvertible {
    /// `nil` means forever.
    let uses: Int?

    /// Serves one request, then leaves the queue. The default.
    public static let single = Lifetime(uses: 1)

    /// Serves `count` requests, then leaves the queue. `count` must be at least 1.
    public static func multiple(_ count: Int) -> Lifetime { Lifetime(uses: count) }

    /// Serves every request from now on; responses queued behind it are unreachable.
    public static let eternal = Lifetime(uses: nil)

    /// The lifetime as written in Swift (`.single`, `.multiple(3)`, `.eternal`).
    public var description: String {
        switch uses {
        case nil: return ".eternal"
        case 1?: return ".single"
        case let count?: return ".multiple(\(count))"
        }
    }
}

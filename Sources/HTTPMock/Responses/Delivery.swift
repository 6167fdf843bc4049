import Foundation

/// When and how fast a response reaches the client.
///
/// This release serves ``instant`` only; the timed deliveries are part of the public type
/// already so code written against them keeps compiling, and registering one today is
/// reported as an error at the registration site instead of being silently served instantly.
public struct Delivery: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case instant
        case delayed(TimeInterval)
        case throttled(bytesPerSecond: Int, delay: TimeInterval)
        case never
    }

    let kind: Kind

    /// Answer as soon as the request arrives. The default.
    public static let instant = Delivery(kind: .instant)

    /// Answer after `seconds`.
    public static func delayed(_ seconds: TimeInterval) -> Delivery { Delivery(kind: .delayed(seconds)) }

    /// Start after `delay`, then take as long as the body would take at `bytesPerSecond`.
    public static func throttled(bytesPerSecond: Int, delay: TimeInterval = 0) -> Delivery {
        Delivery(kind: .throttled(bytesPerSecond: bytesPerSecond, delay: delay))
    }

    /// Never answer: the request waits until it times out or is cancelled.
    public static let never = Delivery(kind: .never)

    public var description: String {
        switch kind {
        case .instant: return ".instant"
        case .delayed(let seconds): return ".delayed(\(seconds))"
        case .throttled(let rate, let delay): return ".throttled(bytesPerSecond: \(rate), delay: \(delay))"
        case .never: return ".never"
        }
    }
}

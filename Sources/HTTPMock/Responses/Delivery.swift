import Foundation

/// When and how fast a response reaches the client.
///
/// ```swift
/// .plaintext("slow", delivery: .delayed(0.5))
/// .file(url: video, delivery: .throttled(bytesPerSecond: 64_000))
/// .empty(delivery: .never)   // the request waits until it times out or is cancelled
/// .plaintext("done", delivery: .held(gate))   // waits until the test calls gate.release()
/// ```
///
/// Delegate-driven tasks receive a throttled body in chunks at that pace; async and
/// completion-handler tasks, which keep only the last chunk on Linux, receive it whole when
/// its time is up. ``HTTPMock/defaultDelay`` applies to `.instant` responses only.
public struct Delivery: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case instant
        case delayed(TimeInterval)
        case throttled(bytesPerSecond: Int, delay: TimeInterval)
        case never
        case held(ResponseGate)
    }

    let kind: Kind

    /// Answer as soon as the request arrives. The default.
    public static let instant = Delivery(kind: .instant)

    /// Answer after `seconds` (must be ≥ 0).
    public static func delayed(_ seconds: TimeInterval) -> Delivery { Delivery(kind: .delayed(seconds)) }

    /// Start after `delay`, then take as long as the body would take at `bytesPerSecond`
    /// (must be > 0).
    public static func throttled(bytesPerSecond: Int, delay: TimeInterval = 0) -> Delivery {
        Delivery(kind: .throttled(bytesPerSecond: bytesPerSecond, delay: delay))
    }

    /// Never answer: the request waits until it times out or is cancelled.
    public static let never = Delivery(kind: .never)

    /// Answer when the test calls `gate.release()` (at once if it already did).
    ///
    /// ```swift
    /// let gate = ResponseGate()
    /// mock.addResponses(forPath: "/slow", responses: [.plaintext("done", delivery: .held(gate))])
    /// // … assert the loading state …
    /// gate.release()
    /// ```
    ///
    /// The request is journaled when it arrives, so ``HTTPMock/waitForRequest(to:method:timeout:)``
    /// returns while it is held. A held request still times out (`URLError(.timedOut)`) and can be
    /// cancelled; releasing the gate afterwards delivers nothing to it.
    ///
    /// - Parameter gate: The gate; one gate may hold many responses.
    public static func held(_ gate: ResponseGate) -> Delivery { Delivery(kind: .held(gate)) }

    /// Seconds before the response starts, `nil` for `.instant` (where `defaultDelay`
    /// applies) and `.never`.
    var startDelay: TimeInterval? {
        switch kind {
        case .instant, .never, .held: return nil
        case .delayed(let seconds): return seconds
        case .throttled(_, let delay): return delay
        }
    }

    /// A problem with the values, for registration.
    var problem: String? {
        switch kind {
        case .instant, .never, .held: return nil
        case .delayed(let seconds):
            return seconds >= 0 && seconds.isFinite ? nil : "delivery \(self): the delay must be a finite number of seconds ≥ 0"
        case .throttled(let rate, let delay):
            if rate <= 0 { return "delivery \(self): bytesPerSecond must be > 0" }
            return delay >= 0 && delay.isFinite ? nil : "delivery \(self): the delay must be a finite number of seconds ≥ 0"
        }
    }

    /// The delivery as written in Swift (`.delayed(0.5)`).
    public var description: String {
        switch kind {
        case .instant: return ".instant"
        case .delayed(let seconds): return ".delayed(\(seconds))"
        case .throttled(let rate, let delay): return ".throttled(bytesPerSecond: \(rate), delay: \(delay))"
        case .never: return ".never"
        case .held(let gate): return ".held(\(gate))"
        }
    }
}

import Foundation

/// Seconds turned into the whole nanoseconds a sleep, a timer or a NIO `TimeAmount` takes.
///
/// A finite but huge value (`.delayed(1e11)`, a HAR entry's `"time": 1e300`, an idle timeout
/// of `1e10` s) traps in `UInt64(seconds * 1e9)` or `Int64(…)`; every conversion of a user's
/// seconds goes through here instead and saturates at ``maximumSeconds`` (a year: as good as
/// for ever for a mock, and far below what any clock or deadline type can hold). Negative and
/// NaN values are no wait at all (registration refuses them before they get here).
package enum WaitTime {
    /// The longest wait a conversion gives: 365 days.
    static let maximumSeconds: TimeInterval = 365 * 86_400

    /// `seconds` clamped to `0...maximumSeconds`, in nanoseconds.
    package static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        guard seconds > 0 else { return 0 }  // NaN too
        return UInt64(min(seconds, maximumSeconds) * 1_000_000_000)
    }

    /// Sleeps `seconds` (clamped as ``nanoseconds(_:)``); throws when the task is cancelled.
    package static func sleep(_ seconds: TimeInterval) async throws {
        try await Task.sleep(nanoseconds: nanoseconds(seconds))
    }
}

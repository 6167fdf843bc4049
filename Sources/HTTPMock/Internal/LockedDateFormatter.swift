import Foundation

/// A `DateFormatter` for one pattern and zone, built once and used under a lock: it is not
/// thread-safe, and building one costs about 0.4 ms on Linux, more than the request or render
/// that needs it. `en_US_POSIX`, the Gregorian calendar. ICU names UTC `GMT` where Java's `z`
/// says `UTC`: ``string(from:)`` writes it as Java does.
package final class LockedDateFormatter: Sendable {
    private let formatter: Locked<DateFormatter>
    private let namesUTC: Bool

    package init(pattern: String, zone: TimeZone) {
        namesUTC = zone.secondsFromGMT() == 0 && ["UTC", "GMT", "Etc/UTC"].contains(zone.identifier) && Self.hasZoneName(pattern)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = zone
        formatter.dateFormat = pattern
        self.formatter = Locked(formatter)
    }

    package func string(from date: Date) -> String {
        let text = formatter.withLock { $0.string(from: date) }
        return namesUTC ? text.replacingOccurrences(of: "GMT", with: "UTC") : text
    }

    package func date(from text: String) -> Date? { formatter.withLock { $0.date(from: text) } }

    /// Whether `pattern` has a `z` outside quotes.
    static func hasZoneName(_ pattern: String) -> Bool {
        var quoted = false
        for character in pattern {
            if character == "'" { quoted.toggle() } else if character == "z", !quoted { return true }
        }
        return false
    }

    /// RFC 1123 dates (`Sun, 29 Nov 2026 12:00:00 GMT`), as HTTP writes them: the second guess of
    /// WireMock's date matchers and of its `parseDate` helper.
    package static let rfc1123 = LockedDateFormatter(
        pattern: "EEE, dd MMM yyyy HH:mm:ss zzz", zone: TimeZone(identifier: "GMT") ?? TimeZone(secondsFromGMT: 0) ?? .current)
}

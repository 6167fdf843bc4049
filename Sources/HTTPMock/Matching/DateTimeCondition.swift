import Foundation

/// WireMock's date matchers, `before`, `after` and `equalToDateTime`, as WireMock 2.35 reads
/// them (checked against its jar):
///
/// - The expected moment is an ISO 8601 date-time (`2021-06-14T12:00:00Z`, with an offset, or
///   local), or `now` with an optional offset (`now +3 days`, `now -5 years`), moved by
///   `expectedOffset` × `expectedOffsetUnit` (`seconds` … `years`) and truncated by
///   `truncateExpected` (`first minute of hour`, `first hour of day`, `first day of month`,
///   `first day of next month`, `last day of month`, `first day of year`, `first day of next
///   year`, `last day of year`).
/// - The actual value is read with `actualFormat` (a Java `DateTimeFormatter` pattern such as
///   `dd/MM/yyyy`, or `unix` seconds, or `epoch` milliseconds), else as ISO 8601 (a zoned or
///   local date-time, or a date) or RFC 1123 (`Mon, 14 Jun 2021 12:13:14 GMT`); then truncated
///   by `truncateActual`. A date-time without an offset is read as UTC.
/// - A value that does not parse, or a missing one, does not match.
package struct DateTimeCondition: Sendable, CustomStringConvertible {
    package enum Relation: String, Sendable {
        case before, after
        case equalTo = "equalToDateTime"
    }

    package enum Unit: String, Sendable, CaseIterable {
        case seconds, minutes, hours, days, weeks, months, years

        var component: Calendar.Component {
            switch self {
            case .seconds: return .second
            case .minutes: return .minute
            case .hours: return .hour
            case .days: return .day
            case .weeks: return .weekOfYear
            case .months: return .month
            case .years: return .year
            }
        }
    }

    package enum Truncation: String, Sendable, CaseIterable {
        case firstMinuteOfHour = "first minute of hour"
        case firstHourOfDay = "first hour of day"
        case firstDayOfMonth = "first day of month"
        case firstDayOfNextMonth = "first day of next month"
        case lastDayOfMonth = "last day of month"
        case firstDayOfYear = "first day of year"
        case firstDayOfNextYear = "first day of next year"
        case lastDayOfYear = "last day of year"
    }

    /// The expected moment: fixed, or `now` plus an offset (evaluated per request).
    enum Expected: Sendable {
        case fixed(Date)
        case now(amount: Int, unit: Unit)
    }

    let relation: Relation
    let expected: Expected
    let expectedText: String
    let offset: (amount: Int, unit: Unit)?
    let truncateExpected: Truncation?
    let truncateActual: Truncation?
    let actualFormat: String?
    /// `actualFormat`'s formatter, built once with the condition rather than per request.
    private let actualFormatter: LockedDateFormatter?

    /// - Throws: a message naming what could not be read.
    package init(
        relation: Relation, expected: String, actualFormat: String? = nil, offset: (amount: Int, unit: Unit)? = nil,
        truncateExpected: Truncation? = nil, truncateActual: Truncation? = nil
    ) throws(PatternError) {
        self.relation = relation
        self.expectedText = expected
        self.actualFormat = actualFormat
        self.offset = offset
        self.truncateExpected = truncateExpected
        self.truncateActual = truncateActual
        let trimmed = expected.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased().hasPrefix("now") {
            let rest = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces)
            if rest.isEmpty {
                self.expected = .now(amount: 0, unit: .seconds)
            } else {
                let parts = rest.replacingOccurrences(of: "+", with: "+ ").replacingOccurrences(of: "-", with: "- ")
                    .split(separator: " ", omittingEmptySubsequences: true)
                guard parts.count == 3, let amount = Int(parts[1]), let unit = Self.unit(String(parts[2])) else {
                    throw PatternError(
                        "\(relation.rawValue) \"\(expected)\": write now, or now +3 days (seconds, minutes, hours, days, months, years)")
                }
                self.expected = .now(amount: parts[0] == "-" ? -amount : amount, unit: unit)
            }
        } else {
            guard let date = Self.parseISO(trimmed) else {
                throw PatternError(
                    "\(relation.rawValue) \"\(expected)\" is not an ISO 8601 date-time (2021-06-14T12:00:00Z) or now +N units")
            }
            self.expected = .fixed(date)
        }
        if let actualFormat, actualFormat != "unix", actualFormat != "epoch", actualFormat.isEmpty {
            throw PatternError("actualFormat is empty")
        }
        if let actualFormat, actualFormat != "unix", actualFormat != "epoch" {
            actualFormatter = LockedDateFormatter(
                pattern: Self.icuPattern(fromJava: actualFormat),
                zone: TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current)
        } else {
            actualFormatter = nil
        }
    }

    /// `days`, `day`, `DAYS`: a unit name as WireMock accepts it.
    package static func unit(_ name: String) -> Unit? {
        var lower = name.lowercased()
        if !lower.hasSuffix("s") { lower += "s" }
        return Unit(rawValue: lower)
    }

    package var description: String {
        var text = "\(relation.rawValue) \(expectedText)"
        if let offset { text += " \(offset.amount >= 0 ? "+" : "")\(offset.amount) \(offset.unit.rawValue)" }
        if let actualFormat { text += " (actualFormat \(actualFormat))" }
        if let truncateExpected { text += " (truncateExpected \(truncateExpected.rawValue))" }
        if let truncateActual { text += " (truncateActual \(truncateActual.rawValue))" }
        return text
    }

    func matches(_ value: String?) -> Bool {
        guard let value, let actual = parseActual(value) else { return false }
        let wanted = expectedDate(now: Date())
        let truncatedActual = truncateActual.map { Self.truncate(actual, $0) } ?? actual
        switch relation {
        case .before: return truncatedActual < wanted
        case .after: return truncatedActual > wanted
        case .equalTo: return truncatedActual == wanted
        }
    }

    /// The expected moment for a request at `now`.
    func expectedDate(now: Date) -> Date {
        var date: Date
        switch expected {
        case .fixed(let fixed): date = fixed
        case .now(let amount, let unit): date = Self.calendar.date(byAdding: unit.component, value: amount, to: now) ?? now
        }
        if let offset { date = Self.calendar.date(byAdding: offset.unit.component, value: offset.amount, to: date) ?? date }
        if let truncateExpected { date = Self.truncate(date, truncateExpected) }
        return date
    }

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }()

    static func truncate(_ date: Date, _ truncation: Truncation) -> Date {
        let calendar = Self.calendar
        var parts = calendar.dateComponents([.year, .month, .day, .hour], from: date)
        switch truncation {
        case .firstMinuteOfHour:
            break
        case .firstHourOfDay:
            parts.hour = 0
        case .firstDayOfMonth, .firstDayOfNextMonth, .lastDayOfMonth:
            parts.day = 1
            parts.hour = 0
        case .firstDayOfYear, .firstDayOfNextYear, .lastDayOfYear:
            parts.month = 1
            parts.day = 1
            parts.hour = 0
        }
        let start = calendar.date(from: parts) ?? date
        switch truncation {
        case .firstDayOfNextMonth: return calendar.date(byAdding: .month, value: 1, to: start) ?? start
        case .lastDayOfMonth:
            return calendar.date(byAdding: .day, value: -1, to: calendar.date(byAdding: .month, value: 1, to: start) ?? start) ?? start
        case .firstDayOfNextYear: return calendar.date(byAdding: .year, value: 1, to: start) ?? start
        case .lastDayOfYear:
            return calendar.date(byAdding: .day, value: -1, to: calendar.date(byAdding: .year, value: 1, to: start) ?? start) ?? start
        default: return start
        }
    }

    private func parseActual(_ value: String) -> Date? {
        let text = value.trimmingCharacters(in: .whitespaces)
        switch actualFormat {
        case "unix": return Double(text).map { Date(timeIntervalSince1970: $0) }
        case "epoch": return Double(text).map { Date(timeIntervalSince1970: $0 / 1000) }
        case .some:
            return actualFormatter?.date(from: text)
        case nil:
            return Self.parseISO(text) ?? Self.parseRFC1123(text)
        }
    }

    /// Java `DateTimeFormatter` letters that ICU reads otherwise: `u` (year) becomes `y`.
    static func icuPattern(fromJava pattern: String) -> String {
        var result = ""
        var quoted = false
        for character in pattern {
            if character == "'" { quoted.toggle() }
            result.append(!quoted && character == "u" ? "y" : character)
        }
        return result
    }

    /// `yyyy-MM-dd`, optionally `THH:mm[:ss[.fraction]]`, optionally `Z` or `±HH:MM` (else UTC).
    static func parseISO(_ text: String) -> Date? {
        let scalars = Array(text.utf8)
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= scalars.count else { return nil }
            var value = 0
            for byte in scalars[index..<(index + count)] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += count
            return value
        }
        func take(_ byte: UInt8) -> Bool {
            guard index < scalars.count, scalars[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), take(UInt8(ascii: "-")), let month = digits(2), take(UInt8(ascii: "-")), let day = digits(2) else {
            return nil
        }
        var parts = DateComponents(year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
        var nanoseconds = 0
        var offsetSeconds = 0
        if take(UInt8(ascii: "T")) || take(UInt8(ascii: " ")) {
            guard let hour = digits(2), take(UInt8(ascii: ":")), let minute = digits(2) else { return nil }
            parts.hour = hour
            parts.minute = minute
            if take(UInt8(ascii: ":")) {
                guard let second = digits(2) else { return nil }
                parts.second = second
                if take(UInt8(ascii: ".")) || take(UInt8(ascii: ",")) {
                    var fraction = 0
                    var count = 0
                    while index < scalars.count, scalars[index] >= 48, scalars[index] <= 57 {
                        if count < 9 { fraction = fraction * 10 + Int(scalars[index] - 48) }
                        count += 1
                        index += 1
                    }
                    guard count > 0 else { return nil }
                    if count < 9 { for _ in count..<9 { fraction *= 10 } }
                    nanoseconds = fraction
                }
            }
            if take(UInt8(ascii: "Z")) || take(UInt8(ascii: "z")) {
                offsetSeconds = 0
            } else if index < scalars.count, scalars[index] == UInt8(ascii: "+") || scalars[index] == UInt8(ascii: "-") {
                let sign = scalars[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard let hours = digits(2) else { return nil }
                _ = take(UInt8(ascii: ":"))
                let minutes = digits(2) ?? 0
                offsetSeconds = sign * (hours * 3600 + minutes * 60)
            }
            // A zone name in brackets (`[Europe/Paris]`), as Java writes zoned date-times, is ignored.
            if take(UInt8(ascii: "[")) {
                while index < scalars.count, scalars[index] != UInt8(ascii: "]") { index += 1 }
                _ = take(UInt8(ascii: "]"))
            }
        }
        guard index == scalars.count, let base = calendar.date(from: parts) else { return nil }
        // Calendar rolls 2021-02-30 over into March: such a date is not one.
        let check = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: base)
        guard check.year == year, check.month == month, check.day == day, check.hour == parts.hour, check.minute == parts.minute
        else { return nil }
        return base.addingTimeInterval(TimeInterval(-offsetSeconds) + TimeInterval(nanoseconds) / 1e9)
    }

    static func parseRFC1123(_ text: String) -> Date? {
        LockedDateFormatter.rfc1123.date(from: text)
    }
}

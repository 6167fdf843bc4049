#if Server
import Foundation
import HTTPMock
import NIOConcurrencyHelpers

// `now`, `date` and `parseDate`. Compared with WireMock 2.35.1 (a fixed clock in our tests):
//   {{now}} → 2026-11-26T21:19:56Z (seconds, Z in UTC)   {{now format='yyyy-MM-dd'}} → 2026-11-26
//   {{now offset='3 days' format='yyyy-MM-dd HH:mm'}} → three days on   {{now offset='now +5 years'}}
//   {{now timezone='Australia/Sydney' format='HH:mm Z'}} → 08:19 +1100
//   {{now timezone='Europe/Paris'}} → 2026-11-26T22:28:29+01:00
//   {{now format='epoch'}} → milliseconds   {{now format='unix'}} → seconds
//   {{parseDate '2021-03-04T05:06:07+02:00'}} → 2021-03-04T05:06:07+02:00 (its offset kept)
//   {{parseDate '04/03/2021' format='dd/MM/yyyy'}} → 2021-03-04T00:00:00Z
//   {{date (parseDate '2021-03-04T05:06:07Z') offset='-1 days' format='yyyy-MM-dd'}} → 2021-03-03
// Offsets are `<amount> <unit>` with seconds, minutes, hours, days, months or years (WireMock's
// units; `weeks` is refused as WireMock refuses it). Differences: `date` honours `timezone=`
// (2.35.1 ignores it for a parsed date), and an unknown `timezone=`, a malformed `offset=`
// written as literals are errors at registration, not 500s per request.

extension WireMockTemplating {
    var dateHelpers: [String: TemplateHelper] {
        let clock = clock
        return [
            "now": TemplateHelper(
                prepare: { site throws(TemplateHelperError) in try Self.prepareDate(site, zoneKnown: true) },
                call: { call throws(TemplateHelperError) in try Self.renderDate(clock(), zone: nil, call) }),
            "date": TemplateHelper(
                prepare: { site throws(TemplateHelperError) in try Self.prepareDate(site, zoneKnown: false) },
                call: { call throws(TemplateHelperError) in
                    if case .date(let date, let zone)? = call.argument(0) { return try Self.renderDate(date, zone: zone, call) }
                    return try Self.renderDate(clock(), zone: nil, call)
                }),
            "parseDate": TemplateHelper { call throws(TemplateHelperError) in
                guard let text = call.argument(0)?.helperText else { return .null }
                return Self.parseDate(text, format: call.hash("format")?.helperText) ?? .null
            },
        ]
    }

    /// What a `now`/`date` call site fixes once: its offset, time zone and formatter.
    struct DateSite: Sendable {
        var offset: DateOffset?
        var zone: TimeZone?
        var formatter: LockedFormatter?
    }

    /// A `DateFormatter` for one pattern and zone, used under a lock (it is not thread-safe).
    final class LockedFormatter: Sendable {
        private let formatter: NIOLockedValueBox<DateFormatter>
        /// ICU names UTC `GMT` where Java's `z` says `UTC`.
        private let namesUTC: Bool
        init(pattern: String, zone: TimeZone) {
            namesUTC = zone.secondsFromGMT() == 0 && ["UTC", "GMT", "Etc/UTC"].contains(zone.identifier) && Self.hasZoneName(pattern)
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.calendar = Calendar(identifier: .gregorian)
            formatter.timeZone = zone
            formatter.dateFormat = pattern
            self.formatter = NIOLockedValueBox(formatter)
        }
        func string(from date: Date) -> String {
            let text = formatter.withLockedValue { $0.string(from: date) }
            return namesUTC ? text.replacingOccurrences(of: "GMT", with: "UTC") : text
        }

        /// Whether `pattern` has a `z` outside quotes.
        static func hasZoneName(_ pattern: String) -> Bool {
            var quoted = false
            for character in pattern {
                if character == "'" { quoted.toggle() } else if character == "z", !quoted { return true }
            }
            return false
        }
        func date(from text: String) -> Date? { formatter.withLockedValue { $0.date(from: text) } }
    }

    /// `zoneKnown`: without `timezone=` the zone is UTC (`now`); else it is the date's own.
    static func prepareDate(_ site: TemplateHelperSite, zoneKnown: Bool) throws(TemplateHelperError) -> (any Sendable)? {
        var prepared = DateSite()
        if let offset = site.literal("offset") { prepared.offset = try DateOffset(offset.helperText) }
        if let zone = site.literal("timezone") { prepared.zone = try timeZone(zone.helperText) }
        let zoneIsFixed = prepared.zone != nil || (zoneKnown && !site.has("timezone"))
        if let format = site.literal("format")?.helperText, !["epoch", "unix"].contains(format), zoneIsFixed {
            prepared.formatter = LockedFormatter(pattern: format, zone: prepared.zone ?? utc)
        }
        return prepared
    }

    static let utc = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current

    static func timeZone(_ identifier: String) throws(TemplateHelperError) -> TimeZone {
        guard let zone = TimeZone(identifier: identifier) else { throw TemplateHelperError("unknown time zone \(identifier)") }
        return zone
    }

    /// `date` shifted by `offset=`, written as `format=` says (ISO 8601 by default) in
    /// `timezone=` (the date's own zone by default, UTC for `now`).
    static func renderDate(
        _ date: Date, zone dateZone: TimeZone?, _ call: TemplateHelperCall
    ) throws(TemplateHelperError)
        -> TemplateValue
    {
        let site = call.prepared as? DateSite ?? DateSite()
        var shifted = date
        if let offset = site.offset {
            shifted = offset.shift(date)
        } else if let text = call.hash("offset") {
            shifted = try DateOffset(text.helperText).shift(date)
        }
        var zone = site.zone
        if zone == nil, let given = call.hash("timezone") { zone = try timeZone(given.helperText) }
        switch call.hash("format")?.helperText {
        case nil:
            return .date(shifted, zone ?? dateZone ?? utc)
        case "epoch":
            return .integer(Int((shifted.timeIntervalSince1970 * 1000).rounded(.down)))
        case "unix":
            return .integer(Int(shifted.timeIntervalSince1970.rounded(.down)))
        case let pattern?:
            let formatter = site.formatter ?? LockedFormatter(pattern: pattern, zone: zone ?? dateZone ?? utc)
            return .string(formatter.string(from: shifted))
        }
    }

    /// `text` as a date: `format=` a Java pattern, `epoch` (milliseconds) or `unix` (seconds);
    /// without one, ISO 8601 (its offset kept) or RFC 1123. `nil` when it does not read.
    static func parseDate(_ text: String, format: String?) -> TemplateValue? {
        switch format {
        case "epoch":
            return Double(text).map { .date(Date(timeIntervalSince1970: $0 / 1000), utc) }
        case "unix":
            return Double(text).map { .date(Date(timeIntervalSince1970: $0), utc) }
        case let pattern?:
            return LockedFormatter(pattern: pattern, zone: utc).date(from: text).map { .date($0, utc) }
        case nil:
            if let (date, zone) = iso8601(text) { return .date(date, zone) }
            return LockedFormatter(pattern: "EEE, dd MMM yyyy HH:mm:ss zzz", zone: utc).date(from: text).map { .date($0, utc) }
        }
    }

    /// `yyyy-MM-ddTHH:mm:ss[.fraction](Z|±hh:mm|±hhmm)`.
    static func iso8601(_ text: String) -> (Date, TimeZone)? {
        let scalars = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= scalars.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let byte = scalars[index]
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
                index += 1
            }
            return value
        }
        func expect(_ character: UInt8) -> Bool {
            guard index < scalars.count, scalars[index] == character else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(45), let month = number(2), expect(45), let day = number(2),
            expect(84) || expect(116), let hour = number(2), expect(58), let minute = number(2), expect(58),
            let second = number(2)
        else { return nil }
        var fraction = 0.0
        if expect(46) {
            var scale = 0.1
            while index < scalars.count, scalars[index] >= 48, scalars[index] <= 57 {
                fraction += Double(scalars[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        var offset = 0
        if expect(90) {
            offset = 0
        } else if index < scalars.count, scalars[index] == 43 || scalars[index] == 45 {
            let sign = scalars[index] == 45 ? -1 : 1
            index += 1
            guard let hours = number(2) else { return nil }
            _ = expect(58)
            guard let minutes = number(2) else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard index == scalars.count, let zone = offset == 0 ? utc : TimeZone(secondsFromGMT: offset) else { return nil }
        var components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        components.timeZone = TimeZone(secondsFromGMT: offset)
        guard let date = Calendar(identifier: .gregorian).date(from: components) else { return nil }
        return (date.addingTimeInterval(fraction), zone)
    }
}

/// WireMock's date offset: `3 days`, `-1 months`, `now +5 years`.
struct DateOffset: Sendable {
    let amount: Int
    let component: Calendar.Component

    static let units: [String: Calendar.Component] = [
        "seconds": .second, "minutes": .minute, "hours": .hour, "days": .day, "months": .month, "years": .year,
    ]

    init(_ text: String) throws(TemplateHelperError) {
        var words = text.split(separator: " ").map(String.init)
        if words.first?.lowercased() == "now" { words.removeFirst() }
        guard words.count == 2, let amount = Int(words[0].hasPrefix("+") ? String(words[0].dropFirst()) : words[0]),
            let component = Self.units[words[1].lowercased()]
        else {
            throw TemplateHelperError(
                "offset must be <amount> <unit> (seconds, minutes, hours, days, months, years) like 8 seconds or now +5 years, got \(text)")
        }
        self.amount = amount
        self.component = component
    }

    func shift(_ date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = WireMockTemplating.utc
        return calendar.date(byAdding: component, value: amount, to: date) ?? date
    }
}
#endif

#if Server
import Foundation
import HTTPMock

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
            "parseDate": TemplateHelper(
                prepare: { site throws(TemplateHelperError) in
                    // A literal pattern's formatter is built once, for the call site.
                    guard let format = site.literal("format")?.helperText, !["epoch", "unix"].contains(format) else { return nil }
                    return LockedDateFormatter(pattern: format, zone: Self.utc)
                },
                call: { call throws(TemplateHelperError) in
                    guard let text = call.argument(0)?.helperText else { return .null }
                    return try Self.parseDate(
                        text, format: call.hash("format")?.helperText, formatter: call.prepared as? LockedDateFormatter) ?? .null
                }),
        ]
    }

    /// What a `now`/`date` call site fixes once: its offset, time zone and formatter.
    struct DateSite: Sendable {
        var offset: DateOffset?
        var zone: TimeZone?
        var formatter: LockedDateFormatter?
    }

    /// `zoneKnown`: without `timezone=` the zone is UTC (`now`); else it is the date's own.
    static func prepareDate(_ site: TemplateHelperSite, zoneKnown: Bool) throws(TemplateHelperError) -> (any Sendable)? {
        var prepared = DateSite()
        if let offset = site.literal("offset") { prepared.offset = try DateOffset(offset.helperText) }
        if let zone = site.literal("timezone") { prepared.zone = try timeZone(zone.helperText) }
        let zoneIsFixed = prepared.zone != nil || (zoneKnown && !site.has("timezone"))
        if let format = site.literal("format")?.helperText, !["epoch", "unix"].contains(format), zoneIsFixed {
            prepared.formatter = LockedDateFormatter(pattern: format, zone: prepared.zone ?? utc)
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
            shifted = try offset.shift(date)
        } else if let text = call.hash("offset") {
            shifted = try DateOffset(text.helperText).shift(date)
        }
        var zone = site.zone
        if zone == nil, let given = call.hash("timezone") { zone = try timeZone(given.helperText) }
        switch call.hash("format")?.helperText {
        case nil:
            return .date(shifted, zone ?? dateZone ?? utc)
        case "epoch":
            return .integer(try Self.whole(shifted.timeIntervalSince1970 * 1000, "milliseconds"))
        case "unix":
            return .integer(try Self.whole(shifted.timeIntervalSince1970, "seconds"))
        case let pattern?:
            let formatter = site.formatter ?? LockedDateFormatter(pattern: pattern, zone: zone ?? dateZone ?? utc)
            return .string(formatter.string(from: shifted))
        }
    }

    /// The instants a template may make: about Java's `Instant.MIN` … `Instant.MAX` (years
    /// −1,000,000,000 … 1,000,000,000), in seconds since 1970. A date outside (a huge epoch, an
    /// offset of 2,000,000,000 years) is an error answered 500, as WireMock answers it.
    static let instantRange: ClosedRange<Double> = -31_557_014_167_219_200...31_556_889_864_403_200

    /// `date` when it lies in ``instantRange``; an error naming what made it otherwise.
    static func checked(_ seconds: Double, _ what: @autoclosure () -> String) throws(TemplateHelperError) -> Date {
        guard instantRange.contains(seconds) else {
            throw TemplateHelperError("\(what()) is not a date between the years -1000000000 and 1000000000")
        }
        return Date(timeIntervalSince1970: seconds)
    }

    /// `value` rounded down as a whole number of `unit`, or an error where it has none (Java's
    /// `toEpochMilli` overflows past ±292 million years).
    static func whole(_ value: Double, _ unit: String) throws(TemplateHelperError) -> Int {
        guard let whole = Int(exactly: value.rounded(.down)) else {
            throw TemplateHelperError("the date is beyond what a whole number of \(unit) since 1970 can hold")
        }
        return whole
    }

    /// `text` as a date: `format=` a Java pattern, `epoch` (milliseconds) or `unix` (seconds),
    /// each a whole number as WireMock reads them (`Long.parseLong`); without one, ISO 8601
    /// (its offset kept) or RFC 1123. `nil` when it does not read; an error for an epoch that
    /// is not a whole number or lies outside ``instantRange``.
    static func parseDate(
        _ text: String, format: String?, formatter prepared: LockedDateFormatter? = nil
    ) throws(TemplateHelperError) -> TemplateValue? {
        switch format {
        case "epoch", "unix":
            guard let number = Int64(text) else {
                throw TemplateHelperError(
                    "parseDate format='\(format ?? "")' needs a whole number, got \(text.prefix(60).debugDescription)")
            }
            let seconds = format == "epoch" ? Double(number) / 1000 : Double(number)
            return .date(try checked(seconds, "parseDate \(text) (format='\(format ?? "")')"), utc)
        case let pattern?:
            let formatter = prepared ?? LockedDateFormatter(pattern: pattern, zone: utc)
            guard let date = formatter.date(from: text) else { return nil }
            return .date(try checked(date.timeIntervalSince1970, "parseDate \(text.prefix(60))"), utc)
        case nil:
            if let (date, zone) = iso8601(text) { return .date(date, zone) }
            guard let date = LockedDateFormatter.rfc1123.date(from: text) else { return nil }
            return .date(try checked(date.timeIntervalSince1970, "parseDate \(text.prefix(60))"), utc)
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

    /// The longest each unit can be, in seconds: enough to tell, before the calendar computes
    /// it, that a shift leaves ``WireMockTemplating/instantRange`` (the calendar traps there).
    static let longest: [Calendar.Component: Double] = [
        .second: 1, .minute: 60, .hour: 3_600, .day: 86_400, .month: 2_678_400, .year: 31_622_400,
    ]

    func shift(_ date: Date) throws(TemplateHelperError) -> Date {
        let estimate = date.timeIntervalSince1970 + Double(amount) * (Self.longest[component] ?? 31_622_400)
        _ = try WireMockTemplating.checked(estimate, "offset '\(amount) \(component)' from \(date)")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = WireMockTemplating.utc
        guard let shifted = calendar.date(byAdding: component, value: amount, to: date) else {
            throw TemplateHelperError("offset '\(amount) \(component)' from \(date) is not a date")
        }
        return try WireMockTemplating.checked(shifted.timeIntervalSince1970, "offset '\(amount) \(component)' from \(date)")
    }
}
#endif

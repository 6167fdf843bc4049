import Foundation

/// A value a template reads or a helper returns: JSON (the store, a request body), or what a
/// dialect provides (WireMock's request model, dates, multi-valued query items).
package enum TemplateValue: Sendable {
    case null
    case bool(Bool)
    case integer(Int)
    case double(Double)
    case string(String)
    /// A list a helper made (`join`'s items, `regexExtract`'s groups).
    case array([TemplateValue])
    /// Members by name, in order (WireMock's request model, `formData`).
    case object(any TemplateObject)
    /// JSON as parsed, wrapped without copying (the store, a request body).
    case json(JSONValue)
    /// JSON in document order (`jsonPath` results): lists render as compact JSON, objects as
    /// Jackson's pretty printer writes them, as WireMock shows them.
    case ordered(OrderedJSON)
    /// An instant, shown in `timeZone` (`now`, `parseDate`).
    case date(Date, TimeZone)
    /// One or more values that render as the first (WireMock's `ListOrSingle`: a query item,
    /// a header); `.[n]` picks one, `#each` and `size` see them all.
    case listOrSingle([TemplateValue])
    /// Text whose `.[n]` are its parts (WireMock's `request.path` and its segments).
    case segmented(String, [TemplateValue])

    /// The member `name`: an object's key, or a list's element when `name` is an index.
    package func member(_ name: String) -> TemplateValue? {
        switch self {
        case .object(let object):
            return object.member(name)
        case .json(.object(let object)):
            return object[name].map(TemplateValue.json)
        case .json(.array(let elements)):
            return Self.index(name, elements.count).map { .json(elements[$0]) }
        case .array(let elements):
            return Self.index(name, elements.count).map { elements[$0] }
        case .listOrSingle(let elements):
            switch name {
            case "first": return elements.first
            case "last": return elements.last
            default: return Self.index(name, elements.count).map { elements[$0] }
            }
        case .segmented(_, let parts):
            return Self.index(name, parts.count).map { parts[$0] }
        case .ordered(let json):
            switch json {
            case .object: return json[name].map(TemplateValue.ordered)
            case .array(let elements): return Self.index(name, elements.count).map { .ordered(elements[$0]) }
            case .scalar: return nil
            }
        case .null, .bool, .integer, .double, .string, .date, .json:
            return nil
        }
    }

    private static func index(_ name: String, _ count: Int) -> Int? {
        guard let index = Int(name), index >= 0, index < count else { return nil }
        return index
    }

    /// The elements `#each` visits, with their key for objects (`@key`); `nil` for a value that
    /// is not a collection.
    package var elements: [(key: String?, value: TemplateValue)]? {
        switch self {
        case .array(let elements), .listOrSingle(let elements), .segmented(_, let elements):
            return elements.map { (nil, $0) }
        case .json(.array(let elements)):
            return elements.map { (nil, .json($0)) }
        case .json(.object(let object)):
            return object.keys.sorted().map { ($0, .json(object[$0] ?? .null)) }
        case .object(let object):
            return object.members.map { ($0.key, $0.value) }
        case .ordered(.array(let elements)):
            return elements.map { (nil, .ordered($0)) }
        case .ordered(.object(let members)):
            return members.map { ($0.key, .ordered($0.value)) }
        case .null, .bool, .integer, .double, .string, .date, .json, .ordered:
            return nil
        }
    }

    /// The value as JSON (`toJson`, objects handed to JSON helpers): dates in ISO 8601, a
    /// single-or-list as its list.
    var jsonValue: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let bool): return .bool(bool)
        case .integer(let integer): return .integer(integer)
        case .double(let double): return .double(double)
        case .string(let string): return .string(string)
        case .json(let json): return json
        case .ordered(let json): return json.value
        case .date: return .string(text(.handlebars))
        case .array(let elements), .listOrSingle(let elements): return .array(elements.map(\.jsonValue))
        case .segmented(let text, _): return .string(text)
        case .object(let object):
            var result: [String: JSONValue] = [:]
            for member in object.members { result[member.key] = member.value.jsonValue }
            return .object(result)
        }
    }
}

/// An object a dialect provides, read member by member (WireMock's request model computes
/// only the members a template names).
package protocol TemplateObject: Sendable {
    /// The member `name`, or `nil`.
    func member(_ name: String) -> TemplateValue?
    /// Every member, in order (`#each`, rendering the whole object).
    var members: [(key: String, value: TemplateValue)] { get }
}

/// A fixed object: members in the order given, looked up by name.
package struct TemplateMap: TemplateObject {
    package let members: [(key: String, value: TemplateValue)]
    private let byName: [String: Int]

    package init(_ members: [(key: String, value: TemplateValue)]) {
        self.members = members
        var byName: [String: Int] = [:]
        for (index, member) in members.enumerated() where byName[member.key] == nil { byName[member.key] = index }
        self.byName = byName
    }

    package func member(_ name: String) -> TemplateValue? { byName[name].map { members[$0].value } }
}

extension TemplateValue {
    /// How a dialect writes values: Mustache's (HTTPMock's own, Voodoo's: JSON for lists and
    /// objects, `1.0` as `1`) or Handlebars.java's, as WireMock shows them (`1.0`, `[a, b]`).
    package enum Style: Sendable {
        case mustache
        case handlebars
    }

    /// Whether a section or `#if` renders: `false`, `null`, an empty string and an empty list
    /// are false in both styles; Handlebars also takes `0` as false.
    package func isTruthy(_ style: Style) -> Bool {
        switch self {
        case .null: return false
        case .bool(let bool): return bool
        case .string(let string): return !string.isEmpty
        case .integer(let integer): return style == .mustache || integer != 0
        case .double(let double): return style == .mustache || double != 0
        case .array(let elements), .listOrSingle(let elements): return !elements.isEmpty
        case .json(let json):
            switch json {
            case .integer, .double, .bool, .null, .string: return TemplateValue(scalar: json).isTruthy(style)
            case .array(let elements): return !elements.isEmpty
            case .object: return true
            }
        case .ordered(.scalar(let json)): return TemplateValue(scalar: json).isTruthy(style)
        case .ordered(.array(let elements)): return !elements.isEmpty
        case .object, .date, .segmented, .ordered: return true
        }
    }

    /// A JSON scalar unwrapped (`.json(.integer(1))` is `.integer(1)`); anything else as is.
    var unwrapped: TemplateValue {
        switch self {
        case .json(let json): return TemplateValue(scalar: json)
        case .ordered(.scalar(let json)): return TemplateValue(scalar: json)
        default: return self
        }
    }

    /// A JSON scalar as a value (lists and objects stay wrapped).
    package init(scalar json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .integer(let integer): self = .integer(integer)
        case .double(let double): self = .double(double)
        case .string(let string): self = .string(string)
        case .array, .object: self = .json(json)
        }
    }

    /// The text a `{{…}}` tag writes.
    package func text(_ style: Style) -> String {
        switch self {
        case .null: return ""
        case .bool(let bool): return bool ? "true" : "false"
        case .integer(let integer): return String(integer)
        case .double(let double): return style == .mustache ? Template.interpolation(of: .double(double)) : Self.javaText(double)
        case .string(let string): return string
        case .json(let json):
            guard style == .handlebars else { return Template.interpolation(of: json) }
            switch json {
            case .array: return String(decoding: json.data, as: UTF8.self)
            case .object: return Self.prettyJSON(json)
            default: return TemplateValue(scalar: json).text(style)
            }
        case .ordered(let json):
            switch json {
            case .scalar(let scalar): return TemplateValue(scalar: scalar).text(style)
            case .array: return style == .mustache ? Template.interpolation(of: json.value) : json.compactJSON
            case .object: return style == .mustache ? Template.interpolation(of: json.value) : json.javaText ?? ""
            }
        case .date(let date, let zone): return Self.iso8601(date, zone)
        case .listOrSingle(let elements): return elements.first?.text(style) ?? ""
        case .segmented(let text, _): return text
        case .array(let elements):
            if style == .mustache { return Template.interpolation(of: jsonValue) }
            return "[" + elements.map { $0.text(style) }.joined(separator: ", ") + "]"
        case .object(let object):
            if style == .mustache { return Template.interpolation(of: jsonValue) }
            return "{" + object.members.map { "\($0.key)=\($0.value.text(style))" }.joined(separator: ", ") + "}"
        }
    }

    /// A double as Java's `Double.toString` writes it (`3.0`, `2.5`, `1.0E7`, `8.3E306`):
    /// the shortest digits that read back, plain from 10⁻³ to 10⁷, else scientific.
    package static func javaText(_ double: Double) -> String {
        guard double.isFinite else { return double.isNaN ? "NaN" : (double < 0 ? "-Infinity" : "Infinity") }
        if double == 0 { return double.sign == .minus ? "-0.0" : "0.0" }
        // Swift's description has the same shortest digits; only the layout differs.
        let description = "\(abs(double))"
        let pieces = description.split(separator: "e")
        let exponentGiven = pieces.count > 1 ? Int(pieces[1]) ?? 0 : 0
        let mantissa = pieces[0]
        let dot = mantissa.firstIndex(of: ".") ?? mantissa.endIndex
        var digits = String(mantissa[..<dot]) + mantissa[dot...].dropFirst()
        // value = 0.digits × 10^point
        var point = mantissa.distance(from: mantissa.startIndex, to: dot) + exponentGiven
        while digits.first == "0", digits.count > 1 {
            digits.removeFirst()
            point -= 1
        }
        while digits.last == "0", digits.count > 1 { digits.removeLast() }
        let sign = double < 0 ? "-" : ""
        let magnitude = abs(double)
        if magnitude >= 1e-3 && magnitude < 1e7 {
            if point <= 0 { return sign + "0." + String(repeating: "0", count: -point) + digits }
            if digits.count <= point { return sign + digits + String(repeating: "0", count: point - digits.count) + ".0" }
            return sign + digits.prefix(point) + "." + digits.dropFirst(point)
        }
        let rest = digits.dropFirst()
        return sign + digits.prefix(1) + "." + (rest.isEmpty ? "0" : rest) + "E\(point - 1)"
    }

    /// ISO 8601 as WireMock writes dates: seconds, `Z` in UTC, else the offset (`+01:00`).
    /// Computed from the calendar fields directly: a formatter per call costs more than a render.
    /// Not `Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone:)`, though it agrees on
    /// 20,030 dates of 1900…2100 in ten zones except for offsets with seconds (Paris before
    /// 1911): on Linux (Swift 6.3.1) it writes year 0 as `0000-01-03`, −249 as `-0249-10-19`
    /// (days off) and 1e15 s as year 506713 (gmtime: 31690708), and templates reach dates up to
    /// Java's `Instant.MAX`.
    static func iso8601(_ date: Date, _ zone: TimeZone) -> String {
        let offset = zone.secondsFromGMT(for: date)
        // A date no calendar can write (NaN, 1e300 s) is written as its number, never a trap.
        guard let whole = Int(exactly: date.timeIntervalSince1970.rounded(.down)), abs(whole) < 1 << 58 else {
            return "\(date.timeIntervalSince1970)"
        }
        var seconds = time_t(whole) + time_t(offset)
        var fields = tm()
        guard gmtime_r(&seconds, &fields) != nil else { return "\(date.timeIntervalSince1970)" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = Int(fields.tm_year) + 1900
        let yearText = year >= 0 && year < 10_000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        var text =
            "\(yearText)-\(two(fields.tm_mon + 1))-\(two(fields.tm_mday))T\(two(fields.tm_hour)):\(two(fields.tm_min)):\(two(fields.tm_sec))"
        if offset == 0 { return text + "Z" }
        let magnitude = Int32(abs(offset) / 60)
        text += (offset < 0 ? "-" : "+") + two(magnitude / 60) + ":" + two(magnitude % 60)
        return text
    }

    /// JSON as Jackson's default pretty printer writes it (WireMock's `jsonPath` objects):
    /// `{` newline, two spaces per level, `"key" : value`, lists on one line `[ 1, 2 ]`.
    static func prettyJSON(_ json: JSONValue, indent: String = "") -> String {
        switch json {
        case .object(let object):
            if object.isEmpty { return "{ }" }
            let inner = indent + "  "
            let members = object.keys.sorted().map { key in
                inner + Template.interpolation(of: .array([.string(key)])).dropFirst().dropLast() + " : "
                    + prettyJSON(object[key] ?? .null, indent: inner)
            }
            return "{\n" + members.joined(separator: ",\n") + "\n" + indent + "}"
        case .array(let elements):
            if elements.isEmpty { return "[ ]" }
            return "[ " + elements.map { prettyJSON($0, indent: indent) }.joined(separator: ", ") + " ]"
        default:
            return String(decoding: json.data, as: UTF8.self)
        }
    }
}

extension String {
    /// The text with Handlebars' HTML escapes: `&`, `<`, `>`, `"`, `'`, `` ` `` and `=`.
    var htmlEscaped: String {
        guard utf8.contains(where: { $0 == 38 || $0 == 60 || $0 == 62 || $0 == 34 || $0 == 39 || $0 == 96 || $0 == 61 }) else {
            return self
        }
        var result = ""
        result.reserveCapacity(utf8.count + 16)
        for character in unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#x27;"
            case "`": result += "&#x60;"
            case "=": result += "&#x3D;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}

extension OrderedJSON.Member {
    /// A member, for values a dialect builds (`toJson` of a request model object).
    package init(_ key: String, _ value: OrderedJSON) {
        self.key = key
        self.value = value
    }
}

#if Server
import Foundation
import HTTPMock
import NIOConcurrencyHelpers

/// WireMock's response templating: the Handlebars dialect of the one template engine,
/// with WireMock's request model (``WireMockRequestModel``) and helpers.
///
/// The reference is WireMock 2.35.1 (the jar PyPI's `wiremock` ships): `{{…}}` escapes HTML,
/// `{{{…}}}` does not, block tags keep their lines, a helper the table does not hold is an
/// error at registration. `val`, `toJson` and `jsonArrayAdd` come from WireMock 3's
/// documentation (2.35.1 has none of them).
struct WireMockTemplating: Sendable {
    /// What `now` reads and the random helpers draw from: the system's, or fixed ones in tests.
    var clock: @Sendable () -> Date
    var random: WireMockRandom

    static let live = WireMockTemplating(clock: { Date() }, random: WireMockRandom(seed: nil))

    /// The dialect: Handlebars, HTML escaped, lines kept, WireMock's helpers.
    var dialect: TemplateDialect {
        var helpers: [String: TemplateHelper] = [:]
        for table in [Self.textHelpers, Self.logicHelpers, Self.documentHelpers, dateHelpers, numberHelpers] {
            helpers.merge(table) { first, _ in first }
        }
        return TemplateDialect(syntax: .handlebars, escapesHTML: true, removesStandaloneLines: false, helpers: helpers)
    }

    /// The context a template renders with: `request`, and `parameters` (the mapping's
    /// `transformerParameters`).
    static func context(for request: MockRequest, parameters: TemplateValue) -> TemplateValue {
        .object(TemplateMap([("request", .object(WireMockRequestModel(request))), ("parameters", parameters)]))
    }

    /// WireMock's words for a helper that cannot work with what it was given (rendered, not
    /// thrown, as WireMock does).
    static func failure(_ message: String) -> TemplateValue { .string("[ERROR: \(message)]") }

    /// What `prepare` made for this call site, else `make()` (an argument read per request).
    static func reuse<Prepared>(
        _ call: TemplateHelperCall, _ make: () throws(TemplateHelperError) -> Prepared
    )
        throws(TemplateHelperError) -> Prepared
    {
        if let prepared = call.prepared as? Prepared { return prepared }
        return try make()
    }
}

/// A random source helpers share: the system's, or a seeded one (SplitMix64) in tests.
final class WireMockRandom: Sendable {
    private let state: NIOLockedValueBox<UInt64?>

    /// `seed` nil: the system's generator.
    init(seed: UInt64?) { state = NIOLockedValueBox(seed) }

    func next() -> UInt64 {
        state.withLockedValue { state in
            guard var value = state else {
                var system = SystemRandomNumberGenerator()
                return system.next()
            }
            value &+= Self.increment
            state = value
            return Self.mix(value)
        }
    }

    private static let increment: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// SplitMix64's output function.
    private static func mix(_ value: UInt64) -> UInt64 {
        var mixed = value
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// `count` picks from `alphabet`, as `count` calls of `integer(0, alphabet.count)` would
    /// pick them, under one lock and (unseeded) one system call instead of one per pick: a
    /// megabyte of `randomValue` took a second of system calls (issue 43.11).
    func picks(_ count: Int, from alphabet: [UInt8]) -> [UInt8] {
        guard !alphabet.isEmpty else { return [] }
        let size = UInt64(alphabet.count)
        var bytes = [UInt8](repeating: 0, count: count)
        state.withLockedValue { state in
            var system = SystemRandomNumberGenerator()
            var value = state ?? system.next()
            for index in 0..<count {
                value &+= Self.increment
                bytes[index] = alphabet[Int(Self.mix(value) % size)]
            }
            if state != nil { state = value }
        }
        return bytes
    }

    /// A number in `lower..<upper` (`upper > lower`).
    func integer(_ lower: Int, _ upper: Int) -> Int {
        let span = UInt64(bitPattern: Int64(upper) &- Int64(lower))
        return lower &+ Int(truncatingIfNeeded: next() % max(span, 1))
    }

    /// A number in `[0, 1)`.
    func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

extension TemplateValue {
    /// The text a helper works on (Handlebars.java's `toString`).
    var helperText: String { text(.handlebars) }

    /// The value as a number, when it is one or is text that reads as one.
    var number: Double? {
        switch self {
        case .integer(let integer): return Double(integer)
        case .double(let double): return double
        case .string(let text): return Double(text.trimmingCharacters(in: .whitespaces))
        case .json(.integer(let integer)): return Double(integer)
        case .json(.double(let double)): return double
        case .json(.string(let text)): return Double(text)
        case .listOrSingle(let values): return values.first?.number
        default: return nil
        }
    }

    /// The value as an integer, when it is a whole number or text that reads as one.
    var integer: Int? {
        switch self {
        case .integer(let integer): return integer
        case .json(.integer(let integer)): return integer
        case .listOrSingle(let values): return values.first?.integer
        default:
            guard let number, number.rounded() == number, abs(number) < 9e18 else { return nil }
            return Int(number)
        }
    }

    var isNull: Bool {
        switch self {
        case .null, .json(.null): return true
        default: return false
        }
    }
}
#endif

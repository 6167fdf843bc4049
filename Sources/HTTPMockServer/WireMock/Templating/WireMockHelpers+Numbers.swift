#if Server
import Foundation
import HTTPMock

// `math`, `range`, `array` and the random helpers. `math` follows WireMock 2.35.1's BigDecimal arithmetic,
// compared with the jar:
//   {{math 1 '+' 2}} → 3   {{math 5 '/' 2}} → 3 (rounded half up to the dividend's scale)
//   {{math 10.0 '/' 4}} → 2.5   {{math 5.5 '*' 2}} → 11.0   {{math 1.0 '+' 2}} → 3.0
//   {{math 7 '%' 3}} → 1   {{math 7.5 '%' 2}} → 1.5   {{math '3' '-' '10'}} → -7   {{math 0.1 '+' 0.2}} → 0.3
//   {{math 1 '+'}} → [ERROR: All maths functions require two operands and an operator as parameters e.g. 3 '+' 2]
//   {{math 10 '/' 0}} → a 500 (WireMock: ArithmeticException)
// Random values by shape (WireMock 2.35.1: ALPHANUMERIC and ALPHABETIC lowercase unless
// `uppercase=true`, HEXADECIMAL lowercase, length 36 by default, an unknown type gives
// ALPHANUMERIC_AND_SYMBOLS; `randomInt` draws from lower ..< upper).

extension WireMockTemplating {
    /// The longest `randomValue` one call makes (WireMock has no bound; a body has one).
    static let maximumRandomLength = 1 << 20

    var numberHelpers: [String: TemplateHelper] {
        let random = random
        return [
            "math": TemplateHelper { call throws(TemplateHelperError) in try Self.math(call) },
            "randomValue": TemplateHelper(
                prepare: { site throws(TemplateHelperError) in
                    if let length = site.literal("length") { _ = try Self.randomLength(length) }
                    return nil
                },
                call: { call throws(TemplateHelperError) in try Self.randomValue(call, random) }),
            "randomInt": TemplateHelper { call throws(TemplateHelperError) in
                let lower = call.hash("lower")?.integer ?? Int(Int32.min)
                let upper = call.hash("upper")?.integer ?? Int(Int32.max)
                guard lower < upper else { throw TemplateHelperError("upper (\(upper)) must be greater than lower (\(lower))") }
                return .integer(random.integer(lower, upper))
            },
            "randomDecimal": TemplateHelper { call throws(TemplateHelperError) in
                let lower = call.hash("lower")?.number ?? -Double.greatestFiniteMagnitude
                let upper = call.hash("upper")?.number ?? Double.greatestFiniteMagnitude
                guard lower < upper else { throw TemplateHelperError("upper (\(upper)) must be greater than lower (\(lower))") }
                let unit = random.unit()
                var value: Double
                if (upper - lower).isFinite {
                    value = unit * (upper - lower) + lower
                } else {
                    value = (unit * (upper / 2 - lower / 2) + lower / 2) * 2
                }
                if value >= upper { value = upper.nextDown }
                return .double(value)
            },
            "range": TemplateHelper { call throws(TemplateHelperError) in try Self.range(call) },
            "array": TemplateHelper { call throws(TemplateHelperError) in .array(call.positional) },
            "pickRandom": TemplateHelper { call throws(TemplateHelperError) in
                var choices = call.positional
                if choices.count == 1, let elements = choices[0].elements { choices = elements.map(\.value) }
                guard !choices.isEmpty else { throw TemplateHelperError("pickRandom needs at least one value to pick from") }
                return choices[random.integer(0, choices.count)]
            },
        ]
    }

    /// The most numbers one `range` makes (WireMock has no bound; a render has one).
    static let maximumRangeCount = 100_000

    /// `{{range 1 3}}` → `[1, 2, 3]` (both bounds included, as in WireMock 2.35.1; an upper
    /// bound below the lower one fails the request there, here it is an error naming both).
    static func range(_ call: TemplateHelperCall) throws(TemplateHelperError) -> TemplateValue {
        guard call.positional.count >= 2, let lower = call.positional[0].integer, let upper = call.positional[1].integer else {
            guard call.positional.count >= 2 else {
                return failure("The range helper requires both lower and upper bounds as integer parameters")
            }
            throw TemplateHelperError(
                "range needs two whole numbers, got \(call.positional[0].helperText) and \(call.positional[1].helperText)")
        }
        guard lower <= upper else { throw TemplateHelperError("range's upper bound (\(upper)) is below its lower bound (\(lower))") }
        // `upper - lower` overflows for bounds far apart (-8e18 … 8e18): measured without it.
        let (span, overflow) = upper.subtractingReportingOverflow(lower)
        guard !overflow, span < maximumRangeCount else {
            throw TemplateHelperError("range \(lower) \(upper) would make more than \(maximumRangeCount) numbers")
        }
        return .array((lower...upper).map { .integer($0) })
    }

    static func randomLength(_ value: TemplateValue) throws(TemplateHelperError) -> Int {
        guard let length = value.integer, length >= 0, length <= maximumRandomLength else {
            throw TemplateHelperError("length must be a whole number from 0 to \(maximumRandomLength), got \(value.helperText)")
        }
        return length
    }

    /// ASCII alphabets, as bytes.
    static let alphabets: [String: [UInt8]] = [
        "ALPHANUMERIC": Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8),
        "ALPHABETIC": Array("abcdefghijklmnopqrstuvwxyz".utf8),
        "NUMERIC": Array("0123456789".utf8),
        "HEXADECIMAL": Array("0123456789abcdef".utf8),
        "ALPHANUMERIC_AND_SYMBOLS": Array(32...126),
    ]

    static func randomValue(_ call: TemplateHelperCall, _ random: WireMockRandom) throws(TemplateHelperError) -> TemplateValue {
        let type = call.hash("type")?.helperText.uppercased() ?? "ALPHANUMERIC"
        let uppercase = call.hash("uppercase")?.isTruthy(.handlebars) == true
        if type == "UUID" {
            var bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            bytes[6] = (bytes[6] & 0x0F) | 0x40
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            let uuid = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10],
                    bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                )
            ).uuidString
            return .string(uppercase ? uuid : uuid.lowercased())
        }
        let length = try call.hash("length").map(randomLength) ?? 36
        let alphabet = alphabets[type] ?? alphabets["ALPHANUMERIC_AND_SYMBOLS"] ?? []
        // Bytes, not Characters, drawn in one go: every alphabet is ASCII, and a megabyte drawn
        // a Character and a system call at a time kept a core busy after its request was gone
        // (issue 43.11).
        var bytes = random.picks(length, from: alphabet)
        if uppercase {
            for index in bytes.indices where bytes[index] >= 97 && bytes[index] <= 122 { bytes[index] -= 32 }
        }
        return .string(String(decoding: bytes, as: UTF8.self))
    }

    /// An operand as WireMock's `MathsHelper` coerces it: numbers exactly (a double as
    /// `BigDecimal.valueOf` reads it, through its shortest text), text as `new BigDecimal(text)`
    /// reads it, and 0 for anything that does not read as a number.
    static func bigDecimal(_ operand: TemplateValue) throws(TemplateHelperError) -> JavaBigDecimal {
        let text: String
        switch operand {
        case .integer(let integer), .json(.integer(let integer)):
            return JavaBigDecimal(integer)
        case .double(let double), .json(.double(let double)):
            // Java's BigDecimal.valueOf(NaN) throws: WireMock answers 500.
            guard double.isFinite else { throw TemplateHelperError("math cannot compute with \(TemplateValue.javaText(double))") }
            text = TemplateValue.javaText(double)
        default:
            text = operand.helperText
        }
        do {
            return try JavaBigDecimal.parse(text) ?? JavaBigDecimal(0)
        } catch {
            throw TemplateHelperError(error.description)
        }
    }

    /// `{{math left 'op' right}}` as WireMock's `MathsHelper`: exact `BigDecimal` arithmetic,
    /// then Java's reduction of the result: a whole number (scale 0) becomes `intValue()` when
    /// its `longValue()` is at most `Integer.MAX_VALUE`, else `longValue()` (both keep only the
    /// low bits, as WireMock does); anything else `doubleValue()`.
    static func math(_ call: TemplateHelperCall) throws(TemplateHelperError) -> TemplateValue {
        guard call.positional.count >= 3 else {
            return failure("All maths functions require two operands and an operator as parameters e.g. 3 '+' 2")
        }
        let left = try bigDecimal(call.positional[0])
        let right = try bigDecimal(call.positional[2])
        let result: JavaBigDecimal
        switch call.positional[1].helperText {
        case "+": result = left + right
        case "-": result = left - right
        case "*", "x": result = left * right
        case "/":
            guard let quotient = JavaBigDecimal.dividing(left, by: right) else { throw TemplateHelperError("division by zero") }
            result = quotient
        case "%":
            guard let remainder = JavaBigDecimal.remainder(left, right) else { throw TemplateHelperError("division by zero") }
            result = remainder
        default:
            // WireMock 2.35.1 answers the right operand for an operator it does not know.
            return call.positional[2]
        }
        guard result.scale == 0 else { return .double(result.doubleValue) }
        let long = result.longValue
        return .integer(long <= Int64(Int32.max) ? Int(Int32(truncatingIfNeeded: long)) : Int(long))
    }
}
#endif

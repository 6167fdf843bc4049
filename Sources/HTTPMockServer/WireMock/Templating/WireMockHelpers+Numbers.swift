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
        guard upper - lower < maximumRangeCount else {
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

    static let alphabets: [String: [Character]] = [
        "ALPHANUMERIC": Array("abcdefghijklmnopqrstuvwxyz0123456789"),
        "ALPHABETIC": Array("abcdefghijklmnopqrstuvwxyz"),
        "NUMERIC": Array("0123456789"),
        "HEXADECIMAL": Array("0123456789abcdef"),
        "ALPHANUMERIC_AND_SYMBOLS": (32...126).compactMap { Unicode.Scalar($0).map(Character.init) },
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
        var text = String((0..<length).map { _ in alphabet[random.integer(0, alphabet.count)] })
        if uppercase { text = text.uppercased() }
        return .string(text)
    }

    /// A number as Java's `BigDecimal` holds it: the value and its scale (digits after the point).
    struct Scaled {
        var value: Decimal
        var scale: Int

        init(_ operand: TemplateValue) {
            let text: String
            switch operand {
            case .integer(let integer), .json(.integer(let integer)):
                self.value = Decimal(integer)
                self.scale = 0
                return
            case .double(let double), .json(.double(let double)):
                text = TemplateValue.javaText(double)
            default:
                text = operand.helperText.trimmingCharacters(in: .whitespaces)
            }
            let lowered = text.lowercased()
            let mantissa = lowered.split(separator: "e", maxSplits: 1).first.map(String.init) ?? lowered
            let exponent = lowered.contains("e") ? Int(lowered.split(separator: "e")[1].replacingOccurrences(of: "+", with: "")) ?? 0 : 0
            let fraction = mantissa.split(separator: ".", maxSplits: 1).dropFirst().first?.count ?? 0
            guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !text.isEmpty,
                Double(text) != nil
            else {
                self.value = 0
                self.scale = 0
                return
            }
            self.value = value
            self.scale = max(0, fraction - exponent)
        }

        func rounded(_ scale: Int) -> Decimal {
            var input = value
            var result = Decimal()
            NSDecimalRound(&result, &input, scale, .plain)
            return result
        }
    }

    static func math(_ call: TemplateHelperCall) throws(TemplateHelperError) -> TemplateValue {
        guard call.positional.count >= 3 else {
            return failure("All maths functions require two operands and an operator as parameters e.g. 3 '+' 2")
        }
        let left = Scaled(call.positional[0])
        let right = Scaled(call.positional[2])
        var result: Scaled
        switch call.positional[1].helperText {
        case "+": result = left.adding(right, scale: max(left.scale, right.scale))
        case "-": result = left.adding(right.negated, scale: max(left.scale, right.scale))
        case "*":
            result = left
            result.value = left.value * right.value
            result.scale = left.scale + right.scale
        case "/":
            guard right.value != 0 else { throw TemplateHelperError("division by zero") }
            result = Scaled(value: left.value / right.value, scale: left.scale)
            result.value = result.rounded(left.scale)
        case "%":
            guard right.value != 0 else { throw TemplateHelperError("division by zero") }
            // Java's remainder: the sign of the dividend, the quotient truncated towards zero.
            let quotient = left.value / right.value
            var magnitude = quotient < 0 ? -quotient : quotient
            var truncated = Decimal()
            NSDecimalRound(&truncated, &magnitude, 0, .down)
            if quotient < 0 { truncated = -truncated }
            result = Scaled(value: left.value - truncated * right.value, scale: max(left.scale, right.scale))
        default:
            // WireMock 2.35.1 answers the right operand for an operator it does not know.
            return call.positional[2]
        }
        if result.scale == 0, let integer = Int(exactly: NSDecimalNumber(decimal: result.rounded(0)).int64Value),
            result.rounded(0) == result.value
        {
            return .integer(integer)
        }
        return .double(NSDecimalNumber(decimal: result.value).doubleValue)
    }
}

extension WireMockTemplating.Scaled {
    init(value: Decimal, scale: Int) {
        self.value = value
        self.scale = scale
    }

    var negated: Self { Self(value: -value, scale: scale) }

    func adding(_ other: Self, scale: Int) -> Self { Self(value: value + other.value, scale: scale) }
}
#endif

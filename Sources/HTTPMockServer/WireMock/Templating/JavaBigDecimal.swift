#if Server
import Foundation

/// A decimal number as Java's `java.math.BigDecimal` holds it: an exact integer (`sign`,
/// `magnitude`) scaled by ten to the minus `scale`. WireMock's `math` helper computes with
/// it, so `{{math}}` does too: sums, differences and products are exact whatever their size,
/// a quotient is rounded half up to the dividend's scale, a remainder has the dividend's sign.
///
/// Bounded where `BigDecimal` is not: an operand of more than ``maximumDigits`` digits or a
/// scale beyond ±``maximumScale`` is refused (a template error, answered 500), so one request
/// cannot make the server build a number of millions of digits.
struct JavaBigDecimal: Equatable, Sendable {
    /// Whether the value is below zero (never for zero).
    var negative: Bool
    /// The unscaled value's magnitude, 32 bits a limb, least significant first, no high zero limbs.
    var magnitude: [UInt32]
    /// Digits after the decimal point; negative for a multiple of a power of ten (`1E+3`).
    var scale: Int

    static let maximumDigits = 1_000
    static let maximumScale = 1_000

    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    init(negative: Bool, magnitude: [UInt32], scale: Int) {
        var limbs = magnitude
        while limbs.last == 0 { limbs.removeLast() }
        self.negative = negative && !limbs.isEmpty
        self.magnitude = limbs
        self.scale = scale
    }

    init(_ integer: Int) {
        let size = integer.magnitude
        self.init(negative: integer < 0, magnitude: [UInt32(truncatingIfNeeded: size), UInt32(truncatingIfNeeded: size >> 32)], scale: 0)
    }

    /// `text` as `new BigDecimal(String)` reads it: an optional sign, digits with at most one
    /// point, an optional exponent (`e`/`E`, optional sign). `nil` where Java throws
    /// `NumberFormatException` (WireMock then uses 0); throws past the bounds.
    static func parse(_ text: String) throws(Refusal) -> JavaBigDecimal? {
        var bytes = Substring(text).utf8[...]
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var digits: [UInt8] = []
        var fraction = 0
        var sawPoint = false
        while let byte = bytes.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if byte == UInt8(ascii: ".") {
                guard !sawPoint else { return nil }
                sawPoint = true
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                digits.append(byte - UInt8(ascii: "0"))
                if sawPoint { fraction += 1 }
            } else {
                return nil
            }
        }
        guard !digits.isEmpty else { return nil }
        var exponent = 0
        if !bytes.isEmpty {
            let written = String(decoding: bytes.dropFirst(), as: UTF8.self)
            let unsigned = written.hasPrefix("+") || written.hasPrefix("-") ? written.dropFirst() : Substring(written)
            guard !unsigned.isEmpty, unsigned.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            // Java reads the exponent as an int; anything longer is out of every bound here.
            guard unsigned.count <= 9, let value = Int(written) else {
                throw Refusal(description: "math: the exponent of \(text.prefix(40)) is beyond ±\(maximumScale)")
            }
            exponent = value
        }
        while digits.count > 1, digits.first == 0 { digits.removeFirst() }
        guard digits.count <= maximumDigits else {
            throw Refusal(description: "math: an operand has \(digits.count) digits, more than \(maximumDigits)")
        }
        let scale = fraction - exponent
        guard abs(scale) <= maximumScale else {
            throw Refusal(description: "math: \(text.prefix(40)) has a scale beyond ±\(maximumScale)")
        }
        var magnitude: [UInt32] = []
        for digit in digits {
            magnitude = Self.multiply(magnitude, by: 10, adding: UInt32(digit))
        }
        return JavaBigDecimal(negative: negative, magnitude: magnitude, scale: scale)
    }

    var isZero: Bool { magnitude.isEmpty }

    // MARK: Arithmetic, as BigDecimal's add, subtract, multiply, divide(_, HALF_UP), remainder

    static func + (left: Self, right: Self) -> Self {
        let scale = max(left.scale, right.scale)
        let a = left.magnitude(atScale: scale)
        let b = right.magnitude(atScale: scale)
        if left.negative == right.negative {
            return Self(negative: left.negative, magnitude: add(a, b), scale: scale)
        }
        if compare(a, b) >= 0 {
            return Self(negative: left.negative, magnitude: subtract(a, b), scale: scale)
        }
        return Self(negative: right.negative, magnitude: subtract(b, a), scale: scale)
    }

    static prefix func - (value: Self) -> Self {
        Self(negative: !value.negative, magnitude: value.magnitude, scale: value.scale)
    }

    static func - (left: Self, right: Self) -> Self { left + -right }

    static func * (left: Self, right: Self) -> Self {
        Self(
            negative: left.negative != right.negative, magnitude: multiply(left.magnitude, right.magnitude), scale: left.scale + right.scale
        )
    }

    /// `left.divide(right, RoundingMode.HALF_UP)`: the quotient at the dividend's scale; `nil`
    /// for a zero divisor (Java's `ArithmeticException`).
    static func dividing(_ left: Self, by right: Self) -> Self? {
        guard !right.isZero else { return nil }
        // left / right at scale s = a·10^(−s₁) / (b·10^(−s₂)) · 10^(s₁) = a·10^(s₂) / b.
        var numerator = left.magnitude
        var denominator = right.magnitude
        if right.scale >= 0 {
            numerator = multiply(numerator, power10(right.scale))
        } else {
            denominator = multiply(denominator, power10(-right.scale))
        }
        var (quotient, remainder) = divide(numerator, by: denominator)
        // Half up: away from zero when the remainder is at least half the divisor.
        if compare(add(remainder, remainder), denominator) >= 0 {
            quotient = add(quotient, [1])
            remainder = []
        }
        return Self(negative: left.negative != right.negative, magnitude: quotient, scale: left.scale)
    }

    /// `left.remainder(right)`: `left − q·right` with `q` the quotient truncated towards zero,
    /// at the scale Java gives it; `nil` for a zero divisor.
    static func remainder(_ left: Self, _ right: Self) -> Self? {
        guard !right.isZero else { return nil }
        let common = max(left.scale, right.scale)
        let (quotient, _) = divide(left.magnitude(atScale: common), by: right.magnitude(atScale: common))
        // divideToIntegralValue: the quotient at the preferred scale s₁ − s₂ where it can be
        // written there without losing digits, else with as few trailing zeros dropped as fit.
        let preferred = left.scale - right.scale
        var quotientScale = preferred
        var integral = quotient
        if preferred < 0 {
            quotientScale = 0
            while quotientScale > preferred, !integral.isEmpty {
                let (shorter, digit) = divide(integral, bySmall: 10)
                guard digit == 0 else { break }
                integral = shorter
                quotientScale -= 1
            }
            if integral.isEmpty { quotientScale = preferred }
        } else {
            integral = multiply(quotient, power10(preferred))
        }
        let q = Self(negative: left.negative != right.negative, magnitude: integral, scale: quotientScale)
        return left - q * right
    }

    // MARK: What Java's reductions give

    /// `longValue()`: the low 64 bits of the integer part, two's complement.
    var longValue: Int64 {
        var integer = magnitude
        if scale > 0 {
            integer = Self.divide(magnitude, by: Self.power10(scale)).quotient
        } else if scale < 0 {
            // Only the low 64 bits matter: 10^k for k ≥ 64 is a multiple of 2^64.
            integer = -scale >= 64 ? [] : Self.multiply(magnitude.prefix(2).map { $0 }, Self.power10(-scale))
        }
        let low = UInt64(integer.first ?? 0) | (UInt64(integer.count > 1 ? integer[1] : 0) << 32)
        let value = Int64(bitPattern: low)
        return negative ? 0 &- value : value
    }

    /// `doubleValue()`: the nearest double (infinite past its range).
    var doubleValue: Double {
        Double((negative ? "-" : "") + Self.decimalDigits(magnitude) + "e" + String(-scale)) ?? .nan
    }

    // MARK: Unsigned limbs

    private func magnitude(atScale target: Int) -> [UInt32] {
        target == scale ? magnitude : Self.multiply(magnitude, Self.power10(target - scale))
    }

    static func power10(_ exponent: Int) -> [UInt32] {
        var result: [UInt32] = [1]
        var left = exponent
        while left >= 9 {
            result = multiply(result, by: 1_000_000_000, adding: 0)
            left -= 9
        }
        var small: UInt32 = 1
        for _ in 0..<left { small *= 10 }
        return multiply(result, by: small, adding: 0)
    }

    static func compare(_ a: [UInt32], _ b: [UInt32]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for index in stride(from: a.count - 1, through: 0, by: -1) where a[index] != b[index] {
            return a[index] < b[index] ? -1 : 1
        }
        return 0
    }

    static func add(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(max(a.count, b.count) + 1)
        var carry: UInt64 = 0
        for index in 0..<max(a.count, b.count) {
            let sum = UInt64(index < a.count ? a[index] : 0) + UInt64(index < b.count ? b[index] : 0) + carry
            result.append(UInt32(truncatingIfNeeded: sum))
            carry = sum >> 32
        }
        if carry != 0 { result.append(UInt32(carry)) }
        return trimmed(result)
    }

    /// `a − b` for `a ≥ b`.
    static func subtract(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        var result = a
        var borrow: Int64 = 0
        for index in 0..<a.count {
            var difference = Int64(a[index]) - Int64(index < b.count ? b[index] : 0) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 1 << 32 }
            result[index] = UInt32(difference)
        }
        return trimmed(result)
    }

    static func multiply(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        guard !a.isEmpty, !b.isEmpty else { return [] }
        var result = [UInt32](repeating: 0, count: a.count + b.count)
        for i in 0..<a.count {
            var carry: UInt64 = 0
            let x = UInt64(a[i])
            for j in 0..<b.count {
                let product = x * UInt64(b[j]) + UInt64(result[i + j]) + carry
                result[i + j] = UInt32(truncatingIfNeeded: product)
                carry = product >> 32
            }
            result[i + b.count] = UInt32(carry)
        }
        return trimmed(result)
    }

    static func multiply(_ a: [UInt32], by factor: UInt32, adding addend: UInt32) -> [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(a.count + 1)
        var carry = UInt64(addend)
        for limb in a {
            let product = UInt64(limb) * UInt64(factor) + carry
            result.append(UInt32(truncatingIfNeeded: product))
            carry = product >> 32
        }
        if carry != 0 { result.append(UInt32(carry)) }
        return trimmed(result)
    }

    static func divide(_ a: [UInt32], bySmall divisor: UInt32) -> (quotient: [UInt32], remainder: UInt32) {
        var quotient = [UInt32](repeating: 0, count: a.count)
        var remainder: UInt64 = 0
        for index in stride(from: a.count - 1, through: 0, by: -1) {
            let current = (remainder << 32) | UInt64(a[index])
            quotient[index] = UInt32(current / UInt64(divisor))
            remainder = current % UInt64(divisor)
        }
        return (trimmed(quotient), UInt32(remainder))
    }

    /// Long division a bit at a time: the operands are bounded (a few thousand digits), so
    /// this stays in the milliseconds.
    static func divide(_ a: [UInt32], by b: [UInt32]) -> (quotient: [UInt32], remainder: [UInt32]) {
        precondition(!b.isEmpty, "division by zero is checked by the callers")
        if compare(a, b) < 0 { return ([], a) }
        if b.count == 1 {
            let (quotient, remainder) = divide(a, bySmall: b[0])
            return (quotient, remainder == 0 ? [] : [remainder])
        }
        var quotient = [UInt32](repeating: 0, count: a.count)
        var remainder: [UInt32] = []
        for bit in stride(from: a.count * 32 - 1, through: 0, by: -1) {
            remainder = multiply(remainder, by: 2, adding: (a[bit / 32] >> UInt32(bit % 32)) & 1)
            if compare(remainder, b) >= 0 {
                remainder = subtract(remainder, b)
                quotient[bit / 32] |= 1 << UInt32(bit % 32)
            }
        }
        return (trimmed(quotient), remainder)
    }

    static func decimalDigits(_ a: [UInt32]) -> String {
        guard !a.isEmpty else { return "0" }
        var chunks: [UInt32] = []
        var rest = a
        while !rest.isEmpty {
            let (quotient, remainder) = divide(rest, bySmall: 1_000_000_000)
            chunks.append(remainder)
            rest = quotient
        }
        var text = String(chunks.removeLast())
        for chunk in chunks.reversed() {
            let digits = String(chunk)
            text += String(repeating: "0", count: 9 - digits.count) + digits
        }
        return text
    }

    private static func trimmed(_ limbs: [UInt32]) -> [UInt32] {
        var result = limbs
        while result.last == 0 { result.removeLast() }
        return result
    }
}
#endif

/// Punycode (RFC 3492): the ASCII form of an internationalised host label, so that
/// `bücher.example` and `xn--bcher-kva.example` are one host.
///
/// Pure and dependency-free; the RFC's sample strings (section 7.1) are its tests.
enum Punycode {
    private static let base = 36
    private static let tMin = 1
    private static let tMax = 26
    private static let skew = 38
    private static let damp = 700
    private static let initialBias = 72
    private static let initialN = 0x80
    /// The RFC's `maxint` for 32-bit implementations: inputs that would exceed it are refused.
    private static let maxInt = Int(Int32.max)

    /// The Punycode encoding of `input` (without the `xn--` prefix), or `nil` on overflow.
    static func encode(_ input: String) -> String? {
        let codePoints = input.unicodeScalars.map { Int($0.value) }
        var output: [UInt8] = codePoints.filter { $0 < initialN }.map { UInt8($0) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append(UInt8(ascii: "-")) }
        var n = initialN
        var delta = 0
        var bias = initialBias
        while handled < codePoints.count {
            var next = Int.max
            for codePoint in codePoints where codePoint >= n && codePoint < next { next = codePoint }
            guard (next - n) <= (maxInt - delta) / (handled + 1) else { return nil }
            delta += (next - n) * (handled + 1)
            n = next
            for codePoint in codePoints {
                if codePoint < n {
                    delta += 1
                    guard delta <= maxInt else { return nil }
                }
                guard codePoint == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = threshold(k, bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, points: handled + 1, first: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The Unicode text of a Punycode string (without the `xn--` prefix), or `nil` when it is
    /// not valid Punycode.
    static func decode(_ input: String) -> String? {
        let characters = Array(input.unicodeScalars)
        guard characters.allSatisfy(\.isASCII) else { return nil }
        var output: [Int] = []
        var position = 0
        if let delimiter = characters.lastIndex(of: "-") {
            output = characters[..<delimiter].map { Int($0.value) }
            position = delimiter + 1
        }
        var n = initialN
        var i = 0
        var bias = initialBias
        while position < characters.count {
            let oldI = i
            var weight = 1
            var k = base
            while true {
                guard position < characters.count, let digit = value(characters[position]) else { return nil }
                position += 1
                guard digit <= (maxInt - i) / weight else { return nil }
                i += digit * weight
                let t = threshold(k, bias)
                if digit < t { break }
                guard weight <= maxInt / (base - t) else { return nil }
                weight *= base - t
                k += base
            }
            let count = output.count + 1
            bias = adapt(i - oldI, points: count, first: oldI == 0)
            guard i / count <= maxInt - n else { return nil }
            n += i / count
            i %= count
            guard Unicode.Scalar(UInt32(n)) != nil else { return nil }
            output.insert(n, at: i)
            i += 1
        }
        var text = ""
        for codePoint in output {
            guard let scalar = Unicode.Scalar(UInt32(codePoint)) else { return nil }
            text.unicodeScalars.append(scalar)
        }
        return text
    }

    private static func threshold(_ k: Int, _ bias: Int) -> Int {
        k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
    }

    private static func adapt(_ delta: Int, points: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / points
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + ((base - tMin + 1) * delta) / (delta + skew)
    }

    private static func digit(_ value: Int) -> UInt8 {
        value < 26 ? UInt8(ascii: "a") + UInt8(value) : UInt8(ascii: "0") + UInt8(value - 26)
    }

    private static func value(_ character: Unicode.Scalar) -> Int? {
        switch character.value {
        case 0x30...0x39: return Int(character.value) - 0x30 + 26
        case 0x41...0x5A: return Int(character.value) - 0x41
        case 0x61...0x7A: return Int(character.value) - 0x61
        default: return nil
        }
    }
}

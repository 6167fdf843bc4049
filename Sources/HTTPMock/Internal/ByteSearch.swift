extension StringProtocol {
    /// Whether the string holds `needle`, compared as UTF-8 bytes.
    ///
    /// For the ASCII delimiters patterns and URLs are made of (`%`, `*`, `**`, `://`). On Linux
    /// Foundation's `contains(_: StringProtocol)` goes through `NSString` and costs more than the
    /// rest of parsing a route; a byte scan is exact here because UTF-8 never encodes anything
    /// else with ASCII bytes.
    func containsBytes(of needle: StaticString) -> Bool {
        needle.withUTF8Buffer { needle in
            guard let first = needle.first else { return true }
            var bytes = utf8[...]
            while let start = bytes.firstIndex(of: first) {
                if bytes[start...].starts(with: needle) { return true }
                bytes = bytes[bytes.index(after: start)...]
            }
            return false
        }
    }
}

extension String {
    /// The first occurrence of `needle`, compared as UTF-8 bytes, and so code point by code point
    /// (UTF-8 is self-synchronising: a match starts and ends on scalar boundaries). An empty
    /// `needle` is found at the start.
    ///
    /// Matchers and XPath use this instead of Foundation's `range(of:)`/`contains(_:)`, which on
    /// Linux cut a needle at its first NUL (`"abq".contains("q\0")` is `true`) and then trap
    /// with "String index is out of bounds" when such a match ends a string with non-ASCII text
    /// before it (fuzzing found it through XPath's `contains()`): request data reaches both sides.
    func firstByteRange(of needle: String) -> Range<String.Index>? {
        let pattern = needle.utf8
        guard let first = pattern.first else { return startIndex..<startIndex }
        let bytes = utf8
        var from = bytes.startIndex
        while let start = bytes[from...].firstIndex(of: first) {
            if bytes[start...].starts(with: pattern) {
                return start..<bytes.index(start, offsetBy: pattern.count)
            }
            from = bytes.index(after: start)
        }
        return nil
    }

    /// Whether the string holds `needle` (``firstByteRange(of:)``; an empty `needle` is held).
    package func containsText(_ needle: String) -> Bool { firstByteRange(of: needle) != nil }
}

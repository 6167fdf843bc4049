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

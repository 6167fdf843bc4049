#if Server
import Foundation
import Yams

/// What a Voodoo YAML file may cost to read: the parser recurses once per level of
/// nesting, and an alias repeats its anchor's whole value, so nine levels of ten aliases
/// ("billion laughs") would expand to a billion values in a few hundred bytes.
enum VoodooYAMLLimits {
    /// Flow collections (`[`, `{`) nested deeper than this are refused before parsing.
    static let maximumNesting = 256
    /// Values an alias-expanded file may hold.
    static let maximumExpandedValues = 1_000_000

    /// Refuses `text` when its flow collections nest deeper than ``maximumNesting``. Brackets
    /// in quoted scalars and comments are skipped, so the count is an upper bound on the depth the
    /// parser will see.
    static func checkNesting(_ text: String, file: String) throws {
        var depth = 0
        var line = 1
        var quote: UInt8?
        var inComment = false
        var previous: UInt8 = 0x0A
        for byte in text.utf8 {
            defer { previous = byte }
            if byte == 0x0A {
                line += 1
                inComment = false
                continue
            }
            if inComment { continue }
            if let open = quote {
                if byte == open { quote = nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "#") where previous == 0x20 || previous == 0x09 || previous == 0x0A:
                inComment = true
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                // A quote opens a quoted scalar only where a scalar starts.
                if [0x20, 0x09, 0x0A, UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: ","), UInt8(ascii: ":")].contains(previous) {
                    quote = byte
                }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximumNesting {
                    throw VoodooError.at(
                        file, line, "collections are nested more than \(maximumNesting) levels deep; this is refused, not parsed")
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth = max(0, depth - 1)
            default:
                break
            }
        }
    }

    /// Refuses a file whose aliases expand to more than ``maximumExpandedValues`` values, naming
    /// the anchor being repeated when the limit was passed and its line.
    static func checkAliases(_ root: Node, text: String, file: String) throws {
        // Without an anchor there is nothing to repeat: every value is written out once.
        guard text.utf8.contains(UInt8(ascii: "&")), text.utf8.contains(UInt8(ascii: "*")) else { return }
        var budget = maximumExpandedValues
        var pending: [(node: Node, anchor: (name: String, line: Int)?)] = [(root, nil)]
        while let (node, outer) = pending.popLast() {
            budget -= 1
            let anchor = anchorOf(node).map { (name: $0, line: node.mark?.line ?? 0) } ?? outer
            if budget < 0 {
                // Yams keeps anchors weakly: the name may be gone, the line of the repeated value is not.
                let line = anchor?.line ?? node.mark?.line
                let repeated = anchor.map { "the anchor &\($0.name)" } ?? line.map { "the value at line \($0)" } ?? "a value"
                throw VoodooError.at(
                    file, line,
                    "aliases repeat \(repeated) until the file holds more than \(maximumExpandedValues) values (a YAML alias bomb, \"billion laughs\"); this is refused"
                )
            }
            switch node {
            case .mapping(let mapping):
                for (key, value) in mapping {
                    pending.append((key, anchor))
                    pending.append((value, anchor))
                }
            case .sequence(let sequence):
                for item in sequence { pending.append((item, anchor)) }
            case .scalar, .alias:
                break
            }
        }
    }

    private static func anchorOf(_ node: Node) -> String? {
        switch node {
        case .mapping(let mapping): mapping.anchor?.rawValue
        case .sequence(let sequence): sequence.anchor?.rawValue
        case .scalar(let scalar): scalar.anchor?.rawValue
        case .alias: nil
        }
    }
}
#endif

import Foundation

/// A JSONPath filter (`[?(@.price < 10 && @.category == 'fiction')]`), with Jayway's rules for
/// each relation:
///
/// - `==`, `!=`: a number equals a string that reads as the same number (`@.s == 10` holds for
///   `"10"`); a missing value equals nothing (so `!=` holds for it); arrays and objects compare
///   as JSON. `===`, `!==` also compare the types.
/// - `<`, `<=`, `>`, `>=`: two numbers, or two strings (UTF-16 order, as Java compares them);
///   any other pair is false.
/// - `=~ /re/i`: the whole string (or a number's or a boolean's text) matches.
/// - `in`, `nin`: membership in a list (`nin` holds for a missing value); `subsetof`, `anyof`,
///   `noneof`: between two lists; `contains`: a substring of a string or an element of a list;
///   `size n`: a string's or list's length; `empty true|false`.
/// - A path alone (`[?(@.isbn)]`) holds when it names something, `null` and `false` included;
///   an indefinite path alone always holds (as in Jayway).
indirect enum JSONPathFilter: Sendable {
    case and(JSONPathFilter, JSONPathFilter)
    case or(JSONPathFilter, JSONPathFilter)
    case not(JSONPathFilter)
    case exists(JSONPath)
    case compare(Operand, Relation, Operand)

    enum Operand: Sendable {
        case path(JSONPath)
        case value(JSONValue)
        case regex(TextRegex)
    }

    enum Relation: String, Sendable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case strictlyEqual = "==="
        case strictlyNotEqual = "!=="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case matches = "=~"
        case `in`, nin, subsetof, anyof, noneof, contains, size, empty

        /// The relations written as words, longest first (so `nin` is not read as `in`).
        static let words: [Relation] = [.subsetof, .contains, .noneof, .anyof, .empty, .size, .nin, .in]
    }

    /// What an operand stands for when the filter runs on one value.
    private enum Node {
        case missing
        case value(JSONValue)
        case regex(TextRegex)
    }

    /// Whether the filter holds with `current` as `@`.
    func holds(for current: OrderedJSON, root: OrderedJSON, budget: inout JSONPathBudget) -> Bool {
        guard budget.spend() else { return false }
        switch self {
        case .and(let left, let right):
            return left.holds(for: current, root: root, budget: &budget) && right.holds(for: current, root: root, budget: &budget)
        case .or(let left, let right):
            return left.holds(for: current, root: root, budget: &budget) || right.holds(for: current, root: root, budget: &budget)
        case .not(let inner):
            return !inner.holds(for: current, root: root, budget: &budget)
        case .exists(let path):
            switch path.evaluate(current, root: root, budget: &budget) {
            case .value, .list: return true
            case .missing, .exceededBudget, .failed: return false
            }
        case .compare(let left, let relation, let right):
            let lhs = Self.node(left, current: current, root: root, budget: &budget)
            let rhs = Self.node(right, current: current, root: root, budget: &budget)
            return Self.compare(lhs, relation, rhs)
        }
    }

    private static func node(_ operand: Operand, current: OrderedJSON, root: OrderedJSON, budget: inout JSONPathBudget) -> Node {
        switch operand {
        case .value(let value): return .value(value)
        case .regex(let regex): return .regex(regex)
        case .path(let path):
            switch path.evaluate(current, root: root, budget: &budget) {
            case .value(let value): return .value(value.value)
            case .list(let values): return .value(.array(values.map(\.value)))
            case .missing, .exceededBudget, .failed: return .missing
            }
        }
    }

    private static func compare(_ left: Node, _ relation: Relation, _ right: Node) -> Bool {
        switch relation {
        case .equal: return equal(left, right, strictly: false)
        case .notEqual: return !equal(left, right, strictly: false)
        case .strictlyEqual: return equal(left, right, strictly: true)
        case .strictlyNotEqual: return !equal(left, right, strictly: true)
        case .less: return order(left, right).map { $0 < 0 } ?? false
        case .lessOrEqual: return order(left, right).map { $0 <= 0 } ?? false
        case .greater: return order(left, right).map { $0 > 0 } ?? false
        case .greaterOrEqual: return order(left, right).map { $0 >= 0 } ?? false
        case .matches:
            switch (left, right) {
            case (.regex(let regex), .value(let value)), (.value(let value), .regex(let regex)):
                guard let text = regexInput(value) else { return false }
                return regex.matchesWhole(text)
            default:
                return false
            }
        case .in:
            guard case .value(.array(let list)) = right, case .value = left else { return false }
            return list.contains { equal(left, .value($0), strictly: false) }
        case .nin:
            guard case .value(.array(let list)) = right else { return false }
            guard case .value = left else { return true }
            return !list.contains { equal(left, .value($0), strictly: false) }
        case .subsetof, .anyof, .noneof:
            guard case .value(.array(let items)) = left, case .value(.array(let list)) = right else { return false }
            let inList = { (item: JSONValue) in list.contains { equal(.value(item), .value($0), strictly: false) } }
            switch relation {
            case .subsetof: return items.allSatisfy(inList)
            case .anyof: return items.contains(where: inList)
            default: return !items.contains(where: inList)
            }
        case .contains:
            switch (left, right) {
            case (.value(.string(let text)), .value(.string(let part))): return text.containsText(part)
            case (.value(.array(let items)), .value(let wanted)):
                return items.contains { equal(.value($0), .value(wanted), strictly: false) }
            default: return false
            }
        case .size:
            guard case .value(let value) = left, case .value(let size) = right, let wanted = size.number else { return false }
            switch value {
            case .string(let text): return Double(text.utf16.count) == wanted
            case .array(let items): return Double(items.count) == wanted
            default: return false
            }
        case .empty:
            guard case .value(let value) = left, case .value(.bool(let wanted)) = right else { return false }
            switch value {
            case .string(let text): return text.isEmpty == wanted
            case .array(let items): return items.isEmpty == wanted
            default: return false
            }
        }
    }

    private static func equal(_ left: Node, _ right: Node, strictly: Bool) -> Bool {
        guard case .value(let a) = left, case .value(let b) = right else { return false }
        switch (a, b) {
        case (.string(let text), _) where b.number != nil && !strictly:
            return Double(text).map { $0 == b.number } ?? false
        case (_, .string(let text)) where a.number != nil && !strictly:
            return Double(text).map { $0 == a.number } ?? false
        default:
            return a == b
        }
    }

    /// The order of two numbers or two strings; `nil` for any other pair.
    private static func order(_ left: Node, _ right: Node) -> Int? {
        guard case .value(let a) = left, case .value(let b) = right else { return nil }
        if case .integer(let x) = a, case .integer(let y) = b { return x < y ? -1 : (x == y ? 0 : 1) }
        if let x = a.number, let y = b.number { return x < y ? -1 : (x == y ? 0 : 1) }
        if case .string(let x) = a, case .string(let y) = b {
            // Java compares strings by UTF-16 code units.
            for (p, q) in zip(x.utf16, y.utf16) where p != q { return p < q ? -1 : 1 }
            return x.utf16.count < y.utf16.count ? -1 : (x.utf16.count == y.utf16.count ? 0 : 1)
        }
        return nil
    }

    private static func regexInput(_ value: JSONValue) -> String? {
        switch value {
        case .string, .integer, .double, .bool: return value.javaText
        default: return nil
        }
    }
}

import Foundation

// Evaluating a compiled JSONPath: each segment maps the current values to the next ones, in
// document order; a deep scan walks as Jayway's does (a value, then its children).

extension JSONPath {
    /// Evaluates the path with `current` as `@` (and as `$` when the path starts with `$` and
    /// `root` is the document), spending `budget`.
    func evaluate(_ current: OrderedJSON, root: OrderedJSON, budget: inout JSONPathBudget) -> Outcome {
        var values = [self.root == .document ? root : current]
        for (position, segment) in segments.enumerated() {
            let isLast = position == segments.count - 1
            var next: [OrderedJSON] = []
            for value in values {
                if segment.isDeepScan {
                    scan(value, segment.selector, isLast: isLast, root: root, into: &next, budget: &budget)
                } else {
                    select(segment.selector, of: value, isLast: isLast, root: root, into: &next, budget: &budget)
                }
                if budget.exceeded { return .exceededBudget }
            }
            values = next
            if values.isEmpty { break }
        }
        guard let function else {
            if isDefinite { return values.count == 1 ? .value(values[0]) : .missing }
            return .list(values)
        }
        return apply(function, to: values, budget: &budget)
    }

    private func apply(_ function: Function, to values: [OrderedJSON], budget: inout JSONPathBudget) -> Outcome {
        // After a deep scan Jayway applies the function to everything found, else to each match.
        if segments.contains(where: \.isDeepScan) {
            switch function {
            case .length, .size:
                return .value(.scalar(.integer(values.reduce(0) { $0 + ($1.children?.count ?? 0) })))
            default:
                return Self.call(function, on: .array(values)).map(Outcome.value) ?? .failed(Self.emptyAggregate)
            }
        }
        if isDefinite {
            guard let value = values.first else { return .missing }
            return Self.call(function, on: value).map(Outcome.value) ?? .failed(Self.emptyAggregate)
        }
        var results: [OrderedJSON] = []
        for value in values {
            guard let result = Self.call(function, on: value) else { return .failed(Self.emptyAggregate) }
            results.append(result)
        }
        return .list(results)
    }

    private static let emptyAggregate = "an aggregate function (min, max, avg, stddev, sum) found no numbers"

    /// The function's result for one value: `null` where it does not apply (the length of a
    /// number); `nil` for an aggregate over no numbers (an error in Jayway).
    private static func call(_ function: Function, on value: OrderedJSON) -> OrderedJSON? {
        switch function {
        case .length, .size:
            return .scalar(value.children.map { .integer($0.count) } ?? .null)
        case .keys:
            if case .object(let members) = value { return .array(members.map { .scalar(.string($0.key)) }) }
            return .scalar(.null)
        case .first:
            if case .array(let elements) = value { return elements.first ?? .scalar(.null) }
            return .scalar(.null)
        case .last:
            if case .array(let elements) = value { return elements.last ?? .scalar(.null) }
            return .scalar(.null)
        case .min, .max, .avg, .stddev, .sum:
            guard case .array(let elements) = value else { return nil }
            let numbers = elements.compactMap(\.number)
            guard !numbers.isEmpty else { return nil }
            let sum = numbers.reduce(0, +)
            let mean = sum / Double(numbers.count)
            switch function {
            case .min: return .scalar(.double(numbers.min() ?? 0))
            case .max: return .scalar(.double(numbers.max() ?? 0))
            case .sum: return .scalar(.double(sum))
            case .avg: return .scalar(.double(mean))
            default: return .scalar(.double((numbers.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(numbers.count)).squareRoot()))
            }
        }
    }

    /// Appends what `selector` picks from `value`.
    private func select(
        _ selector: Selector, of value: OrderedJSON, isLast: Bool, root: OrderedJSON, into found: inout [OrderedJSON],
        budget: inout JSONPathBudget
    ) {
        guard budget.spend() else { return }
        switch selector {
        case .names(let names):
            guard case .object = value else { return }
            if names.count > 1, isLast {
                // Several names at the end of a path give an object of those present (Jayway).
                let picked = names.compactMap { name in value[name].map { OrderedJSON.Member(key: name, value: $0) } }
                if !picked.isEmpty { found.append(.object(picked)) }
            } else {
                for name in names { if let member = value[name] { found.append(member) } }
            }
        case .wildcard:
            if let children = value.children {
                guard budget.spend(children.count) else { return }
                found += children
            }
        case .indices(let indices):
            guard case .array(let elements) = value else { return }
            for index in indices {
                let position = index < 0 ? elements.count + index : index
                if elements.indices.contains(position) { found.append(elements[position]) }
            }
        case .slice(let start, let end, let step):
            guard case .array(let elements) = value else { return }
            let positions = Self.slice(count: elements.count, start: start, end: end, step: step ?? 1)
            guard budget.spend(positions.count) else { return }
            for position in positions { found.append(elements[position]) }
        case .filter(let filter):
            switch value {
            case .array(let elements):
                for element in elements where filter.holds(for: element, root: root, budget: &budget) { found.append(element) }
            case .object:
                if filter.holds(for: value, root: root, budget: &budget) { found.append(value) }
            default:
                break
            }
        }
    }

    /// Jayway's deep scan: at each object or array the selector applies if it can (names to
    /// objects, indexes and slices to arrays, a wildcard to both, a filter to an object that
    /// passes it or to the elements of an array that passes it), then the walk goes on into
    /// the children, in order.
    private func scan(
        _ value: OrderedJSON, _ selector: Selector, isLast: Bool, root: OrderedJSON, into found: inout [OrderedJSON],
        budget: inout JSONPathBudget
    ) {
        // An explicit stack instead of recursion: documents may nest as deep as the parser allows.
        var stack: [OrderedJSON] = [value]
        while let node = stack.popLast() {
            guard budget.spend() else { return }
            switch (node, selector) {
            case (.object, .names), (.object, .wildcard), (.array, .wildcard), (.array, .indices), (.array, .slice):
                select(selector, of: node, isLast: isLast, root: root, into: &found, budget: &budget)
            case (.object, .filter(let filter)):
                if filter.holds(for: node, root: root, budget: &budget) { found.append(node) }
            case (.array(let elements), .filter(let filter)):
                if filter.holds(for: node, root: root, budget: &budget) {
                    for element in elements where filter.holds(for: element, root: root, budget: &budget) { found.append(element) }
                }
            default:
                break
            }
            if let children = node.children { stack += children.reversed() }
        }
    }

    /// The positions a slice picks, as RFC 9535 defines slices (negative bounds count from the
    /// end; bounds are clamped; a negative step walks backwards; step 0 picks nothing).
    static func slice(count: Int, start: Int?, end: Int?, step: Int) -> [Int] {
        guard step != 0, count > 0 else { return [] }
        func normalize(_ bound: Int) -> Int { bound >= 0 ? bound : count + bound }
        var positions: [Int] = []
        if step > 0 {
            let lower = Swift.min(Swift.max(normalize(start ?? 0), 0), count)
            let upper = Swift.min(Swift.max(normalize(end ?? count), 0), count)
            var position = lower
            while position < upper {
                positions.append(position)
                position += step
            }
        } else {
            let upper = Swift.min(Swift.max(normalize(start ?? count - 1), -1), count - 1)
            let lower = Swift.min(Swift.max(end.map(normalize) ?? -1, -1), count - 1)
            var position = upper
            while position > lower {
                positions.append(position)
                position += step
            }
        }
        return positions
    }
}

extension JSONValue {
    /// The value as a `Double` when it is a number.
    package var number: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }
}

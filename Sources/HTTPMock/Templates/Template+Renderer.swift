import Foundation

extension Template {
    /// One render: the context stack, the output so far and the budget spent.
    struct Renderer {
        struct Frame {
            var value: TemplateValue
            /// The position in the list `#each` or a section walks; -1 outside one.
            var index = -1
            var count = 0
            var key: String?
            /// Block parameters (`as |item index|`), found before the frame's members.
            var names: [(name: String, value: TemplateValue)] = []
        }

        let limits: Limits
        let shouldStop: () -> String?
        let partials: [[Node]]
        let style: TemplateValue.Style
        var output = ""
        var steps = 0
        var outputBytes = 0
        var frames: [Frame]
        /// What helpers defined (`regexExtract … 'parts'`), found before the context stack.
        var variables: [String: TemplateValue] = [:]

        init(limits: Limits, shouldStop: @escaping () -> String?, partials: [[Node]], style: TemplateValue.Style, context: TemplateValue) {
            self.limits = limits
            self.shouldStop = shouldStop
            self.partials = partials
            self.style = style
            self.frames = [Frame(value: context)]
        }

        mutating func step() throws(RenderStopped) {
            steps += 1
            if steps > limits.steps {
                throw RenderStopped(
                    description: "rendering stopped after \(limits.steps) steps (a section inside a section over a large list?)",
                    isBudget: true)
            }
            if steps % limits.checkInterval == 0, let reason = shouldStop() {
                throw RenderStopped(description: "rendering stopped after \(steps) steps: \(reason)")
            }
        }

        mutating func append(_ text: String) throws(RenderStopped) {
            let before = outputBytes
            outputBytes += text.utf8.count
            if outputBytes > limits.outputBytes {
                throw RenderStopped(
                    description: "rendering stopped: the body would be larger than \(limits.outputBytes) bytes", isBudget: true)
            }
            output += text
            // Few steps can write much (a helper writing a megabyte each time): ask as often per
            // `checkBytes` of output as per `checkInterval` steps, so an abandoned render stops.
            if before / limits.checkBytes != outputBytes / limits.checkBytes, let reason = shouldStop() {
                throw RenderStopped(description: "rendering stopped after \(outputBytes) bytes: \(reason)")
            }
        }

        mutating func render(_ nodes: [Node]) throws(RenderStopped) {
            for node in nodes {
                try step()
                switch node {
                case .text(let text):
                    try append(text)
                case .value(let expression, let escaped):
                    let text = try evaluate(expression).text(style)
                    try append(escaped ? text.htmlEscaped : text)
                case .partial(let index):
                    try render(partials[index])
                case .block(let kind, let body, let inverse):
                    try block(kind, body: body, inverse: inverse)
                }
            }
        }

        mutating func block(_ kind: BlockKind, body: [Node], inverse: [Node]) throws(RenderStopped) {
            switch kind {
            case .section(let name):
                try section(resolve(name) ?? .null, body: body, inverse: inverse)
            case .ifTrue(let condition):
                try render(try evaluate(condition).isTruthy(style) ? body : inverse)
            case .unless(let condition):
                try render(try evaluate(condition).isTruthy(style) ? inverse : body)
            case .with(let expression, let parameters):
                let value = try evaluate(expression)
                guard value.isTruthy(style) else { return try render(inverse) }
                try within(Frame(value: value, names: parameters.prefix(1).map { ($0, value) }), body)
            case .each(let expression, let parameters):
                let value = try evaluate(expression)
                guard value.isTruthy(style), let elements = value.elements, !elements.isEmpty else { return try render(inverse) }
                try iterate(elements, body, parameters: parameters)
            case .helper(let call):
                switch call.helper.blockUse {
                case .content:
                    let saved = output
                    output = ""
                    try render(body)
                    let content = output
                    output = saved
                    try append(try invoke(call, blockContent: content).text(style))
                case .condition:
                    try render(try invoke(call, blockContent: nil).isTruthy(style) ? body : inverse)
                case .section:
                    try section(try invoke(call, blockContent: nil), body: body, inverse: inverse)
                }
            }
        }

        /// A list repeats the body, another truthy value renders it with the value as context,
        /// a false one renders the inverse.
        mutating func section(_ value: TemplateValue, body: [Node], inverse: [Node]) throws(RenderStopped) {
            guard value.isTruthy(style) else { return try render(inverse) }
            switch value {
            case .array(let elements), .listOrSingle(let elements):
                for index in elements.indices {
                    try step()
                    try within(Frame(value: elements[index], index: index, count: elements.count), body)
                }
            case .json(.array(let elements)):
                for index in elements.indices {
                    try step()
                    try within(Frame(value: .json(elements[index]), index: index, count: elements.count), body)
                }
            default:
                try within(Frame(value: value), body)
            }
        }

        mutating func within(_ frame: Frame, _ body: [Node]) throws(RenderStopped) {
            frames.append(frame)
            defer { frames.removeLast() }
            try render(body)
        }

        mutating func iterate(
            _ elements: [(key: String?, value: TemplateValue)], _ body: [Node], parameters: [String] = []
        )
            throws(RenderStopped)
        {
            for (index, element) in elements.enumerated() {
                try step()
                var frame = Frame(value: element.value, index: index, count: elements.count, key: element.key)
                if let name = parameters.first { frame.names.append((name, element.value)) }
                if parameters.count > 1 { frame.names.append((parameters[1], element.key.map(TemplateValue.string) ?? .integer(index))) }
                try within(frame, body)
            }
        }

        func resolve(_ name: Name) -> TemplateValue? {
            var value: TemplateValue
            var rest = name.parts[...]
            if name.isData {
                let iteration = frames.last { $0.index >= 0 }
                switch rest.removeFirst() {
                case "root": value = frames[0].value
                case "index": value = iteration.map { .integer($0.index) } ?? .null
                case "key": value = iteration?.key.map(TemplateValue.string) ?? .null
                // Handlebars.java, as WireMock runs it, gives the words themselves.
                case "first": value = iteration?.index == 0 ? .string("first") : .null
                case "last": value = iteration.map { $0.index == $0.count - 1 } == true ? .string("last") : .null
                default: return nil
                }
            } else {
                let top = frames.count - 1 - name.parent
                guard top >= 0 else { return nil }
                if rest.isEmpty { return frames[top].value }
                if name.explicitThis || name.parent > 0 {
                    value = frames[top].value
                } else {
                    // The first part is looked up from the innermost context outwards; the rest
                    // only inside the value found (a broken chain is a miss, never a lookup further out).
                    let first = rest.removeFirst()
                    if !variables.isEmpty, let variable = variables[first] {
                        value = variable
                    } else {
                        var found: TemplateValue?
                        var level = top
                        while level >= 0, found == nil {
                            let frame = frames[level]
                            if !frame.names.isEmpty, let named = frame.names.first(where: { $0.name == first }) {
                                found = named.value
                            } else {
                                found = frame.value.member(first)
                            }
                            level -= 1
                        }
                        guard let found else { return nil }
                        value = found
                    }
                }
            }
            for part in rest {
                guard let next = value.member(part) else { return nil }
                value = next
            }
            return value
        }

        mutating func evaluate(_ expression: Expression) throws(RenderStopped) -> TemplateValue {
            switch expression {
            case .path(let name): return resolve(name) ?? .null
            case .literal(let value): return value
            case .call(let call): return try invoke(call, blockContent: nil)
            }
        }

        mutating func invoke(_ call: Call, blockContent: String?) throws(RenderStopped) -> TemplateValue {
            try step()
            var positional: [TemplateValue] = []
            positional.reserveCapacity(call.positional.count)
            for argument in call.positional { positional.append(try evaluate(argument)) }
            var hash: [(key: String, value: TemplateValue)] = []
            for (key, argument) in call.hash { hash.append((key, try evaluate(argument))) }
            var helperCall = TemplateHelperCall(
                name: call.name, positional: positional, hash: hash, prepared: call.prepared, this: frames[frames.count - 1].value,
                blockContent: blockContent)
            let result: TemplateValue
            do {
                result = try call.helper.call(&helperCall)
            } catch {
                throw RenderStopped(description: "the helper \(call.name) failed: \(error.message)")
            }
            for assignment in helperCall.assignments { variables[assignment.name] = assignment.value }
            return result
        }
    }
}

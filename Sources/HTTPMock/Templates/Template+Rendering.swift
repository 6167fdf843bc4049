import Foundation

// Rendering under a budget (SPEC §11.8): a section over a large list inside another over the
// same list multiplies, so every render counts its steps and its output, and asks at intervals
// whether its request is still wanted. A render that stops throws; it never keeps a core busy
// after its request ended.

extension Template {
    /// How far one render may go.
    struct Limits: Sendable {
        /// Nodes visited (text, variables, section entries).
        var steps = 4_000_000
        /// Bytes of output.
        var outputBytes = 64 << 20
        /// Steps between two calls of `shouldStop`.
        var checkInterval = 4_096
    }

    /// Why a render stopped before its end.
    struct RenderStopped: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    /// Renders with `context` at the bottom of the context stack, within `limits`; `shouldStop`
    /// is asked every `limits.checkInterval` steps (a cancelled request, a passed deadline).
    func render(
        _ context: JSONValue, limits: Limits = Limits(), shouldStop: @escaping () -> String? = { nil }
    ) throws(RenderStopped) -> String {
        var renderer = Renderer(limits: limits, shouldStop: shouldStop, partials: partials)
        var stack = [context]
        try renderer.render(nodes, stack: &stack)
        return renderer.output
    }

    private struct Renderer {
        let limits: Limits
        let shouldStop: () -> String?
        let partials: [[Node]]
        var output = ""
        var steps = 0
        var outputBytes = 0

        mutating func step() throws(RenderStopped) {
            steps += 1
            if steps > limits.steps {
                throw RenderStopped(
                    description: "rendering stopped after \(limits.steps) steps (a section inside a section over a large list?)")
            }
            if steps % limits.checkInterval == 0, let reason = shouldStop() {
                throw RenderStopped(description: "rendering stopped after \(steps) steps: \(reason)")
            }
        }

        mutating func append(_ text: String) throws(RenderStopped) {
            outputBytes += text.utf8.count
            if outputBytes > limits.outputBytes {
                throw RenderStopped(description: "rendering stopped: the body would be larger than \(limits.outputBytes) bytes")
            }
            output += text
        }

        mutating func render(_ nodes: [Node], stack: inout [JSONValue]) throws(RenderStopped) {
            for node in nodes {
                try step()
                switch node {
                case .text(let text):
                    try append(text)
                case .partial(let index):
                    try render(partials[index], stack: &stack)
                case .variable(let name):
                    if let value = Template.resolve(name, in: stack) { try append(Template.interpolation(of: value)) }
                case .section(let name, let inverted, let children):
                    let value = Template.resolve(name, in: stack)
                    let truthy = value.map(Template.isTruthy) ?? false
                    if inverted {
                        if !truthy { try render(children, stack: &stack) }
                    } else if truthy, let value {
                        if case .array(let elements) = value {
                            for element in elements {
                                try step()
                                stack.append(element)
                                defer { stack.removeLast() }
                                try render(children, stack: &stack)
                            }
                        } else {
                            stack.append(value)
                            defer { stack.removeLast() }
                            try render(children, stack: &stack)
                        }
                    }
                }
            }
        }
    }
}

extension Template {
    /// Renders on a dispatch thread, not on Swift's cooperative pool: a long render must not
    /// take one of the pool's few threads, which the deadline that cancels it and every other
    /// request need. Cancelling the awaiting task (the request timed out or was cancelled)
    /// stops the render at its next check. A render that stops is reported at the template's
    /// call site and fails its request with an ``HTTPMockError`` naming why.
    func renderOffThePool(_ context: JSONValue, location: SourceLocation, limits: Limits = Limits()) async throws -> String {
        let ended = Locked(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                DispatchQueue.global().async {
                    do {
                        let body = try render(context, limits: limits) {
                            ended.withLock { $0 } ? "its request ended (timed out or cancelled) first" : nil
                        }
                        continuation.resume(returning: body)
                    } catch {
                        let message = "MockResponse.template: \(error)"
                        Reporter.warn(message, at: location)
                        continuation.resume(
                            throwing: HTTPMockError(.invalidRegistration, "\(message) (template at \(location.fileID):\(location.line))"))
                    }
                }
            }
        } onCancel: {
            ended.withLock { $0 = true }
        }
    }
}

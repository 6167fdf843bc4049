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
        try render(value: .json(context), limits: limits, shouldStop: shouldStop)
    }

    /// Renders with `context` (a dialect's model) at the bottom of the context stack.
    func render(
        value context: TemplateValue, limits: Limits = Limits(), shouldStop: @escaping () -> String? = { nil }
    ) throws(RenderStopped) -> String {
        var renderer = Renderer(limits: limits, shouldStop: shouldStop, partials: partials, style: style, context: context)
        try renderer.render(nodes)
        return renderer.output
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

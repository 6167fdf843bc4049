import Foundation

// Rendering under a budget: a section over a large list inside another over the
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
        /// Bytes of output between two calls of `shouldStop` (whichever comes first).
        var checkBytes = 256 << 10
    }

    /// Why a render stopped before its end.
    struct RenderStopped: Error, Sendable, CustomStringConvertible {
        let description: String
        /// Stopped by the step or output budget (not by a helper or a cancelled request).
        var isBudget = false
    }

    /// Renders with `context` at the bottom of the context stack, within `limits`; `shouldStop`
    /// is asked every `limits.checkInterval` steps and every `limits.checkBytes` of output (a
    /// cancelled request, a passed deadline).
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
    /// Renders in place when the render is small, else on a thread of its own, not on Swift's
    /// cooperative pool: a long render must not take one of the pool's few threads, which the
    /// deadline that cancels it and every other request need. Cancelling the awaiting task (the
    /// request timed out or was cancelled) stops the render at its next check. A render that
    /// stops is reported at the template's call site and fails its request with an
    /// ``HTTPMockError`` naming why.
    func renderOffThePool(_ context: JSONValue, location: SourceLocation, limits: Limits = Limits()) async throws -> String {
        do {
            // In place when small (nearly every template), else on a thread of its own.
            return try await renderQuickly({ .json(context) }, limits: limits)
        } catch {
            let message = "MockResponse.template: \(error)"
            Reporter.warn(message, at: location)
            throw HTTPMockError(.invalidRegistration, "\(message) (template at \(location.fileID):\(location.line))")
        }
    }

    /// Renders `context` on a thread of its own, stopped when the awaiting task is cancelled.
    /// Not `DispatchQueue.global()`: on Linux its threads are the ones Swift's cooperative pool
    /// runs on (LinuxNotes), so a render queued there waited behind every task it was meant to
    /// leave alone, and a long render held one of the pool's few threads.
    func renderOffThePool(value context: TemplateValue, limits: Limits = Limits()) async throws -> String {
        let ended = Locked(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                Thread.detachNewThread {
                    do {
                        let body = try render(value: context, limits: limits) {
                            ended.withLock { $0 } ? "its request ended (timed out or cancelled) first" : nil
                        }
                        continuation.resume(returning: body)
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            ended.withLock { $0 = true }
        }
    }

    /// Renders in place when the render is small (nearly all are: a hop to another thread
    /// would cost more than the render), else again off the cooperative pool with the full
    /// budget. `context` makes a fresh context for each attempt.
    func renderQuickly(_ context: @Sendable () -> TemplateValue, limits: Limits = Limits()) async throws -> String {
        var quick = limits
        quick.steps = min(limits.steps, Self.quickSteps)
        quick.outputBytes = min(limits.outputBytes, Self.quickOutputBytes)
        let first: Result<String, RenderStopped>
        do {
            first = .success(try render(value: context(), limits: quick))
        } catch {
            first = .failure(error)
        }
        switch first {
        case .success(let body):
            return body
        case .failure(let stopped):
            guard stopped.isBudget, quick.steps < limits.steps || quick.outputBytes < limits.outputBytes else { throw stopped }
            let fresh = context()
            return try await renderOffThePool(value: fresh, limits: limits)
        }
    }

    /// What a render may do in place before it moves off the cooperative pool.
    static let quickSteps = 20_000
    static let quickOutputBytes = 1 << 20
}

#if Server
import Foundation

/// SIGINT and SIGTERM, caught from ``catchSignals()`` on and turned into an awaitable event.
///
/// Made before the server's start-up line is printed: a script (or a test) that sends SIGTERM as
/// soon as it reads that line must find the signal caught, not the default action killing the
/// process with a non-zero status. A signal that comes before ``wait()`` is kept for it.
final class Termination: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `lock`.
    private let lock = NSLock()
    private var received: String?
    private var continuation: CheckedContinuation<String, Never>?
    private var sources: [any DispatchSourceSignal] = []

    /// Made before loading (so a Voodoo `/_admin/shutdown` route can name it); signals are caught
    /// from ``catchSignals()`` on.
    init() {}

    /// Catches SIGINT and SIGTERM from now on: each ends ``wait()``.
    func catchSignals() {
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.receive(name) }
            source.resume()
            lock.withLock { sources.append(source) }
        }
    }

    /// The name of the first signal received (or the reason given to ``stop(because:)``), once one is.
    func wait() async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let already = lock.withLock { () -> String? in
                if let received { return received }
                self.continuation = continuation
                return nil
            }
            if let already { continuation.resume(returning: already) }
        }
    }

    /// Stops the wait as a signal would, for `reason` (`admin shutdown`), which the log names.
    func stop(because reason: String) {
        receive(reason)
    }

    private func receive(_ name: String) {
        let waiting = lock.withLock { () -> (CheckedContinuation<String, Never>, String)? in
            if received == nil { received = name }
            defer { continuation = nil }
            return continuation.map { ($0, received ?? name) }
        }
        waiting.map { $0.0.resume(returning: $0.1) }
    }
}
#endif

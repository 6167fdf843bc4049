#if Server
import Foundation

/// The write end of the pipe the signal handler writes to (``Termination/catchSignals()``): set
/// once, before the handler is installed, and only read after.
nonisolated(unsafe) private var signalPipe: Int32 = -1

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
    ///
    /// On Linux a `sigaction` handler writes the signal's number to a pipe that a thread reads:
    /// caught from the moment `sigaction` returns. A dispatch signal source is armed later, on
    /// libdispatch's own queue, after `resume()` has returned: with the signal already ignored
    /// for it, a SIGTERM sent right after the start-up line was lost now and then and the
    /// process served on (1 in 10 rounds of `sigtermRightAfterTheStartUpLine` on a busy machine).
    func catchSignals() {
        #if os(Linux)
        var ends: [Int32] = [0, 0]
        if pipe(&ends) == 0 {
            _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)  // the handler never blocks
            signalPipe = ends[1]
            let reader = ends[0]
            let thread = Thread { [weak self] in
                var number: UInt8 = 0
                while read(reader, &number, 1) == 1 {
                    self?.receive(Int32(number) == SIGINT ? "SIGINT" : "SIGTERM")
                }
            }
            thread.name = "httpmock signals"
            thread.start()
            for number in [SIGINT, SIGTERM] {
                var action = sigaction()
                action.__sigaction_handler.sa_handler = { number in
                    var byte = UInt8(truncatingIfNeeded: number)
                    _ = write(signalPipe, &byte, 1)
                }
                sigemptyset(&action.sa_mask)
                action.sa_flags = SA_RESTART
                sigaction(number, &action, nil)
            }
            return
        }
        #endif
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

#if Server
import Foundation

/// SIGINT and SIGTERM, turned into an awaitable event.
enum Signals {
    static func waitForTermination() async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let resumed = ResumeOnce(continuation)
            for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { resumed.resume(name) }
                source.resume()
                resumed.keep(source)
            }
        }
    }

    private final class ResumeOnce: @unchecked Sendable {
        // @unchecked: every field is guarded by `lock`.
        private let lock = NSLock()
        private var continuation: CheckedContinuation<String, Never>?
        private var sources: [any DispatchSourceSignal] = []

        init(_ continuation: CheckedContinuation<String, Never>) { self.continuation = continuation }

        func keep(_ source: any DispatchSourceSignal) { lock.withLock { sources.append(source) } }

        func resume(_ name: String) {
            let continuation = lock.withLock { () -> CheckedContinuation<String, Never>? in
                defer { self.continuation = nil }
                return self.continuation
            }
            continuation?.resume(returning: name)
        }
    }
}
#endif

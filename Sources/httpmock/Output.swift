#if Server
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a line to standard output (standard output is a pipe under a test); to standard error
/// under `httpmock run`, whose standard output is the server's URL alone.
func say(_ line: String) {
    (Output.standardOutputIsReserved ? Output.stderr : Output.stdout).write(line + "\n")
}

/// Writes a line to standard error.
func complain(_ line: String) {
    Output.stderr.write(line + "\n")
}

/// A file descriptor the CLI writes its log to.
///
/// Logging never holds up serving (issue 44): ``write(_:)`` only queues the text, and one writer
/// thread makes the blocking `write(2)` calls, in order across standard output and standard
/// error. A parent that never reads the pipe blocks that thread alone; once
/// ``pendingLimit`` bytes wait, further lines are dropped and counted, and the count is written
/// as soon as the reader catches up. A reader that went away (`httpmock serve | head -1`) is no
/// reason to stop serving either: SIGPIPE is ignored (``ignoreBrokenPipes()``), and after the
/// first `EPIPE` (or any other write error) that descriptor's output is dropped.
final class Output: Sendable {
    static let stdout = Output(descriptor: STDOUT_FILENO)
    static let stderr = Output(descriptor: STDERR_FILENO)

    /// The most bytes that wait for the writer thread; past it lines are dropped and counted.
    static let pendingLimit = 1 << 20

    /// Whether `say` writes to standard error (`httpmock run`: standard output holds the URL).
    static var standardOutputIsReserved: Bool {
        get { reservation.lock.withLock { reservation.isReserved } }
        set { reservation.lock.withLock { reservation.isReserved = newValue } }
    }
    private static let reservation = Reservation()

    private final class Reservation: @unchecked Sendable {
        // @unchecked: `isReserved` is read and written only under `lock`.
        let lock = NSLock()
        var isReserved = false
    }

    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// A broken pipe becomes an `EPIPE` from `write`, not a signal that ends the process.
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Queues `text` for the writer thread and returns at once (never blocks on the reader).
    func write(_ text: String) {
        Self.queue.enqueue(text, to: descriptor)
    }

    /// Waits until what was queued is written, giving up after a second in which the writer made
    /// no progress (a reader that does not read): before the process exits, so its last lines
    /// (an error, "stopped") are not lost, while SIGTERM still ends it promptly.
    static func flush() {
        queue.flush()
    }

    private static let queue = LineQueue()
}

/// The lines waiting for the writer thread, in order, with the descriptor each goes to.
private final class LineQueue: @unchecked Sendable {
    // @unchecked: every mutable field is read and written only under `condition`.
    private let condition = NSCondition()
    private var pending: [(descriptor: Int32, bytes: [UInt8])] = []
    /// Bytes queued or being written.
    private var pendingBytes = 0
    /// Lines dropped per descriptor since the last notice.
    private var dropped: [Int32: Int] = [:]
    private var broken: Set<Int32> = []
    private var isWriting = false
    private var writerStarted = false
    /// Counts the batches written, so ``flush()`` sees whether the writer progresses.
    private var progress = 0

    func enqueue(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        let startsWriter = condition.withLock { () -> Bool in
            guard !broken.contains(descriptor) else { return false }
            guard pendingBytes + bytes.count <= Output.pendingLimit else {
                dropped[descriptor, default: 0] += 1
                return false
            }
            pending.append((descriptor, bytes))
            pendingBytes += bytes.count
            condition.signal()
            defer { writerStarted = true }
            return !writerStarted
        }
        // The writer starts after the lock is released (no thread is created under a lock): it
        // finds the line queued, as it looks before it waits.
        if startsWriter {
            let thread = Thread { [self] in self.drain() }
            thread.name = "httpmock log writer"
            thread.start()
        }
    }

    func flush() {
        condition.lock()
        defer { condition.unlock() }
        while !pending.isEmpty || isWriting {
            let before = progress
            _ = condition.wait(until: Date().addingTimeInterval(1))
            if progress == before, !pending.isEmpty || isWriting { return }  // the reader is not reading
        }
    }

    /// The writer thread: takes every queued line, writes them in order, then the drop notices.
    private func drain() {
        while true {
            condition.lock()
            while pending.isEmpty, dropped.isEmpty { condition.wait() }
            var batch = pending
            let queuedBytes = batch.reduce(0) { $0 + $1.bytes.count }
            pending = []
            isWriting = true
            condition.unlock()

            // Whoever fell behind hears how much was lost, right after the lines that did fit.
            let notices = condition.withLock { () -> [(Int32, [UInt8])] in
                defer { dropped = [:] }
                return dropped.sorted { $0.key < $1.key }.map { descriptor, count in
                    let line = "httpmock: \(count) log line\(count == 1 ? "" : "s") dropped: this output was not read fast enough\n"
                    return (descriptor, Array(line.utf8))
                }
            }
            batch += notices.map { (descriptor: $0.0, bytes: $0.1) }
            var failed: Set<Int32> = []
            for line in batch where !failed.contains(line.descriptor) {
                if !Self.writeAll(line.bytes, to: line.descriptor) { failed.insert(line.descriptor) }
            }
            condition.withLock {
                broken.formUnion(failed)
                pendingBytes -= queuedBytes
                isWriting = false
                progress += 1
                condition.broadcast()
            }
        }
    }

    /// Writes every byte, retrying after signals; `false` when the reader is gone (`EPIPE`) or
    /// writing fails otherwise.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var remaining = bytes[...]
        while !remaining.isEmpty {
            let written = remaining.withUnsafeBytes { buffer in
                #if canImport(Darwin)
                Darwin.write(descriptor, buffer.baseAddress, buffer.count)
                #elseif canImport(Glibc)
                Glibc.write(descriptor, buffer.baseAddress, buffer.count)
                #else
                Musl.write(descriptor, buffer.baseAddress, buffer.count)
                #endif
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            remaining = remaining.dropFirst(written)
        }
        return true
    }
}
#endif

#if Server
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a line to standard output at once (standard output is a pipe under a test); to
/// standard error under `httpmock run`, whose standard output is the server's URL alone.
func say(_ line: String) {
    (Output.standardOutputIsReserved ? Output.stderr : Output.stdout).write(line + "\n")
}

/// Writes a line to standard error.
func complain(_ line: String) {
    Output.stderr.write(line + "\n")
}

/// A file descriptor the CLI writes its log to. A reader that went away (`httpmock serve |
/// head -1`) is no reason to stop serving: SIGPIPE is ignored (``ignoreBrokenPipes()``), and
/// after the first `EPIPE` (or any other write error) the output is dropped.
final class Output: @unchecked Sendable {
    // @unchecked: `isBroken` is read and written only under `broken`.
    static let stdout = Output(descriptor: STDOUT_FILENO)
    static let stderr = Output(descriptor: STDERR_FILENO)

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
    /// Whether writing failed once (the reader is gone); one lock also keeps lines whole when
    /// the server's threads log at once.
    private let broken = NSLock()
    private var isBroken = false

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// A broken pipe becomes an `EPIPE` from `write`, not a signal that ends the process.
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    func write(_ text: String) {
        broken.withLock {
            guard !isBroken else { return }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { buffer in
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
                    isBroken = true  // EPIPE and the like: nobody reads any more
                    return
                }
                bytes = bytes.dropFirst(written)
            }
        }
    }
}
#endif

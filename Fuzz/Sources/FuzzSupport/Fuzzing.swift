import CFuzzer
import Foundation

/// Runs a fuzz target: hands libFuzzer the target's body and fails on any input that takes
/// longer than ``budget``.
///
/// libFuzzer's own `-timeout=` is in whole seconds, so the 100 ms budget is checked here: an
/// input is timed, and if it took longer it is run again (up to three runs, so a first-call
/// initialisation does not count); if even the fastest run is over budget the target aborts,
/// and libFuzzer saves the input as a crash artifact (`crash-…`). The time is the process's CPU
/// time, not the clock's: on a machine busy with other work (CI beside a build) an input waits
/// for a core without using one, which is not slowness of the code under test. An input
/// that blocks instead of computing is still caught by libFuzzer's `-timeout=1` (wall clock).
public enum Fuzzing {
    /// The longest one input may take.
    public static let budget: UInt64 = 100_000_000  // nanoseconds

    nonisolated(unsafe) private static var body: (([UInt8]) -> Void)?

    /// The entry point of a target: call it from `@_cdecl("<Target>_main")`, the symbol SwiftPM
    /// makes the program's `main`.
    public static func main(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ body: @escaping ([UInt8]) -> Void
    ) -> CInt {
        Fuzzing.body = body
        var argc = argc
        var argv = argv
        return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            testOneInput(data, size)
        }
    }

    static func runTimed(_ bytes: [UInt8]) {
        guard let body else { return }
        var fastest = UInt64.max
        for _ in 0..<3 {
            let start = cpuTime()
            body(bytes)
            fastest = min(fastest, cpuTime() - start)
            if fastest <= budget { return }
        }
        let message =
            "FUZZ: slow input: \(fastest / 1_000_000) ms of CPU time on the fastest of 3 runs (budget \(budget / 1_000_000) ms), \(bytes.count) bytes\n"
        FileHandle.standardError.write(Data(message.utf8))
        abort()
    }

    /// The CPU time of the whole process (every thread: a target may hand work to others), in
    /// nanoseconds.
    private static func cpuTime() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The input as text split into `count` lines (the last takes the rest, newlines included);
    /// missing lines are empty. Invalid UTF-8 is repaired, as a `String` made from bytes would be.
    public static func lines(_ bytes: [UInt8], count: Int) -> [String] {
        var parts = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: count - 1, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        while parts.count < count { parts.append("") }
        return parts
    }
}

/// One input. libFuzzer's runtime (linked whole by `-sanitize=fuzzer`) references this symbol
/// even though ``Fuzzing/main(_:_:_:)`` hands the driver its callback directly.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    Fuzzing.runTimed(bytes)
    return 0
}

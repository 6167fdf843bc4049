import Foundation
import HTTPMock
import Testing

@Suite("Large file bodies")
struct LargeFileTests {
    /// Resident set size of this process, from `/proc/self/statm` (Linux only).
    static func residentBytes() -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Measured in a child process: resident size is the whole process's, so tests running
    /// beside it in the suite (JavaScriptCore's heap, 1 GB uploads) would count as this one's.
    @Test(
        "a 1 GB file fixture reaches a delegate-driven task in chunks with peak RSS growth under 64 MB",
        .enabled(if: residentBytes() != nil && ChildProcess.isAvailable, "needs /proc/self/statm and a child process"))
    func oneGigabyteToDelegate() async throws {
        let outcome = try await ChildProcess.run("oneGigabyteToDelegate", timeout: 120)
        #expect(outcome.passed, "scenario oneGigabyteToDelegate: \(outcome)")
    }

    /// The measurement, run by ``ChildScenarioHost`` alone in its process.
    static func oneGigabyteToDelegateScenario() async throws {
        let directory = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 1 << 30
        let fileURL = try Fixtures.sparseFile(bytes: size, in: directory, name: "one-gigabyte.bin")

        let mock = HTTPMock()
        mock.addResponses(forPath: "/huge", responses: [.file(url: fileURL)])
        let peak = PeakResident(baseline: try #require(Self.residentBytes()))
        let delegate = RecordingDelegate(keepsChunks: false) { _ in peak.sample(Self.residentBytes()) }
        let session = mock.delegateSession(delegate)
        defer { session.finishTasksAndInvalidate() }

        let start = Date()
        session.dataTask(with: url("https://example.com/huge")).resume()
        await delegate.completion()
        let seconds = Date().timeIntervalSince(start)

        #expect(delegate.error == nil)
        #expect(delegate.byteCount == size)
        let growth = peak.growth
        print(
            "1 GB file fixture to a delegate task: peak RSS growth \(growth / 1_048_576) MB, \(Int(Double(size) / 1_048_576 / seconds)) MB/s"
        )
        // ThreadSanitizer's shadow memory grows with every byte touched: RSS says nothing there.
        if !TestEnvironment.isThreadSanitized {
            #expect(growth < 64 * 1_048_576)
        }
    }
}

/// The highest resident size seen, relative to a baseline.
final class PeakResident: @unchecked Sendable {
    // @unchecked: state guarded by `lock`.
    private let lock = NSLock()
    private let baseline: Int
    private var peak: Int

    init(baseline: Int) {
        self.baseline = baseline
        self.peak = baseline
    }

    func sample(_ resident: Int?) {
        guard let resident else { return }
        lock.withLock { peak = max(peak, resident) }
    }

    var growth: Int { lock.withLock { peak - baseline } }
}

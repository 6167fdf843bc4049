import Foundation
import HTTPMock

/// A 1 GB file fixture served to a delegate-driven task: peak RSS growth (target < 64 MB) and
/// throughput against reading the same file from disk in the same chunk size.
enum LargeFile {
    static let size = 1 << 30

    final class CountingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        // @unchecked: fields are touched under `lock`.
        private let lock = NSLock()
        private var bytes = 0
        private var peak = 0
        private var continuation: CheckedContinuation<Void, Never>?
        let baseline: Int

        init(baseline: Int) {
            self.baseline = baseline
            self.peak = baseline
        }

        var received: Int { lock.withLock { bytes } }
        var peakGrowth: Int { lock.withLock { peak - baseline } }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let resident = Harness.residentBytes()
            lock.withLock {
                bytes += data.count
                peak = max(peak, resident)
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let continuation = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                defer { self.continuation = nil }
                return self.continuation
            }
            continuation?.resume()
        }

        func wait() async {
            await withCheckedContinuation { continuation in lock.withLock { self.continuation = continuation } }
        }
    }

    static func run() async throws -> [Row] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("one-gigabyte.bin")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let writer = try FileHandle(forWritingTo: file)
        try writer.truncate(atOffset: UInt64(size))  // sparse: no disk space used
        try writer.close()

        // Baseline: read the file in the chunk size HTTPMock uses.
        let readSeconds = try await Harness.time {
            let reader = try FileHandle(forReadingFrom: file)
            defer { try? reader.close() }
            while let chunk = try reader.read(upToCount: 256 * 1024), !chunk.isEmpty {}
        }

        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/huge", responses: [.file(url: file)])
        let delegate = CountingDelegate(baseline: Harness.residentBytes())
        let session = URLSession(configuration: mock.makeSessionConfiguration(), delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let serveSeconds = await Harness.time {
            session.dataTask(with: URL(string: "https://example.com/huge")!).resume()
            await delegate.wait()
        }
        guard delegate.received == size else { throw URLError(.cannotDecodeContentData) }

        let growth = delegate.peakGrowth
        let readRate = Double(size) / 1_048_576 / readSeconds
        let serveRate = Double(size) / 1_048_576 / serveSeconds
        let rows = [
            Row(
                name: "1 GB fixture: peak RSS growth", value: "\(growth / 1_048_576) MB", ratio: nil, target: "< 64 MB",
                met: growth < 64 * 1_048_576),
            Row(
                name: "reading the file in 256 KB chunks", value: String(format: "%.0f MB/s", readRate), ratio: 1, target: "baseline",
                met: nil),
            Row(
                name: "serving it to a delegate task", value: String(format: "%.0f MB/s", serveRate), ratio: serveRate / readRate,
                target: "(reported)", met: nil),
        ]
        Row.printTable("Large file fixture (1 GB sparse file, delegate-driven data task)", rows)
        return rows
    }
}

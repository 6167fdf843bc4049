#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `httpmock serve` with its standard output (the log) on a pipe that a parent reads up to the
/// start-up line and then no more, as a test harness that only wanted the URL does.
private final class UnreadCLI: @unchecked Sendable {
    // @unchecked: `received` is guarded by `lock`; `process` and `pipe` are used by one test.
    let process = Process()
    let pipe = Pipe()
    private let lock = NSLock()
    private var received = Data()

    init(_ arguments: [String], directory: URL) throws {
        process.executableURL = try httpmockExecutable()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        try? pipe.fileHandleForWriting.close()
    }

    var text: String { lock.withLock { String(decoding: received, as: UTF8.self) } }

    /// Reads the pipe until the start-up line, then stops reading; returns the base URL.
    func readStartUpLine() async throws -> URL {
        let handle = pipe.fileHandleForReading
        let firstLines = try await blocking { () -> String in
            var data = Data()
            while !String(decoding: data, as: UTF8.self).contains("serving on http://") {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                data.append(chunk)
            }
            return String(decoding: data, as: UTF8.self)
        }
        let line = try #require(firstLines.split(separator: "\n").first { $0.contains("serving on http://") })
        return try #require(
            line.range(of: "http://").flatMap { URL(string: String(line[$0.lowerBound...]).trimmingCharacters(in: .whitespaces)) })
    }

    /// From now on reads everything the pipe brings, on a thread of its own.
    func startReading() {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                lock.withLock { received.append(chunk) }
            }
        }
    }

    /// Sends SIGTERM and waits for the exit (killing the process after a generous minute);
    /// `nil` when it had to be killed, else its exit status.
    func terminate() async throws -> Int32? {
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus
    }
}

/// Sends `count` GET requests for `path(i)`, eight at a time; the status codes, in order.
private func send(_ count: Int, to base: URL, path: @escaping @Sendable (Int) -> String) async throws -> [Int] {
    let session = makePlainSession()
    return try await withThrowingTaskGroup(of: (Int, Int).self) { group in
        var statuses = Array(repeating: 0, count: count)
        var next = 0
        func add() {
            let index = next
            next += 1
            group.addTask {
                let url = try #require(URL(string: base.absoluteString + path(index)))
                let (_, response) = try await session.data(from: url)
                return (index, (response as? HTTPURLResponse)?.statusCode ?? -1)
            }
        }
        for _ in 0..<min(8, count) { add() }
        while let (index, status) = try await group.next() {
            statuses[index] = status
            if next < count { add() }
        }
        return statuses
    }
}

/// Issue 44.5: logging never blocks serving. Before, every log line was written by the event
/// loop that served the request: once a parent stopped reading the pipe (64 KB), stubbed
/// requests stalled after about 254 of them and SIGTERM no longer stopped the process.
@Suite("httpmock's log never holds up serving", .serialized, .timeLimit(.minutes(5)))
struct CLILoggingTests {
    @Test("standard output never read after the start-up line: 2,000 logged requests all answer; SIGTERM exits 0")
    func unreadStandardOutput() async throws {
        let folder = try makeMocksFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cli = try UnreadCLI(["serve", folder.path, "--port", "0", "--log-level", "INFO"], directory: folder)
        defer { if cli.process.isRunning { kill(cli.process.processIdentifier, SIGKILL) } }
        let base = try await cli.readStartUpLine()
        // Every exchange logs a line, every miss its near-miss report too: megabytes in all.
        let statuses = try await send(2_000, to: base) { index in
            index.isMultiple(of: 10) ? "/missing/\(index)/" + String(repeating: "x", count: 2_000) : "/ping?n=\(index)"
        }
        #expect(statuses.filter { $0 == 200 }.count == 1_800)
        #expect(statuses.filter { $0 == 404 }.count == 200)
        #expect(cli.process.isRunning)
        // The pipe is still full and unread: SIGTERM stops the server all the same.
        #expect(try await cli.terminate() == 0)
    }

    @Test("lines that did not fit while nobody read are dropped and counted; the log goes on once read again")
    func droppedLinesAreCounted() async throws {
        let folder = try makeMocksFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cli = try UnreadCLI(["serve", folder.path, "--port", "0"], directory: folder)
        defer { if cli.process.isRunning { kill(cli.process.processIdentifier, SIGKILL) } }
        let base = try await cli.readStartUpLine()
        // 300 misses of 4 KB paths, each logged with its near-miss report: more than the pipe
        // and the 1 MB the CLI keeps for a reader that fell behind.
        let statuses = try await send(300, to: base) { index in "/missing/\(index)/" + String(repeating: "x", count: 4_000) }
        #expect(statuses == Array(repeating: 404, count: 300))
        cli.startReading()
        let after = try await send(1, to: base) { _ in "/ping?after-the-reader-came-back" }
        #expect(after == [200])
        let deadline = Date().addingTimeInterval(60)
        while !cli.text.contains("/ping?after-the-reader-came-back 200"), Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        let text = cli.text
        #expect(text.contains("/ping?after-the-reader-came-back 200"))
        let notice = try #require(
            text.split(separator: "\n").first { $0.contains("log lines dropped: this output was not read fast enough") },
            "\(text.suffix(2_000))")
        let count = Int(notice.split(separator: " ")[1]) ?? 0
        #expect(count > 0, "\(notice)")
        #expect(try await cli.terminate() == 0)
    }
}
#endif

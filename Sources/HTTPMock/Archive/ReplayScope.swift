import Foundation

#if canImport(Testing)
import Testing
#endif

/// One record/replay scope: reads `HTTPMOCK_RECORD`, prepares the instance from the archive,
/// and when the scope ends writes the archive (recording modes) or reports misses (replay).
struct ReplayScope: Sendable {
    enum Mode: String, Sendable {
        case none, missing, all
    }

    let archive: URL
    let mode: Mode
    let redaction: Redaction
    /// The entries loaded from the archive, kept to be written again with new ones (`missing`).
    let loaded: [HAREntry]
    /// The command that re-records this archive.
    let recordCommand: String

    static let environmentKey = "HTTPMOCK_RECORD"

    /// `Replays/<name>.har` beside `filePath`, or `<directory>/<name>.har`.
    static func archiveURL(name: String, directory: URL?, filePath: String) -> URL {
        let folder = directory ?? URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Replays")
        return folder.appendingPathComponent(name + ".har")
    }

    static func mode(from environment: [String: String]) throws(HTTPMockError) -> Mode {
        let raw = environment[environmentKey]?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        if raw.isEmpty { return .none }
        guard let mode = Mode(rawValue: raw) else {
            throw HTTPMockError(
                .har,
                "\(environmentKey) is \"\(environment[environmentKey] ?? "")\"; expected none (replay), missing (record what the archive lacks) or all (record everything again)"
            )
        }
        return mode
    }

    /// Prepares `mock` for the scope.
    static func start(
        name: String, directory: URL?, filePath: String, testFilter: String,
        matching: HARMatching, redaction: Redaction, mock: HTTPMock
    ) throws(HTTPMockError) -> ReplayScope {
        guard !name.isEmpty else { throw HTTPMockError(.har, "replaying: the archive name is empty") }
        let archive = archiveURL(name: name, directory: directory, filePath: filePath)
        let mode = try mode(from: ProcessInfo.processInfo.environment)
        let command = "\(environmentKey)=missing swift test --filter \(testFilter)"
        var loaded: [HAREntry] = []
        let exists = FileManager.default.fileExists(atPath: archive.path)
        switch mode {
        case .none:
            guard exists else {
                throw HTTPMockError(.har, "No archive at \(archive.path) to replay. Record it with: \(command)")
            }
            loaded = try mock.loadHAR(from: archive, timing: .immediate, matching: matching, redaction: redaction)
        case .missing:
            if exists { loaded = try mock.loadHAR(from: archive, timing: .immediate, matching: matching, redaction: redaction) }
            mock.unmockedPolicy = .passthrough
        case .all:
            mock.unmockedPolicy = .passthrough
        }
        return ReplayScope(archive: archive, mode: mode, redaction: redaction, loaded: loaded, recordCommand: command)
    }

    /// Ends the scope: strict replay reports each request the archive did not hold (never
    /// rewriting it); recording writes the archive, redacted.
    func finish(_ mock: HTTPMock, at location: SourceLocation) throws(HTTPMockError) {
        // Archived responses that were not requested are not mistakes: only misses are reported.
        let (misses, _, _) = mock.registry.takeUnverified()
        for miss in misses {
            let report = miss.nearMissReport ?? "No mock for \(miss.request.method) \(miss.request.url.absoluteString)"
            Reporter.fail("\(report)\nThe request is not in the archive \(archive.path). To record it, run: \(recordCommand)", at: location)
        }
        let journal = mock.recordedRequests
        switch mode {
        case .none:
            return
        case .missing:
            let recorded = journal.filter { !$0.isMatched && $0.served != nil }.map(HARWriter.entry(for:))
            guard !recorded.isEmpty || loaded.isEmpty && !FileManager.default.fileExists(atPath: archive.path) else { return }
            try HARWriter.write(loaded + recorded, to: archive, redaction: redaction)
        case .all:
            try HARWriter.write(journal.filter { $0.served != nil }.map(HARWriter.entry(for:)), to: archive, redaction: redaction)
        }
    }

    /// Runs `body` with a fresh instance as ``HTTPMock/current`` inside a scope.
    static func run<Result>(
        name: String, directory: URL?, matching: HARMatching, redaction: Redaction,
        location: SourceLocation, testFilter: String,
        _ body: (HTTPMock) async throws -> Result
    ) async throws -> Result {
        let mock = HTTPMock(fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column)
        let scope = try start(
            name: name, directory: directory, filePath: location.filePath, testFilter: testFilter,
            matching: matching, redaction: redaction, mock: mock)
        let result: Result
        do {
            result = try await HTTPMock.$scoped.withValue(mock) { try await body(mock) }
        } catch {
            try? scope.finish(mock, at: location)
            throw error
        }
        try scope.finish(mock, at: location)
        return result
    }
}

/// Runs `body` with a fresh instance (also ``HTTPMock/current``) that replays, or records, the
/// HAR archive `name`.
///
/// ```swift
/// func testFetchUser() async throws {
///     try await withHTTPMock(replaying: "fetchUser") { mock in
///         let client = UserClient(session: mock.urlSession, baseURL: URL(string: "https://api.example.com")!)
///         let user = try await client.user(id: 1)
///         XCTAssertEqual(user.name, "Ada")
///     }
/// }
/// ```
///
/// The archive is `Replays/<name>.har` beside the calling file, or `<in>/<name>.har`.
/// `HTTPMOCK_RECORD`, read when the scope starts, chooses what happens:
/// - `none` (the default): strict replay. Each archived request is served as recorded
///   (see ``HTTPMock/loadHAR(from:timing:)``); a request the archive lacks gets a 404 and a test
///   failure naming the archive and the command that records it. The archive is never rewritten;
///   a missing archive throws ``HTTPMockError`` (code `.har`).
/// - `missing`: archived requests are replayed; the others go to the network (the instance's
///   passthrough session) and are appended to the archive when the scope ends.
/// - `all`: every request goes to the network and the archive is rewritten from them.
///
/// Recorded archives are redacted before they are written: secrets never reach the disk.
///
/// - Parameters:
///   - name: The archive's name, without `.har`.
///   - directory: The folder holding `<name>.har`; `nil` (the default) is `Replays` beside the
///     calling file.
///   - matching: How requests match archived ones; see ``HARMatching``.
///   - redaction: What recording removes; redacted query items match any value on replay.
///   - body: The code under test.
///   - fileID: The call site, for error reports; leave the default.
///   - filePath: The call site, for error reports; leave the default.
///   - line: The call site, for error reports; leave the default.
///   - column: The call site, for error reports; leave the default.
@discardableResult
public func withHTTPMock<Result>(
    replaying name: String, in directory: URL? = nil, matching: HARMatching = [], redacting redaction: Redaction = .default,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
    _ body: (HTTPMock) async throws -> Result
) async throws -> Result {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    return try await ReplayScope.run(
        name: name, directory: directory, matching: matching, redaction: redaction,
        location: location, testFilter: ReplayScope.testFilter(fileID: fileID), body)
}

extension ReplayScope {
    /// What `swift test --filter` takes to run the calling test again: the Swift Testing test's
    /// name, else the running XCTest test as `Class/testMethod` (a file name selects no XCTest
    /// test), else the calling file's name.
    static func testFilter(fileID: String) -> String {
        #if canImport(Testing)
        if Test.current != nil { return Reporter.currentTestFilter(fileID: fileID) }
        #endif
        #if canImport(XCTest)
        if let test = XCTestTracker.runningTestFilter { return test }
        #endif
        return Reporter.currentTestFilter(fileID: fileID)
    }
}

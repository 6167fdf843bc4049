#if canImport(XCTest)
import Foundation
import HTTPMock
import XCTest

/// The record command printed for a missing archive names the running XCTest test the way
/// `swift test --filter` selects it (a filter by file name would run no XCTest test).
final class ReplayCommandXCTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        // HTTPMock follows XCTest's test cases from the first instance on: made here, it sees
        // this class's tests start.
        _ = HTTPMock()
    }

    func testMissingArchiveNamesTheXCTestTest() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ReplayCommandXCTests-\(UUID().uuidString)")
        do {
            try await withHTTPMock(replaying: "absent", in: directory) { _ in }
            XCTFail("a missing archive in strict replay must throw")
        } catch let error as HTTPMockError {
            XCTAssertTrue(
                error.message.hasSuffix(
                    "Record it with: HTTPMOCK_RECORD=missing swift test --filter ReplayCommandXCTests/testMissingArchiveNamesTheXCTestTest"),
                error.message)
        }
    }

    /// The default lookup reads `Replays/` beside the calling source file, so archives are found
    /// whether the test target excludes that folder or copies it as a resource.
    func testArchiveBesideTheCallingFileIsFoundWithoutBundling() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ReplayCommandXCTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let replays = folder.appendingPathComponent("Replays")
        try FileManager.default.createDirectory(at: replays, withIntermediateDirectories: true)
        let url = try XCTUnwrap(URL(string: "https://api.example.com/user"))
        let recorder = HTTPMock()
        recorder.addResponses(forPath: "/user", host: "api.example.com", responses: [.plaintext("Ada")])
        _ = try await recorder.urlSession.data(from: url)
        try recorder.exportHAR(to: replays.appendingPathComponent("beside.har"))

        let sourceFile = folder.appendingPathComponent("AppTests.swift").path
        let body = try await withHTTPMock(replaying: "beside", filePath: sourceFile) { mock in
            try await mock.urlSession.data(from: url).0
        }
        XCTAssertEqual(body, Data("Ada".utf8))
    }
}
#endif

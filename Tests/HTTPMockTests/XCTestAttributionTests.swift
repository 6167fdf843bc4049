#if canImport(XCTest)
import Foundation
import HTTPMock
import XCTest

/// Proves that failures reach the running XCTest test case with the user's file and line.
/// `recordFailure` is overridden to capture them instead of failing this test.
final class XCTestAttributionTests: XCTestCase {
    private let captured = NSLock()
    nonisolated(unsafe) private var failures: [(description: String, file: String, line: Int)] = []

    override class func setUp() {
        super.setUp()
        // HTTPMock starts following XCTest's test cases when the first instance is made; made
        // here, it sees every test of this class start.
        _ = HTTPMock()
    }

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        captured.withLock { failures.append((description, filePath, lineNumber)) }
    }

    private var recorded: [(description: String, file: String, line: Int)] { captured.withLock { failures } }

    func testRegistrationMistakeIsAttributedToTheFactoryLine() {
        let mock = HTTPMock()
        let line = #line + 1
        mock.addResponses(forPath: "/user", responses: [.file(url: URL(fileURLWithPath: "/missing/user.json"))])

        XCTAssertEqual(recorded.count, 1)
        XCTAssertEqual(recorded.first?.file, #filePath)
        XCTAssertEqual(recorded.first?.line, line)
        XCTAssertTrue(recorded.first?.description.contains("no file at /missing/user.json") == true)
    }

    func testVerifyIsAttributedToItsCallSite() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        _ = try await mock.urlSession.data(from: URL(string: "https://example.com/nothing")!)
        let line = #line + 1
        let messages = mock.verify()

        XCTAssertEqual(messages.count, 1)
        XCTAssertEqual(recorded.map(\.line), [line])
        XCTAssertEqual(recorded.first?.file, #filePath)
        XCTAssertTrue(recorded.first?.description.hasPrefix("No mock for GET https://example.com/nothing") == true)
    }

    func testFailTestMissIsReportedAtOnceToTheRunningTest() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.unmockedPolicy = .failTest
        do {
            _ = try await mock.urlSession.data(from: URL(string: "https://example.com/strict")!)
            XCTFail("expected the request to fail")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
        }
        XCTAssertEqual(recorded.count, 1)
        XCTAssertTrue(recorded.first?.description.contains("No mock for GET https://example.com/strict") == true)
        XCTAssertEqual(mock.verify(), [], "a miss reported at once is not reported again")
    }
}
#endif

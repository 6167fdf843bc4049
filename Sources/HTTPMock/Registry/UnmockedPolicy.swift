import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an instance answers to a request that no route matches.
///
/// ```swift
/// mock.unmockedPolicy = .fail(.notConnectedToInternet)
/// ```
///
/// Every unmatched request is recorded in the journal whatever the policy.
public struct UnmockedPolicy: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case notFound
        case mock(MockResponse)
        case fail(URLError.Code)
        case passthrough
        case failTest
    }

    let kind: Kind

    /// `404`, `text/plain`, body `No mock for GET https://host/path`. The default.
    public static let notFound = UnmockedPolicy(kind: .notFound)

    /// Answer with `response` (its lifetime is ignored: it answers every unmatched request).
    public static func mock(_ response: MockResponse) -> UnmockedPolicy { UnmockedPolicy(kind: .mock(response)) }

    /// Fail the request with `URLError(code)`.
    public static func fail(_ code: URLError.Code) -> UnmockedPolicy { UnmockedPolicy(kind: .fail(code)) }

    /// Send the request to the real network with the instance's passthrough session (by
    /// default a plain ephemeral session without HTTPMock) and relay the response, body or error.
    public static let passthrough = UnmockedPolicy(kind: .passthrough)

    /// Fail the request with `URLError(.resourceUnavailable)` and record a test failure for the
    /// miss, reported on the test's task by `verify()` (under XCTest also at once).
    public static let failTest = UnmockedPolicy(kind: .failTest)

    public var description: String {
        switch kind {
        case .notFound: return ".notFound"
        case .mock(let response): return ".mock(\(response))"
        case .fail(let code): return ".fail(\(code.rawValue))"
        case .passthrough: return ".passthrough"
        case .failTest: return ".failTest"
        }
    }
}

extension UnmockedPolicy {
    /// The key of `URLError.userInfo` that holds the near-miss report under `.fail` and `.failTest`.
    public static let nearMissReportKey = "HTTPMockNearMissReport"

    /// The response this policy gives `request`; `report` is its near-miss report.
    func response(for request: MockRequest, report: String?) -> MockResponse {
        let report = report ?? "No mock for \(request.method) \(request.url.absoluteString)"
        switch kind {
        case .notFound:
            return .plaintext(report, status: .notFound)
        case .mock(let response):
            return response
        case .fail(let code):
            return .failure(URLError(code, userInfo: [
                NSLocalizedDescriptionKey: report,
                Self.nearMissReportKey: report,
                NSURLErrorFailingURLErrorKey: request.url,
            ]))
        case .failTest:
            return .failure(URLError(.resourceUnavailable, userInfo: [
                NSLocalizedDescriptionKey: report + "\n(unmockedPolicy is .failTest)",
                Self.nearMissReportKey: report,
                NSURLErrorFailingURLErrorKey: request.url,
            ]))
        case .passthrough:
            return .passthrough()
        }
    }
}

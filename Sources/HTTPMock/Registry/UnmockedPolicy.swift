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
public struct UnmockedPolicy: Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable {
        case notFound
        case mock(MockResponse)
        case fail(URLError.Code)
        case passthrough
        case failTest
    }

    let kind: Kind
    /// Tells `.mock` policies made by different calls apart (responses cannot be compared); 0 otherwise.
    private var identity = 0

    init(kind: Kind) { self.kind = kind }

    /// `404`, `text/plain`, body `No mock for GET https://host/path`. The default.
    public static let notFound = UnmockedPolicy(kind: .notFound)

    /// Answer with `response` (its lifetime is ignored: it answers every unmatched request).
    public static func mock(_ response: MockResponse) -> UnmockedPolicy {
        var policy = UnmockedPolicy(kind: .mock(response))
        policy.identity = nextID.withLock { value -> Int in
            value += 1
            return value
        }
        return policy
    }

    private static let nextID = Locked(0)

    /// Fail the request with `URLError(code)`.
    public static func fail(_ code: URLError.Code) -> UnmockedPolicy { UnmockedPolicy(kind: .fail(code)) }

    /// Send the request to the real network with the instance's passthrough session (by
    /// default a plain ephemeral session without HTTPMock) and relay the response, body or error.
    public static let passthrough = UnmockedPolicy(kind: .passthrough)

    /// Fail the request with `URLError(.resourceUnavailable)` and fail the running test with the
    /// miss's near-miss report, at the line that made the instance.
    ///
    /// The test fails whether or not it uses the `.httpMock` trait, `verify()` or
    /// `withHTTPMock`, and even when the client swallows the error (`try?`), in Swift Testing
    /// (set the policy or take `urlSession` from the test) and XCTest alike. A miss made where
    /// no test runs is reported when a test next does so, or when the instance is deinitialised.
    ///
    /// ```swift
    /// mock.unmockedPolicy = .failTest
    /// _ = try? await client.refresh()   // an unmocked request still fails this test
    /// ```
    public static let failTest = UnmockedPolicy(kind: .failTest)

    /// bstien/HTTPMock's `.throwError(error)`: every unmatched request fails with `error`,
    /// unchanged (same type, same payload), as ``MockResponse/failure(_:lifetime:delivery:)`` does.
    @available(*, deprecated, message: "use .mock(.failure(error)) or .fail(URLError.Code); .failTest also records a test failure")
    public static func throwError(_ error: any Error) -> UnmockedPolicy { .mock(.failure(error)) }

    /// bstien/HTTPMock's `.fatalError`, which ended the process. HTTPMock never crashes the test
    /// run: this is ``failTest`` (the same value, the same description).
    @available(*, deprecated, renamed: "failTest")
    public static var fatalError: UnmockedPolicy { .failTest }

    /// Two policies are equal when they do the same thing; two `.mock` policies are equal only
    /// when one is a copy of the other (responses cannot be compared).
    public static func == (lhs: UnmockedPolicy, rhs: UnmockedPolicy) -> Bool {
        switch (lhs.kind, rhs.kind) {
        case (.notFound, .notFound), (.passthrough, .passthrough), (.failTest, .failTest): return true
        case (.fail(let a), .fail(let b)): return a == b
        case (.mock, .mock): return lhs.identity == rhs.identity
        default: return false
        }
    }

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
            return .failure(
                URLError(
                    code,
                    userInfo: [
                        NSLocalizedDescriptionKey: report,
                        Self.nearMissReportKey: report,
                        NSURLErrorFailingURLErrorKey: request.url,
                    ]))
        case .failTest:
            return .failure(
                URLError(
                    .resourceUnavailable,
                    userInfo: [
                        NSLocalizedDescriptionKey: report + "\n(unmockedPolicy is .failTest)",
                        Self.nearMissReportKey: report,
                        NSURLErrorFailingURLErrorKey: request.url,
                    ]))
        case .passthrough:
            return .passthrough()
        }
    }
}

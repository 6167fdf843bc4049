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
    }

    let kind: Kind

    /// `404`, `text/plain`, body `No mock for GET https://host/path`. The default.
    public static let notFound = UnmockedPolicy(kind: .notFound)

    /// Answer with `response` (its lifetime is ignored: it answers every unmatched request).
    public static func mock(_ response: MockResponse) -> UnmockedPolicy { UnmockedPolicy(kind: .mock(response)) }

    /// Fail the request with `URLError(code)`.
    public static func fail(_ code: URLError.Code) -> UnmockedPolicy { UnmockedPolicy(kind: .fail(code)) }

    public var description: String {
        switch kind {
        case .notFound: return ".notFound"
        case .mock(let response): return ".mock(\(response))"
        case .fail(let code): return ".fail(\(code.rawValue))"
        }
    }
}

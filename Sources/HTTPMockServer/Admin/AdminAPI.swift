#if Server
import Foundation
import HTTPMock
import NIOConcurrencyHelpers

/// WireMock's admin API under `/__admin/`, for one served instance. The connection
/// handler asks it first for paths under `/__admin`; its answers are never journaled and never
/// matched against the instance's routes.
///
/// It serves every front end (the journal, near misses, scenarios and settings cover DSL,
/// Voodoo and WireMock routes alike), so it lives in `Admin/`; the endpoints that read or write
/// WireMock mappings are its extensions in `WireMock/`.
package final class AdminAPI: Sendable {
    let mock: HTTPMock
    /// Who may use the admin paths (the token, allowed origins): checked by the connection
    /// handler before a request reaches ``answer(method:uri:headers:body:)``.
    package let access: AdminAccess
    let onShutdown = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)
    /// WireMock's `--no-request-journal`: nothing is journaled, and the journal's endpoints
    /// answer as WireMock's do then (`"requestJournalDisabled": true`, or 500 for a listing).
    let journalDisabled: Bool
    /// The dashboard's event feed while a page is open (``DashboardFeed/of(_:)``).
    let dashboardFeed = NIOLockedValueBox(DashboardFeed.Slot())

    /// - Parameters:
    ///   - mock: The served instance.
    ///   - access: The token admin requests need and the origins whose pages may use it.
    ///   - journalDisabled: WireMock's `--no-request-journal` (set `mock.journalLimit` to 0 too).
    package init(mock: HTTPMock, access: AdminAccess, journalDisabled: Bool = false) {
        self.mock = mock
        self.access = access
        self.journalDisabled = journalDisabled
    }

    /// What `POST /__admin/shutdown` does (stop the server, end the CLI).
    package func setShutdownHandler(_ handler: @escaping @Sendable () -> Void) {
        onShutdown.withLockedValue { $0 = handler }
    }

    /// Whether `uri` is the admin API's.
    static func handles(_ uri: String) -> Bool {
        uri == "/__admin" || uri.hasPrefix("/__admin/") || uri.hasPrefix("/__admin?")
    }

    var state: WireMockState { WireMockState.of(mock) }

    /// The answer to one admin request.
    func answer(method: String, uri: String, headers: [(String, String)], body: Data?) async -> ServedAnswer {
        let components = URLComponents(string: uri)
        // The path as sent, each segment decoded once: a segment that does not decode (`%ff`,
        // `%c0%ae`) stays as written, and URLComponents refusing the target is no trap.
        let path = components?.percentEncodedPath ?? String(uri.prefix { $0 != "?" && $0 != "#" })
        let query = components?.queryItems ?? []
        // Access (the token, Host, Origin, content type) was checked before: AdminAccess.
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).dropFirst()  // "__admin"
            .map { $0.removingPercentEncoding ?? String($0) }
        if segments == ["recorder"], method.uppercased() == "GET" || method.uppercased() == "HEAD" {
            return RecorderPage.answer(uri: uri, method: method.uppercased())
        }
        let request = MockRequest.direct(
            method: method, url: URL(string: "http://localhost" + uri) ?? URL(fileURLWithPath: "/"), headers: headers, body: body)
        return await route(method: method.uppercased(), segments, query: query, body: body, request: request)
    }
}
#endif

import Foundation

extension Registry {
    /// ``matchingRoutes(for:in:runningUserCode:)``, where a `HEAD` request that no route matches
    /// is matched as a `GET` (RFC 9110 §9.3.2): it gets the `GET` route's status and
    /// headers, and no body (both transports send none to `HEAD`). The request itself stays a
    /// `HEAD` in the journal and for the response. A route registered for `HEAD` (or for any
    /// method) wins, since the fallback runs only when nothing matched.
    static func matchingRoutesFallingBackToGet(for request: MockRequest, in snapshot: Routes, runningUserCode: Bool) -> Matches? {
        let matches = matchingRoutes(for: request, in: snapshot, runningUserCode: runningUserCode)
        guard request.method == .head, let matches, matches.first(where: { _ in true }) == nil else { return matches }
        let asGet = MockRequest(
            method: .get, target: request.target, headers: request.headers, body: request.body, clientAddress: request.clientAddress)
        return matchingRoutes(for: asGet, in: snapshot, runningUserCode: runningUserCode)
    }
}

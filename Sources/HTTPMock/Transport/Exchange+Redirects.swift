import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Exchange's redirects: the delegate asked to follow, and the cookies stored and sent on each hop.

extension Exchange {
    // MARK: - Redirect delegate

    /// Asks the task's (or session's) delegate whether to follow, as URLSession would; without
    /// a delegate the redirect is followed.
    func askDelegateToRedirect(
        response: HTTPURLResponse?, to next: MockRequest,
        _ decide: @escaping @Sendable (Exchange, MockRequest?) -> Void
    ) {
        guard let response, let task, let session, let workQueue,
            let delegate = (task.delegate ?? session.delegate) as? URLSessionTaskDelegate
        else {
            decide(self, next)
            return
        }
        var newRequest = URLRequest(url: next.url)
        newRequest.httpMethod = next.method.rawValue
        for (name, value) in next.headers { newRequest.setValue(value, forHTTPHeaderField: name) }
        newRequest.httpBody = next.body
        let proposal = Carried(newRequest)
        armDeadlines()
        session.delegateQueue.addOperation {
            delegate.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: proposal.value) { approved in
                let approvedRequest = approved.map { request in
                    MockRequest(
                        method: HTTPMethod(request.httpMethod ?? "GET"), url: request.url ?? next.url,
                        headers: HTTPHeaders(request.allHTTPHeaderFields ?? [:]), body: request.httpBody)
                }
                workQueue.async {
                    guard !self.isClosed else { return }
                    decide(self, approvedRequest)
                }
            }
        }
    }

    // MARK: - Cookies

    /// Stores `Set-Cookie` in the session's cookie storage, which FoundationNetworking does not
    /// do for a custom protocol, by the rules of RFC 6265 (``CookieRules``).
    func storeCookies(from headers: HTTPHeaders, for url: URL) {
        guard let setCookie = headers["Set-Cookie"], let configuration = session?.configuration,
            configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage,
            storage.cookieAcceptPolicy != .never
        else { return }
        CookieRules.store(setCookie: setCookie, for: url, in: storage)
    }

    /// `request` with the `Cookie` header the session's storage has for its URL: redirect hops
    /// happen inside HTTPMock, so FoundationNetworking does not add it.
    func withCookies(_ request: MockRequest) -> MockRequest {
        guard let configuration = session?.configuration, configuration.httpShouldSetCookies,
            let stored = configuration.httpCookieStorage?.cookies(for: request.url)
        else { return request }
        // The storage's `cookies(for:)` ignores `Path`, `Secure` and expiry.
        let cookies = stored.filter { CookieRules.sends($0, to: request.url) }
        var headers = request.headers
        headers["Cookie"] = cookies.isEmpty ? nil : HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
        return MockRequest(
            method: request.method, target: request.target, headers: headers, body: request.body, clientAddress: request.clientAddress)
    }
}

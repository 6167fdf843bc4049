#if Server
import ArgumentParser
import Foundation
import HTTPMock
import HTTPMockServer

/// `httpmock serve`'s live-control options (SPEC §19): the WireMock admin API and dashboard,
/// WireMock mapping files, forwarding of misses.
struct WireMockOptions: ParsableArguments {
    @Flag(
        inversion: .prefixedNo,
        help: "Serve WireMock's admin API and the dashboard under /__admin/ (loopback binds only, unless --admin-token is given).")
    var admin = true

    @Option(help: "A token every admin request must send as Authorization: Bearer TOKEN; allows the admin API on any address.")
    var adminToken: String?

    @Option(
        name: .customLong("admin-allow-origin"),
        help: "An origin (http://localhost:3000) whose web pages may call the admin API; repeat for more. Others get 403.")
    var adminAllowOrigins: [String] = []

    @Option(help: "A WireMock root folder: loads mappings/**/*.json, answers bodyFileName from __files/.")
    var wiremockRoot: String?

    @Flag(
        help:
            "Render every WireMock mapping's response as a template (WireMock's response templating), not only those with \"transformers\": [\"response-template\"]."
    )
    var globalResponseTemplating = false

    @Option(help: "Send every request no route matches to this base URL and answer with what comes back.")
    var forwardUnmatched: String?

    @Option(
        help:
            "Milliseconds a forward (--forward-unmatched, proxyBaseUrl, recording) waits for its upstream's answer, and then between its body's reads; past it: 504 naming the upstream. Default: 60000."
    )
    var proxyTimeout: Int?

    /// Loads the mappings, sets forwarding, and returns the admin API to serve (`nil` when off;
    /// then it says why when it was asked for).
    func apply(to mock: HTTPMock, host: String) throws -> AdminAPI? {
        if let wiremockRoot {
            do {
                try mock.loadWireMock(
                    from: URL(fileURLWithPath: wiremockRoot, isDirectory: true), globalTemplating: globalResponseTemplating)
            } catch {
                throw ValidationError(
                    "Could not load the WireMock root \(wiremockRoot): \((error as? HTTPMockError)?.message ?? "\(error)")")
            }
            let literal = mock.wireMockLiteralTemplateCount
            if literal > 0 {
                let subject = literal == 1 ? "1 WireMock mapping holds {{ and is" : "\(literal) WireMock mappings hold {{ and are"
                say("httpmock: \(subject) served as written (templating off; --global-response-templating to turn it on)")
            }
        } else if globalResponseTemplating {
            mock.enableWireMockGlobalTemplating()
        }
        if let proxyTimeout {
            guard proxyTimeout > 0, proxyTimeout <= 86_400_000 else {
                throw ValidationError("--proxy-timeout must be a number of milliseconds from 1 to 86400000, got \(proxyTimeout).")
            }
            mock.forwardTimeout = Double(proxyTimeout) / 1000
        }
        if let forwardUnmatched {
            guard let url = URL(string: forwardUnmatched), url.scheme != nil, url.host != nil else {
                throw ValidationError("--forward-unmatched needs a URL like http://localhost:8000, got \(forwardUnmatched).")
            }
            mock.unmockedPolicy = .mock(.forward(to: url, lifetime: .eternal))
        }
        if let adminToken, adminToken.isEmpty { throw ValidationError("--admin-token must not be empty.") }
        let access: AdminAccess
        do {
            access = try AdminAccess(token: adminToken, allowedOrigins: adminAllowOrigins)
        } catch {
            throw ValidationError("--admin-token or --admin-allow-origin: \((error as? HTTPMockError)?.message ?? "\(error)")")
        }
        guard admin else { return nil }
        guard AdminAccess.isLoopback(host) || adminToken != nil else {
            say(
                "httpmock: the admin API is off (Voodoo's /_admin/ too): \(host) is not a loopback address; give --admin-token TOKEN to serve it"
            )
            return nil
        }
        return AdminAPI(mock: mock, access: access)
    }
}
#endif

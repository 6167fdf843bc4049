#if Server
import ArgumentParser
import Foundation
import HTTPMock
import HTTPMockServer

/// `httpmock serve`'s live-control options: the WireMock admin API and dashboard,
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

    @Option(
        name: [.customLong("wiremock-root"), .customLong("root-dir")],
        help: "A WireMock root folder: loads mappings/**/*.json, answers bodyFileName from __files/ (WireMock's --root-dir).")
    var wiremockRoot: String?

    @Flag(
        help:
            "Render every WireMock mapping's response as a template (WireMock's response templating), not only those with \"transformers\": [\"response-template\"]."
    )
    var globalResponseTemplating = false

    @Option(
        name: [.customLong("forward-unmatched"), .customLong("proxy-all")],
        help: "Send every request no route matches to this base URL and answer with what comes back (WireMock's --proxy-all).")
    var forwardUnmatched: String?

    @Flag(
        help:
            "With --proxy-all: record what the upstream answers as mappings, written into --root-dir's mappings/ when the server stops (SIGINT, SIGTERM, POST /__admin/shutdown)."
    )
    var recordMappings = false

    @Flag(help: "WireMock's: journal nothing; the admin API's request searches answer as WireMock's do then (count -1).")
    var noRequestJournal = false

    @Option(help: "WireMock's name for --journal-limit: the most requests the journal keeps.")
    var maxRequestJournalEntries: Int?

    @Flag(
        help:
            "WireMock's: accepted. Mappings with \"transformers\": [\"response-template\"] are rendered with or without it (WireMock 3's default; WireMock 2 needs the flag)."
    )
    var localResponseTemplating = false

    @Flag(help: "WireMock's: accepted; httpmock prints no banner.")
    var disableBanner = false

    func validate() throws {
        if recordMappings, forwardUnmatched == nil {
            throw ValidationError("--record-mappings records what --proxy-all URL answers: give --proxy-all (or --forward-unmatched) too.")
        }
        if recordMappings, wiremockRoot == nil {
            throw ValidationError("--record-mappings writes the mappings into a root folder's mappings/: give --root-dir DIR too.")
        }
        if recordMappings, !admin {
            throw ValidationError("--record-mappings records through the admin API's recorder: it cannot be combined with --no-admin.")
        }
        if let maxRequestJournalEntries, maxRequestJournalEntries < 0 {
            throw ValidationError(
                "--max-request-journal-entries must be a number of requests ≥ 0, got \(maxRequestJournalEntries).")
        }
        if noRequestJournal, let maxRequestJournalEntries {
            throw ValidationError(
                "--no-request-journal and --max-request-journal-entries \(maxRequestJournalEntries) contradict each other: give one.")
        }
    }

    @Option(
        help:
            "Milliseconds a forward (--forward-unmatched, proxyBaseUrl, recording) waits for its upstream's answer, and then between its body's reads; past it: 504 naming the upstream. Default: 60000."
    )
    var proxyTimeout: Int?

    /// Loads the mappings, sets forwarding, and returns the admin API to serve (`nil` when off;
    /// then it says why when it was asked for).
    func apply(to mock: HTTPMock, host: String) throws -> AdminAPI? {
        if let wiremockRoot {
            if recordMappings {
                // Where the recording is written; WireMock creates it too.
                try? FileManager.default.createDirectory(
                    atPath: wiremockRoot + "/mappings", withIntermediateDirectories: true)
            }
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
        return AdminAPI(mock: mock, access: access, journalDisabled: noRequestJournal)
    }
}
#endif

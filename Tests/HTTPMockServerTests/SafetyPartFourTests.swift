#if Server
import Foundation
import HTTPMock
import HTTPMockServer
import Testing

/// Issue 43, "Safety part four", through real sockets and the spawned CLI: webhooks that come
/// back, mapping files saved and deleted concurrently, resets under load, bounded journals and
/// webhooks, whole recorded bodies. (Forwarding's timeout is in `ForwardingServerTests`.)
@Suite("Safety part four (issue 43)")
struct SafetyPartFourTests {
    /// Waits until `condition` holds, checking every 20 ms, for at most `seconds`; whether it held.
    static func eventually(within seconds: TimeInterval, _ condition: () -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return condition()
    }

    // MARK: - Webhooks

    @Test("a webhook that calls its own mapping is sent once, carrying Via: its request fires no webhook again")
    func webhookLoopStops() async throws {
        let mock = HTTPMock()
        try await servingAdmin(mock) { admin in
            let hook = admin.server.baseURL.absoluteString + "/hook"
            let mapping =
                #"{"request":{"urlPath":"/hook"},"response":{"status":200,"body":"ok"},"serveEventListeners":[{"name":"webhook","parameters":{"method":"POST","url":"\#(hook)","body":"again"}}]}"#
            #expect(try await admin.send("POST", "/__admin/mappings", mapping).status == 201)
            let first = try await admin.send("GET", "/hook")
            #expect(first.status == 200)
            // The webhook's own request arrives…
            #expect(try await Self.eventually(within: 60) { mock.recordedRequests.count >= 2 }, "the webhook never came")
            let webhook = mock.recordedRequests[1].request
            #expect(webhook.method == .post)
            #expect(webhook.headers["Via"]?.contains("httpmock-webhook-") == true, "\(webhook.headers)")
            // …and fires nothing more: a loop went on at about 1,000 requests a second.
            try await Task.sleep(nanoseconds: 1_500_000_000)
            #expect(mock.recordedRequests.count == 2, "\(mock.recordedRequests.count) requests journaled: the webhook looped")
        }
    }
}
#endif

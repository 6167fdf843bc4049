#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

/// The `data:` of every server-sent event in `text` (a chunked `text/event-stream` body read raw;
/// each event is written as one chunk, and compact JSON holds no line break).
func serverSentData(_ text: String) -> [String] {
    var events: [String] = []
    var rest = Substring(text)
    while let start = rest.range(of: "data: ") {
        guard let end = rest[start.upperBound...].range(of: "\n\n") else { break }
        events.append(String(rest[start.upperBound..<end.lowerBound]))
        rest = rest[end.upperBound...]
    }
    return events
}

/// The JSON object of one event.
func eventObject(_ data: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
}

/// The dashboard's event stream (SPEC §19, §23): a snapshot, then deltas; bounded per subscriber;
/// subscribers that go away free their connections. In-process here; the bounds under load are
/// measured on a spawned `httpmock` (CLINewcomerTests).
@Suite("Dashboard event stream: snapshot, then deltas", .serialized, .timeLimit(.minutes(1)))
struct DashboardStreamTests {
    @Test("after its snapshot, a page gets only what changed: each new request once, never the journal again")
    func deltasNotTheWholeJournal() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/ping", responses: [.plaintext("pong", lifetime: .eternal)])
        let server = try await mock.startServer(admin: true)
        defer { Task { await server.stop() } }
        let session = makePlainSession()
        for _ in 0..<5 { _ = try await session.data(from: server.baseURL.appendingPathComponent("ping")) }

        let client = try RawClient(port: server.port)
        try client.send("GET /__admin/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let first = client.read(timeout: 30) { serverSentData($0).count >= 1 }
        #expect(first.contains("Content-Type: text/event-stream") || first.lowercased().contains("content-type: text/event-stream"))
        let snapshot = try eventObject(try #require(serverSentData(first).first))
        #expect(snapshot["kind"] as? String == "snapshot")
        #expect((snapshot["requests"] as? [Any])?.count == 5)
        #expect(snapshot["total"] as? Int == 5)

        for path in ["a", "b", "ping"] { _ = try await session.data(from: server.baseURL.appendingPathComponent(path)) }
        // Deltas until the three new requests were seen (they may come in more than one).
        var seen: [Int: Int] = [:]
        var deltas: [[String: Any]] = []
        _ = client.read(timeout: 30) { text in
            let events = serverSentData(text).dropFirst()
            return events.compactMap { try? eventObject($0) }.flatMap { ($0["requests"] as? [[String: Any]]) ?? [] }
                .filter { ($0["status"] as? Int) != nil }.count >= 3
        }
        for data in serverSentData(client.text).dropFirst() {
            let event = try eventObject(data)
            deltas.append(event)
            for request in (event["requests"] as? [[String: Any]]) ?? [] { seen[request["id"] as? Int ?? -1, default: 0] += 1 }
        }
        #expect(deltas.allSatisfy { $0["kind"] as? String == "delta" })
        #expect(seen.count == 3, "the three new requests, not the five of the snapshot: \(seen)")
        #expect(deltas.compactMap { $0["total"] as? Int }.last == 8)
        let urls = deltas.flatMap { ($0["requests"] as? [[String: Any]]) ?? [] }.compactMap { $0["url"] as? String }
        #expect(urls.contains { $0.hasSuffix("/a") } && urls.contains { $0.hasSuffix("/b") })
        client.closeNow()
    }

    @Test("a page that opens a request gets its headers, bodies and time; secrets are masked unless revealSecrets")
    func requestDetail() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(
            forPath: "/login", method: .post,
            responses: [.json(#"{"ok":true}"#, headers: ["Set-Cookie": "session=abc123xyz; Path=/; HttpOnly"], lifetime: .eternal)])
        let server = try await mock.startServer(admin: true)
        defer { Task { await server.stop() } }
        var request = URLRequest(url: server.baseURL.appendingPathComponent("login"))
        request.httpMethod = "POST"
        request.setValue("Bearer s3cret-token", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"user":"ada","pw":"hunter2-secret"}"#.utf8)
        _ = try await makePlainSession().data(for: request)
        let id = try #require(mock.recordedRequests.last).journalID

        func detail() async throws -> (text: String, object: [String: Any]) {
            let (data, _) = try await makePlainSession().data(
                from: server.baseURL.appendingPathComponent("__admin/dashboard/requests/\(id)"))
            let text = String(decoding: data, as: UTF8.self)
            return (text, try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]))
        }
        let (masked, object) = try await detail()
        #expect(object["method"] as? String == "POST")
        #expect(object["status"] as? Int == 200)
        #expect(object["receivedAt"] as? String != nil)
        // The URL the client called, and the one it was matched as.
        #expect(object["url"] as? String == server.baseURL.absoluteString + "/login")
        #expect(object["matchedAs"] as? String == "https://example.com/login")
        let requestPart = try #require(object["request"] as? [String: Any])
        let headers = try #require(requestPart["headers"] as? [[String: Any]])
        #expect(headers.contains { $0["name"] as? String == "Authorization" && $0["value"] as? String == "Bearer REDACTED" })
        #expect(requestPart["body"] as? String == #"{"user":"ada","pw":"REDACTED"}"#)
        let response = try #require(object["response"] as? [String: Any])
        #expect(response["body"] as? String == #"{"ok":true}"#)
        let responseHeaders = try #require(response["headers"] as? [[String: Any]])
        #expect(
            responseHeaders.contains {
                $0["name"] as? String == "Set-Cookie" && $0["value"] as? String == "session=REDACTED; Path=/; HttpOnly"
            })
        for secret in ["s3cret-token", "hunter2-secret", "abc123xyz"] { #expect(!masked.contains(secret)) }

        mock.revealSecrets = true
        let (revealed, _) = try await detail()
        for secret in ["Bearer s3cret-token", "hunter2-secret", "session=abc123xyz"] { #expect(revealed.contains(secret)) }
        // The WireMock admin JSON is WireMock's: its clients need the data, unmasked.
        mock.revealSecrets = false
        let (journal, _) = try await makePlainSession().data(from: server.baseURL.appendingPathComponent("__admin/requests"))
        #expect(String(decoding: journal, as: UTF8.self).contains("Bearer s3cret-token"))
    }
}

#endif

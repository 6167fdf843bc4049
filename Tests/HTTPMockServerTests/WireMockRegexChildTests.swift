#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

/// The order requests finished in.
private actor Finished {
    var labels: [String] = []
    func add(_ label: String) { labels.append(label) }
}

@Suite("WireMock regular expressions never starve other requests (SPEC §23)", .serialized)
struct WireMockRegexChildTests {
    @Test("(a+)+$ and a backtracking pattern against long paths cost those requests, not /ping (in a child process)")
    func regexDoesNotStarve() async throws {
        guard ServerChildProcess.isAvailable else { return }
        let outcome = try await ServerChildProcess.run("wireMockRegexStarvation", timeout: 300)
        #expect(outcome.passed, "\(outcome)")
    }
}

extension ServerChildScenarios {
    /// `/ping` (a Swift route) answers while 12 requests evaluate WireMock regular expressions:
    /// 6 against `/(a+)+$` (the issue's pattern; linear on the Pike VM) and 6 against a
    /// back-reference pattern that backtracks to its step budget and gives up (no match, a
    /// report that says so).
    static func wireMockRegexStarvation() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-regex-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(
            #"""
            {"mappings": [
              {"request": {"urlPathPattern": "/(a+)+$"}, "response": {"body": "a's"}},
              {"request": {"urlPathPattern": "/evil/((a+)+)\\1x$"}, "response": {"body": "never"}}
            ]}
            """#.utf8
        ).write(to: root.appendingPathComponent("mappings/regex.json"))
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(forPath: "/ping", responses: [.plaintext("pong", lifetime: .eternal)])
        try mock.loadWireMock(from: root)
        let server = try await mock.startServer()
        let base = server.baseURL.absoluteString
        let finished = Finished()
        // A debug build backtracks slowly: give the abandoned work room, not the client a deadline.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 240
        let session = URLSession(configuration: configuration)
        let long = String(repeating: "a", count: 40)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<6 {
                group.addTask {
                    // "bx": the literals every match holds are there, so the machine runs (and gives up).
                    let (_, response) = try await session.data(from: URL(string: "\(base)/evil/\(long)bx")!)
                    #expect((response as? HTTPURLResponse)?.statusCode == 404)
                    await finished.add("evil \(index)")
                }
                group.addTask {
                    let (_, response) = try await session.data(from: URL(string: "\(base)/\(long)!")!)
                    #expect((response as? HTTPURLResponse)?.statusCode == 404)
                    await finished.add("catastrophic \(index)")
                }
            }
            // Once the others are on their way.
            try await Task.sleep(nanoseconds: 200_000_000)
            let (data, response) = try await session.data(from: URL(string: "\(base)/ping")!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "pong")
            await finished.add("ping")
            try await group.waitForAll()
        }
        let (matched, _) = try await session.data(from: URL(string: "\(base)/\(long)")!)
        #expect(String(decoding: matched, as: UTF8.self) == "a's")
        let labels = await finished.labels
        let ping = try #require(labels.firstIndex(of: "ping"))
        // The backtracking requests were still running when /ping was answered.
        #expect(labels[(ping + 1)...].contains { $0.hasPrefix("evil") }, "\(labels)")
        let report = mock.recordedRequests.first { $0.request.url.path.hasPrefix("/evil/") }?.nearMissReport ?? ""
        #expect(report.contains("gave up after"), "\(report)")
        await server.stop()
    }
}
#endif

import Foundation
import HTTPMock
import Testing

/// Espresso-Martini's queue rule for `configuration.json` (SPEC §8): the n-th request gets
/// response min(n, count), so a route's last entry repeats unless it names a `lifetime`.
@Suite("configuration.json: the queue rule")
struct MockTreeQueueTests {
    let mock = HTTPMock()

    init() {
        mock.logHandler = nil
    }

    /// Loads a tree of one route, `GET /jobs`, whose configuration.json holds `json`, and
    /// returns the statuses of `count` requests to it.
    func statuses(_ json: String, requests count: Int) async throws -> [Int] {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-queue-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try MockTreeTests.write(["jobs/GET/configuration.json": json], in: root)
        try mock.loadMocks(from: root, host: "api.example.com")
        var statuses: [Int] = []
        for _ in 0..<count {
            statuses.append(try await mock.urlSession.reply("https://api.example.com/jobs").status)
        }
        return statuses
    }

    @Test("[202, 200] answers 202, 200, 200, …: the last entry without a lifetime repeats")
    func pollingPair() async throws {
        #expect(try await statuses(#"[{"status_code": 202}, {"status_code": 200}]"#, requests: 5) == [202, 200, 200, 200, 200])
    }

    @Test("one object without a lifetime answers every request")
    func singleObjectRepeats() async throws {
        #expect(try await statuses(#"{"status_code": 201}"#, requests: 3) == [201, 201, 201])
    }

    @Test("an entry that names its lifetime keeps it, last or not")
    func namedLifetimeKept() async throws {
        #expect(
            try await statuses(#"[{"status_code": 202, "lifetime": 2}, {"status_code": 200, "lifetime": "single"}]"#, requests: 4)
                == [202, 202, 200, 404])
    }

    @Test("earlier entries without a lifetime are served once")
    func earlierEntriesOnce() async throws {
        #expect(
            try await statuses(#"[{"status_code": 202}, {"status_code": 203}, {"status_code": 200}]"#, requests: 4)
                == [202, 203, 200, 200])
    }

    @Test("with scenarios, the last entry of each state's route repeats")
    func perScenarioRoute() async throws {
        let json = """
            [{"scenario": "job", "required_state": "started", "status_code": 202},
             {"scenario": "job", "required_state": "started", "status_code": 203, "new_state": "done"},
             {"scenario": "job", "required_state": "done", "status_code": 200}]
            """
        #expect(try await statuses(json, requests: 4) == [202, 203, 200, 200])
    }
}

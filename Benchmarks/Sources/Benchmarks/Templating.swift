import Foundation
import HTTPMock
import HTTPMockServer

/// A templated WireMock response (`"transformers": ["response-template"]`, SPEC §21) against
/// a static one of the same size, both through HTTPMockServer and a plain URLSession over
/// loopback: the template is parsed once, at load, and rendered per request; target ≤ 2×.
enum Templating {
    static let requests = 500
    static let rounds = 5

    static func run() async throws -> [Row] {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-bench-templating-\(UUID().uuidString)")
        let mappings = root.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let padding = String(repeating: "x", count: 60)
        try Data(
            """
            {"mappings": [
              {"request": {"method": "GET", "urlPathPattern": "/static/[0-9]+"},
               "response": {"status": 200, "headers": {"Content-Type": "application/json"},
                            "body": "{\\"id\\": \\"42\\", \\"q\\": \\"swift\\", \\"trace\\": \\"t-1\\", \\"pad\\": \\"\(padding)\\"}"}},
              {"request": {"method": "GET", "urlPathPattern": "/templated/[0-9]+"},
               "response": {"status": 200, "headers": {"Content-Type": "application/json", "X-Id": "{{request.pathSegments.[1]}}"},
                            "body": "{\\"id\\": \\"{{request.pathSegments.[1]}}\\", \\"q\\": \\"{{request.query.q}}\\", \\"trace\\": \\"{{request.headers.X-Trace}}\\", \\"pad\\": \\"\(padding)\\"}",
                            "transformers": ["response-template"]}}
            ]}
            """.utf8
        ).write(to: mappings.appendingPathComponent("bench.json"))
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadWireMock(from: root)
        let server = try await mock.startServer()
        let session = URLSession(
            configuration: {
                let configuration = URLSessionConfiguration.ephemeral
                configuration.urlCache = nil
                return configuration
            }())
        func request(_ path: String) -> URLRequest {
            var request = URLRequest(url: URL(string: server.baseURL.absoluteString + path)!)
            request.setValue("t-1", forHTTPHeaderField: "X-Trace")
            return request
        }
        let result = try await Harness.paired(
            rounds: rounds, baseline: Harness.perRequest(session, request("/static/42?q=swift"), count: requests),
            candidate: Harness.perRequest(session, request("/templated/42?q=swift"), count: requests))
        await server.stop()
        let rows = [
            Row(
                name: "WireMock static response, server", value: String(format: "%.1f µs/req", result.baseline * 1e6), ratio: 1,
                target: "baseline", met: nil),
            Row(
                name: "WireMock templated response, server", value: String(format: "%.1f µs/req", result.candidate * 1e6),
                ratio: result.ratio, target: "≤ 2×", met: result.ratio <= 2),
        ]
        Row.printTable("Templating: a templated WireMock response against a static one (through HTTPMockServer)", rows)
        return rows
    }
}

import Foundation
import HTTPMock
import HTTPMockServer

/// A Voodoo endpoint answered by a JavaScript `response` function against a static Voodoo
/// endpoint, both through HTTPMockServer and a plain URLSession over loopback (SPEC §9, §18:
/// within 3×).
enum VoodooScripts {
    static let requests = 500
    static let rounds = 5

    static func run() async throws -> [Row] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-bench-voodoo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let body = String(repeating: "x", count: 100)
        try Data(
            """
            - http: { api: get /static }
              response: { status: 200, body: { text: "\(body)" } }
            - http: { api: get /scripted }
              javascript: |
                function response(request, cache) { return Response.ok(Body.text("\(body)")); }
            """.utf8
        ).write(to: folder.appendingPathComponent("endpoints.yml"))
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadVoodoo(from: folder)
        let server = try await mock.startServer()
        let session = URLSession(
            configuration: {
                let configuration = URLSessionConfiguration.ephemeral
                configuration.urlCache = nil
                return configuration
            }())
        let staticRequest = URLRequest(url: server.baseURL.appendingPathComponent("static"))
        let scriptedRequest = URLRequest(url: server.baseURL.appendingPathComponent("scripted"))
        let result = try await Harness.paired(
            rounds: rounds, baseline: Harness.perRequest(session, staticRequest, count: requests),
            candidate: Harness.perRequest(session, scriptedRequest, count: requests))
        await server.stop()
        let rows = [
            Row(
                name: "Voodoo static endpoint, server", value: String(format: "%.1f µs/req", result.baseline * 1e6), ratio: 1,
                target: "baseline", met: nil),
            Row(
                name: "Voodoo JavaScript endpoint, server", value: String(format: "%.1f µs/req", result.candidate * 1e6),
                ratio: result.ratio, target: "≤ 3×", met: result.ratio <= 3),
        ]
        Row.printTable("Voodoo: a scripted request against a static one (through HTTPMockServer)", rows)
        return rows
    }
}

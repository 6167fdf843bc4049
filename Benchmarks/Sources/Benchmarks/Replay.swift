import Foundation
import HTTPMock

/// SPEC §9 for replay (§14): loading a 10,000-entry HAR archive takes under 1 s, and a
/// replayed request costs what a registered one costs (≤ 1.10× a route registered with
/// `addResponses` answering the same body).
enum Replay {
    static let entries = 10_000
    static let requests = 1_000
    static let rounds = 7

    /// A browser-shaped archive: `entries` GETs to distinct paths, JSON bodies, a few headers.
    static func writeArchive() throws -> URL {
        var parts: [String] = []
        parts.reserveCapacity(entries)
        for index in 0..<entries {
            parts.append(
                """
                {"startedDateTime":"2026-11-23T10:00:00.000Z","time":12,"_priority":"High",\
                "request":{"method":"GET","url":"https://api.example.com/items/\(index)?page=1","httpVersion":"HTTP/2",\
                "headers":[{"name":"Accept","value":"application/json"},{"name":"User-Agent","value":"bench"}],\
                "queryString":[{"name":"page","value":"1"}],"cookies":[],"headersSize":-1,"bodySize":0},\
                "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/2",\
                "headers":[{"name":"Content-Type","value":"application/json"},{"name":"Cache-Control","value":"no-cache"}],\
                "cookies":[],"content":{"size":26,"mimeType":"application/json","text":"{\\"id\\":\(index),\\"name\\":\\"item\\"}"},\
                "redirectURL":"","headersSize":-1,"bodySize":26},"cache":{},"timings":{"send":0,"wait":12,"receive":0}}
                """)
        }
        let archive =
            #"{"log":{"version":"1.2","creator":{"name":"bench","version":"1"},"entries":["# + parts.joined(separator: ",") + "]}}"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-bench-\(UUID().uuidString).har")
        try Data(archive.utf8).write(to: url)
        return url
    }

    static func run() async throws -> [Row] {
        let archive = try writeArchive()
        defer { try? FileManager.default.removeItem(at: archive) }
        let size = (try FileManager.default.attributesOfItem(atPath: archive.path)[.size] as? NSNumber)?.intValue ?? 0

        // Load time: a fresh instance each time; the baseline is parsing the same file's JSON.
        var loads: [Double] = []
        var parses: [Double] = []
        for _ in 0..<5 {
            parses.append(try await Harness.time { _ = try JSONSerialization.jsonObject(with: Data(contentsOf: archive)) })
            let mock = HTTPMock()
            loads.append(try await Harness.time { try mock.loadHAR(from: archive) })
        }
        let load = loads.sorted()[loads.count / 2]
        let parse = parses.sorted()[parses.count / 2]

        // Per-request cost: the same 10,000 routes, loaded from the archive or registered.
        let body = Data(#"{"id":7777,"name":"item"}"#.utf8)
        let url = URL(string: "https://api.example.com/items/7777?page=1")!
        func scenario(_ make: () throws -> HTTPMock) rethrows -> () async throws -> Double {
            let mock = try make()
            mock.logHandler = nil
            let session = mock.urlSession
            let request = URLRequest(url: url)
            return {
                withExtendedLifetime(mock) {}
                return try await Harness.time {
                    for _ in 0..<requests {
                        let (_, response) = try await session.data(for: request)
                        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
                    }
                } / Double(requests)
            }
        }
        let times = try await Harness.interleaved(
            rounds: rounds,
            [
                scenario {
                    let mock = HTTPMock()
                    for index in 0..<entries {
                        mock.addResponses(
                            forPath: "/items/\(index)", host: "api.example.com", query: ["page": "1"],
                            responses: [
                                .data(
                                    index == 7777 ? body : Data(#"{"id":\#(index),"name":"item"}"#.utf8), contentType: "application/json",
                                    lifetime: .eternal)
                            ])
                    }
                    return mock
                },
                try scenario {
                    let mock = HTTPMock()
                    try mock.loadHAR(from: archive)
                    return mock
                },
            ])
        let rows = [
            Row(
                name: "parse the archive's JSON (baseline)", value: String(format: "%.0f ms (%d KB)", parse * 1e3, size / 1024),
                ratio: 1, target: "baseline", met: nil),
            Row(
                name: "loadHAR, \(entries) entries", value: String(format: "%.0f ms", load * 1e3),
                ratio: load / parse, target: "< 1 s", met: load < 1),
            Row(
                name: "registered route, 10,000 routes (baseline)", value: String(format: "%.1f µs/req", times[0] * 1e6),
                ratio: 1, target: "baseline", met: nil),
            Row(
                name: "replayed route, 10,000 entries", value: String(format: "%.1f µs/req", times[1] * 1e6),
                ratio: times[1] / times[0], target: "≤ 1.10×", met: times[1] / times[0] <= 1.10),
        ]
        Row.printTable("Replay (\(rounds) interleaved rounds × \(requests) sequential requests, median; loads: median of 5)", rows)
        return rows
    }
}

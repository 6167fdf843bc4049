import Foundation
import HTTPMock

/// Per-request time of a hit with 10,000 exact routes and with 1,000 pattern routes registered,
/// against 10 exact routes. Targets ≤ 1.2× and ≤ 2×.
enum RouteScaling {
    static let requests = 1_000
    static let rounds = 9

    static func scenario(_ register: (HTTPMock) -> Void, url: String) -> () async throws -> Double {
        let mock = HTTPMock()
        mock.logHandler = nil
        register(mock)
        let session = mock.urlSession
        let request = URLRequest(url: URL(string: url)!)
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

    static func run() async throws -> [Row] {
        let times = try await Harness.interleaved(
            rounds: rounds,
            [
                scenario(
                    { mock in
                        for index in 0..<10 {
                            mock.addResponses(
                                forPath: "/items/\(index)", host: "api.example.com", responses: [.plaintext("item", lifetime: .eternal)])
                        }
                    }, url: "https://api.example.com/items/7"),
                scenario(
                    { mock in
                        for index in 0..<10_000 {
                            mock.addResponses(
                                forPath: "/items/\(index)", host: "api.example.com", responses: [.plaintext("item", lifetime: .eternal)])
                        }
                    }, url: "https://api.example.com/items/7777"),
                scenario(
                    { mock in
                        for index in 0..<1_000 {
                            mock.addResponses(
                                forPath: "/api/v\(index)/users/:id/*", host: "api.example.com",
                                responses: [.plaintext("user", lifetime: .eternal)])
                        }
                    }, url: "https://api.example.com/api/v777/users/42/profile"),
            ])
        let rows = [
            Row(name: "10 exact routes", value: String(format: "%.1f µs/req", times[0] * 1e6), ratio: 1, target: "baseline", met: nil),
            Row(
                name: "10,000 exact routes", value: String(format: "%.1f µs/req", times[1] * 1e6),
                ratio: times[1] / times[0], target: "≤ 1.20×", met: times[1] / times[0] <= 1.2),
            Row(
                name: "1,000 pattern routes", value: String(format: "%.1f µs/req", times[2] * 1e6),
                ratio: times[2] / times[0], target: "≤ 2.00×", met: times[2] / times[0] <= 2),
        ]
        Row.printTable("Route lookup scaling (\(rounds) interleaved rounds × \(requests) sequential requests, median)", rows)
        return rows
    }
}

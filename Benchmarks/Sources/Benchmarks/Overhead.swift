import Foundation
import HTTPMock

/// Per-request time of an exact-route hit against a bare `URLProtocol` answering the same
/// 100-byte response, sequential and with 64 concurrent tasks. Target ≤ 1.1×.
enum Overhead {
    static let requests = 2_000
    static let rounds = 9

    static func run() async throws -> [Row] {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(
            forPath: "/item", host: "api.example.com",
            responses: [
                .data(BareProtocol.body, contentType: "text/plain", lifetime: .eternal)
            ])
        let mockSession = mock.urlSession
        let bareSession = BareProtocol.session()
        let request = URLRequest(url: URL(string: "https://api.example.com/item")!)

        let times = try await Harness.interleaved(
            rounds: rounds,
            [
                Harness.perRequest(bareSession, request, count: requests),
                Harness.perRequest(mockSession, request, count: requests),
                Harness.perRequest(bareSession, request, count: requests, tasks: 64),
                Harness.perRequest(mockSession, request, count: requests, tasks: 64),
            ])
        // The journal grows with every request; the instance is measured as users run it.
        let rows = [
            Row(
                name: "bare URLProtocol, sequential", value: String(format: "%.1f µs/req", times[0] * 1e6), ratio: 1, target: "baseline",
                met: nil),
            Row(
                name: "HTTPMock exact route, sequential", value: String(format: "%.1f µs/req", times[1] * 1e6),
                ratio: times[1] / times[0], target: "≤ 1.10×", met: times[1] / times[0] <= 1.1),
            Row(
                name: "bare URLProtocol, 64 concurrent tasks", value: String(format: "%.1f µs/req", times[2] * 1e6), ratio: 1,
                target: "baseline", met: nil),
            Row(
                name: "HTTPMock exact route, 64 concurrent tasks", value: String(format: "%.1f µs/req", times[3] * 1e6),
                ratio: times[3] / times[2], target: "≤ 1.10×", met: times[3] / times[2] <= 1.1),
        ]
        Row.printTable("Per-request overhead (\(rounds) interleaved rounds × \(requests) data(for:) requests, median)", rows)
        return rows
    }
}

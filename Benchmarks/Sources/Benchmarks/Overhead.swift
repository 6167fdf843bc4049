import Foundation
import HTTPMock

/// Per-request time of an exact-route hit against a bare `URLProtocol` answering the same
/// 100-byte response, sequential and with 64 concurrent tasks. Target ≤ 1.1×.
enum Overhead {
    static let requests = 2_000
    static let rounds = 15

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

        // Each comparison in its own phase, in pairs of alternating order (`Harness.paired`):
        // the ratio is the median of the per-pair ratios.
        let sequential = try await Harness.paired(
            rounds: rounds,
            baseline: Harness.perRequest(bareSession, request, count: requests),
            candidate: Harness.perRequest(mockSession, request, count: requests))
        let concurrent = try await Harness.paired(
            rounds: rounds,
            baseline: Harness.perRequest(bareSession, request, count: requests, tasks: 64),
            candidate: Harness.perRequest(mockSession, request, count: requests, tasks: 64))
        // The journal grows with every request; the instance is measured as users run it.
        let rows = [
            Row(
                name: "bare URLProtocol, sequential", value: String(format: "%.1f µs/req", sequential.baseline * 1e6), ratio: 1,
                target: "baseline", met: nil),
            Row(
                name: "HTTPMock exact route, sequential", value: String(format: "%.1f µs/req", sequential.candidate * 1e6),
                ratio: sequential.ratio, target: "≤ 1.10×", met: sequential.ratio <= 1.1),
            Row(
                name: "bare URLProtocol, 64 concurrent tasks", value: String(format: "%.1f µs/req", concurrent.baseline * 1e6), ratio: 1,
                target: "baseline", met: nil),
            Row(
                name: "HTTPMock exact route, 64 concurrent tasks", value: String(format: "%.1f µs/req", concurrent.candidate * 1e6),
                ratio: concurrent.ratio, target: "≤ 1.10×", met: concurrent.ratio <= 1.1),
        ]
        Row.printTable(
            "Per-request overhead (\(rounds) pairs of alternating order × \(requests) data(for:) requests; ratio: median of the pairs' ratios)",
            rows)
        return rows
    }
}

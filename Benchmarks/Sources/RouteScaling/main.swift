// Route-lookup scaling: per-request time of a hit with 10 exact routes (the baseline),
// 10,000 exact routes and 1,000 pattern routes, measured in one run through a real
// URLSession and printed as ratios to the baseline. Targets (SPEC §9): 10,000 exact ≤ 1.2×,
// 1,000 patterns ≤ 2×.
//
//     cd Benchmarks && swift run -c release RouteScaling [requests-per-round] [rounds]
import Foundation
import HTTPMock

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let requestsPerRound = arguments.first ?? 500
let rounds = arguments.dropFirst().first ?? 9

struct Scenario {
    let name: String
    let mock: HTTPMock
    let request: URLRequest
    let target: Double?
}

func makeScenario(_ name: String, target: Double?, register: (HTTPMock) -> Void, url: String) -> Scenario {
    let mock = HTTPMock()
    register(mock)
    return Scenario(name: name, mock: mock, request: URLRequest(url: URL(string: url)!), target: target)
}

let scenarios = [
    makeScenario("10 exact routes", target: nil, register: { mock in
        for index in 0..<10 {
            mock.addResponses(forPath: "/items/\(index)", host: "api.example.com", responses: [.plaintext("item", lifetime: .eternal)])
        }
    }, url: "https://api.example.com/items/7"),
    makeScenario("10,000 exact routes", target: 1.2, register: { mock in
        for index in 0..<10_000 {
            mock.addResponses(forPath: "/items/\(index)", host: "api.example.com", responses: [.plaintext("item", lifetime: .eternal)])
        }
    }, url: "https://api.example.com/items/7777"),
    makeScenario("1,000 pattern routes", target: 2.0, register: { mock in
        for index in 0..<1_000 {
            mock.addResponses(forPath: "/api/v\(index)/users/:id/*", host: "api.example.com", responses: [.plaintext("user", lifetime: .eternal)])
        }
    }, url: "https://api.example.com/api/v777/users/42/profile"),
]

/// Nanoseconds per request for `count` sequential requests.
func measure(_ scenario: Scenario, count: Int) async throws -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<count {
        let (_, response) = try await scenario.mock.urlSession.data(for: scenario.request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "\(scenario.name) was not matched"])
        }
    }
    let elapsed = clock.now - start
    let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    return nanoseconds / Double(count)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

// Warm up every scenario, then interleave rounds so machine noise hits all of them alike.
for scenario in scenarios { _ = try await measure(scenario, count: 200) }
var samples = Array(repeating: [Double](), count: scenarios.count)
for _ in 0..<rounds {
    for (index, scenario) in scenarios.enumerated() {
        samples[index].append(try await measure(scenario, count: requestsPerRound))
    }
}

let baseline = median(samples[0])
print("Route scaling (\(rounds) rounds × \(requestsPerRound) sequential data(for:) requests, median per request)")
print("scenario                 µs/request   ratio   target")
var missed = false
for (index, scenario) in scenarios.enumerated() {
    let value = median(samples[index])
    let ratio = value / baseline
    let target = scenario.target.map { String(format: "≤ %.1f×", $0) } ?? "baseline"
    if let limit = scenario.target, ratio > limit { missed = true }
    let name = scenario.name.padding(toLength: 24, withPad: " ", startingAt: 0)
    print(name + String(format: " %10.1f   %5.2f×  ", value / 1000, ratio) + target)
}
if missed {
    print("A target was missed.")
    exit(1)
}

// httpmock-demo: a tiny API client exercised against HTTPMock, printing each exchange.
//
//     swift run httpmock-demo
//
// The client knows nothing about HTTPMock: it takes a URLSession, as production code should.
// The demo hands it `mock.urlSession` and queues what the "server" answers.

import HTTPMock

// Code that uses URLSession.shared cannot be handed a session. interceptSharedSession() must run
// before anything uses URLSession.shared (on Linux it snapshots the protocol classes then), so it
// comes first.
let sharedIntercepted = HTTPMock.shared.interceptSharedSession()

struct User: Codable, Equatable {
    var id: Int
    var name: String
}

/// The code under test: an ordinary URLSession client.
struct UsersClient {
    let session: URLSession
    let baseURL: URL

    func user(id: Int) async throws -> User {
        let (data, response) = try await session.data(from: baseURL.appendingPathComponent("users/\(id)"))
        try Self.check(response)
        return try JSONDecoder().decode(User.self, from: data)
    }

    func createUser(name: String) async throws -> User {
        var request = URLRequest(url: baseURL.appendingPathComponent("users"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await session.upload(for: request, from: JSONEncoder().encode(["name": name]))
        try Self.check(response)
        return try JSONDecoder().decode(User.self, from: data)
    }

    func search(_ term: String) async throws -> [User] {
        var components = URLComponents(url: baseURL.appendingPathComponent("search"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "q", value: term)]
        guard let url = components?.url else { throw URLError(.badURL) }
        let (data, response) = try await session.data(from: url)
        try Self.check(response)
        return try JSONDecoder().decode([User].self, from: data)
    }

    struct HTTPStatusError: Error, CustomStringConvertible {
        var status: Int
        var description: String { "server answered \(status)" }
    }

    static func check(_ response: URLResponse) throws {
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        guard (200..<300).contains(http.statusCode) else { throw HTTPStatusError(status: http.statusCode) }
    }
}

let mock = HTTPMock()
mock.logHandler = nil  // the demo prints the near-miss report itself, below
mock.addResponses(forPath: "/users/1", host: "api.example.com", method: .get) {
    MockResponse.encodable(User(id: 1, name: "Ada"))
    MockResponse.empty(status: .notFound)
}
mock.addResponses(
    forPath: "/users", host: "api.example.com", method: .post,
    responses: [
        .encodable(User(id: 2, name: "Grace"), status: .created)
    ])
mock.addResponses(
    forPath: "/search", host: "api.example.com", query: ["q": "swift"],
    responses: [
        .encodable([User(id: 1, name: "Ada"), User(id: 2, name: "Grace")])
    ])
mock.addResponses(
    forPath: "/search", host: "api.example.com", query: ["q": "offline"],
    responses: [
        .failure(URLError(.notConnectedToInternet))
    ])

guard let baseURL = URL(string: "https://api.example.com") else { exit(1) }
let client = UsersClient(session: mock.urlSession, baseURL: baseURL)

/// An error as a person reads it: FoundationNetworking prints a `URLError` as
/// `Error Domain=NSURLErrorDomain Code=-1009 "(null)"`.
func readable(_ error: any Error) -> String {
    guard let urlError = error as? URLError else { return "\(error)" }
    let names: [URLError.Code: String] = [
        .notConnectedToInternet: "notConnectedToInternet", .cannotFindHost: "cannotFindHost",
        .timedOut: "timedOut", .resourceUnavailable: "resourceUnavailable", .cancelled: "cancelled",
    ]
    let name = names[urlError.code].map { "URLError.\($0)" } ?? "URLError"
    let message = (urlError.userInfo[NSLocalizedDescriptionKey] as? String).map { ": \($0)" } ?? ""
    return "\(name) (\(urlError.code.rawValue))\(message)"
}

var failures = 0
@MainActor func exchange(_ title: String, expectFailure: Bool = false, _ body: () async throws -> String) async {
    do {
        let result = try await body()
        print("\(expectFailure ? "✗" : "✓") \(title) -> \(result)")
        if expectFailure { failures += 1 }
    } catch {
        print("\(expectFailure ? "✓" : "✗") \(title) -> error: \(readable(error))")
        if !expectFailure { failures += 1 }
    }
}

await exchange("GET /users/1") { "\(try await client.user(id: 1))" }
await exchange("GET /users/1 again (queue moved on to a 404)", expectFailure: true) { "\(try await client.user(id: 1))" }
await exchange("POST /users") { "\(try await client.createUser(name: "Grace"))" }
await exchange("GET /search?q=swift") { "\(try await client.search("swift").map(\.name))" }
await exchange("GET /search?q=offline (a transport failure)", expectFailure: true) { "\(try await client.search("offline"))" }
await exchange("GET /search?q=rust (nothing registered)", expectFailure: true) { "\(try await client.search("rust"))" }

// URLSession.shared, served by HTTPMock.shared, then released back to the network.
HTTPMock.shared.addResponses(forPath: "/status", host: "legacy.invalid", responses: [.plaintext("served by HTTPMock.shared")])
await exchange("URLSession.shared GET https://legacy.invalid/status") {
    guard sharedIntercepted else { throw URLError(.unsupportedURL) }
    let (data, _) = try await URLSession.shared.data(from: URL(string: "https://legacy.invalid/status")!)
    return String(decoding: data, as: UTF8.self)
}
HTTPMock.shared.stopInterceptingSharedSession()
await exchange("URLSession.shared after stopInterceptingSharedSession() (.invalid never resolves)", expectFailure: true) {
    let (data, _) = try await URLSession.shared.data(from: URL(string: "https://legacy.invalid/status")!)
    return String(decoding: data, as: UTF8.self)
}
// Another instance can take URLSession.shared over, even now that sessions exist.
let perTest = HTTPMock()
perTest.logHandler = nil
perTest.addResponses(forPath: "/status", host: "legacy.invalid", responses: [.plaintext("served by another instance")])
await exchange("URLSession.shared taken over by another instance") {
    guard perTest.interceptSharedSession() else { throw URLError(.unsupportedURL) }
    let (data, _) = try await URLSession.shared.data(from: URL(string: "https://legacy.invalid/status")!)
    perTest.stopInterceptingSharedSession()
    return String(decoding: data, as: UTF8.self)
}

if let report = mock.recordedRequests.last(where: { !$0.isMatched })?.nearMissReport {
    print("\nWhy GET /search?q=rust got a 404 (the near-miss report, also its body):")
    print(report.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
}

print("\nJournal (mock.recordedRequests):")
for entry in mock.recordedRequests {
    let body = entry.request.body.map { " body: " + String(decoding: $0, as: UTF8.self) } ?? ""
    print("  \(entry)\(body)")
}

if failures > 0 {
    print("\n\(failures) exchange(s) did not go as expected")
    exit(1)
}
print("\nAll exchanges went as expected.")

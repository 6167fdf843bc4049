import Foundation
import HTTPMock
import Testing

// The README's quick start, as written there (it uses HTTPMock.shared, so the suite clears what
// it registered). If this file stops compiling, the README is wrong.

struct User: Codable, Equatable {
    var id: Int
    var name: String
}

@Suite("README quick start", .serialized)
struct ReadmeTests {
    @Test func loadsTheUser() async throws {
        HTTPMock.shared.addResponses(
            forPath: "/user", host: "api.example.com",
            responses: [
                .encodable(User(id: 1, name: "Ada"))
            ])

        let url = URL(string: "https://api.example.com/user")!
        let (data, _) = try await HTTPMock.shared.urlSession.data(from: url)

        #expect(try JSONDecoder().decode(User.self, from: data) == User(id: 1, name: "Ada"))
        HTTPMock.shared.clearQueue(forHost: "api.example.com")
    }
}

#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

@Suite("HTTPMockServer: scenarios, the store and templates over the wire", .serialized, .timeLimit(.minutes(1)))
struct ScenarioServerTests {
    @Test("the SPEC §16 checkout example through the server: after the POST, the GET returns the new item")
    func checkout() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.addResponses(
            forPath: "/cart", when: ScenarioState("checkout", "started"),
            responses: [.json("[]", lifetime: .eternal)])
        mock.addResponses(
            forPath: "/cart", method: .post, when: ScenarioState("checkout", "started"),
            responses: [MockResponse.empty(status: .created).transitioning("checkout", to: "filled")])
        mock.addResponses(
            forPath: "/cart", when: ScenarioState("checkout", "filled"),
            responses: [.json(#"[{"sku":1}]"#, lifetime: .eternal)])
        try await serving(mock) { server in
            let session = makePlainSession()
            let cart = server.baseURL.appendingPathComponent("cart")
            let (before, _) = try await session.data(from: cart)
            #expect(String(decoding: before, as: UTF8.self) == "[]")
            var post = URLRequest(url: cart)
            post.httpMethod = "POST"
            let (_, created) = try await session.data(for: post)
            #expect((created as? HTTPURLResponse)?.statusCode == 201)
            #expect(mock.state(of: "checkout") == "filled")
            let (after, _) = try await session.data(from: cart)
            #expect(String(decoding: after, as: UTF8.self) == #"[{"sku":1}]"#)
            #expect(mock.recordedRequests.map(\.isMatched) == [true, true, true])
        }
    }

    @Test("a template renders the request and the store through the server")
    func template() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.store["user"] = "Ada"
        mock.addResponses(
            forPath: "/users/:id",
            responses: [
                .template(#"{"id":"{{request.pathParameters.id}}","by":"{{store.user}}"}"#, contentType: "application/json")
            ])
        try await serving(mock) { server in
            let (data, response) = try await makePlainSession().data(from: server.baseURL.appendingPathComponent("users/42"))
            #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "application/json")
            #expect(String(decoding: data, as: UTF8.self) == #"{"id":"42","by":"Ada"}"#)
        }
    }
}
#endif

import AsyncHTTPClient
import Foundation
import HTTPMock
import HTTPMockServer
import NIOCore
import Testing

/// Voodoo's YAML files (SPEC §18) loaded with `loadVoodoo`, served by HTTPMockServer and read
/// by AsyncHTTPClient: a path parameter in a JSON body, a GraphQL query selector, the admin delay.
@Suite("Voodoo files through HTTPMockServer and AsyncHTTPClient", .serialized, .timeLimit(.minutes(2)))
struct VoodooAsyncHTTPClientTests {
    @Test("YAML endpoints answer AsyncHTTPClient; a GraphQL query selector picks the endpoint; PUT /_admin/delay sets defaultDelay")
    func voodooEndpoints() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-voodoo-ahc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(
            """
            - http:
                api: get /users/:id
              response:
                status: 200
                body:
                  json: { id: "{{request.pathParameters.id}}", plan: "{{plan}}" }
            - graphQL:
                method: post
                query: "query Hero { hero { name } }"
              response:
                status: 200
                body:
                  json: '{"data":{"hero":{"name":"R2-D2"}}}'
            """.utf8
        ).write(to: folder.appendingPathComponent("endpoints.yml"))
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadVoodoo(from: folder)
        mock.store["plan"] = "gold"
        // Voodoo's /_admin/ routes follow the admin rule: served when the admin API is on.
        let server = try await mock.startServer(admin: true)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let base = server.baseURL.absoluteString
            let user = try await client.execute(HTTPClientRequest(url: base + "/users/7"), timeout: .seconds(10))
            #expect(user.status == .ok)
            #expect(user.headers.first(name: "content-type") == "application/json")
            #expect(String(buffer: try await user.body.collect(upTo: 1 << 20)) == #"{"id":"7","plan":"gold"}"#)

            var graphQL = HTTPClientRequest(url: base + "/graphql")
            graphQL.method = .POST
            graphQL.headers.add(name: "Content-Type", value: "application/json")
            graphQL.body = .bytes(ByteBuffer(string: #"{"query":"query Hero { hero { id name } }"}"#))
            let hero = try await client.execute(graphQL, timeout: .seconds(10))
            #expect(hero.status == .ok)
            #expect(String(buffer: try await hero.body.collect(upTo: 1 << 20)).contains("R2-D2"))

            var delay = HTTPClientRequest(url: base + "/_admin/delay/0.1")
            delay.method = .PUT
            let delayed = try await client.execute(delay, timeout: .seconds(10))
            #expect(delayed.status == .ok)
            #expect(mock.defaultDelay == 0.1)
        } catch {
            try? await client.shutdown()
            await server.stop()
            throw error
        }
        try await client.shutdown()
        await server.stop()
    }
}

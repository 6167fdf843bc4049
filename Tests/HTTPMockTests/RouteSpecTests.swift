import Foundation
import Testing

@testable import HTTPMock

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one registration path: every front end's routes are `RouteSpec`s, validated and placed by
/// `Registration`; a spec's placement says how it joins the routes already registered.
@Suite("One route spec: placements and all-or-none batches")
struct RouteSpecTests {
    private static func spec(
        _ path: String, _ body: String, placement: RouteSpec.Placement = .sharesEqualRoute, line: Int = 1
    ) -> RouteSpec {
        var spec = RouteSpec(path: path, host: "api.example.com", method: .get, responses: [.plaintext(body)], file: "specs", line: line)
        spec.placement = placement
        return spec
    }

    private static func get(_ mock: HTTPMock, _ path: String) async throws -> (Int, String) {
        let (data, response) = try await mock.urlSession.data(from: URL(string: "https://api.example.com\(path)")!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test("equal specs share one queue (FIFO); .onlyIfNew registers nothing beside an equal route; .own is always a new route")
    func placements() async throws {
        let mock = HTTPMock()
        let shared = try mock.register([Self.spec("/a", "first"), Self.spec("/a", "second")], code: .mockTree, operation: "test")
        #expect(shared.count == 2)
        #expect(shared[0] != nil && shared[0] == shared[1], "equal specs name one route")
        #expect(mock.adminRouteStates.map(\.pending) == [2])

        let again = try mock.register([Self.spec("/a", "third", placement: .onlyIfNew)], code: .mockTree, operation: "test")
        #expect(again == [nil])
        #expect(mock.adminRouteStates.map(\.pending) == [2], "nothing was queued behind the equal route")

        let own = try mock.register(
            [Self.spec("/b", "one", placement: .own(newestFirst: true)), Self.spec("/b", "two", placement: .own(newestFirst: true))],
            code: .mockTree, operation: "test")
        #expect(own.count == 2 && own[0] != nil && own[1] != nil && own[0] != own[1])
        #expect(mock.adminRouteStates.count == 3)

        #expect(try await Self.get(mock, "/a") == (200, "first"))
        #expect(try await Self.get(mock, "/a") == (200, "second"))
        // Two own routes of equal priority: the newest answers (WireMock's order).
        #expect(try await Self.get(mock, "/b") == (200, "two"))
    }

    @Test("replacing removes routes and adds the new ones in one step; a batch with an error changes nothing")
    func replacingIsAllOrNone() async throws {
        let mock = HTTPMock()
        let first = try mock.register([Self.spec("/c", "old", placement: .own(newestFirst: true))], code: .mockTree, operation: "test")
        let old = try #require(first.first ?? nil)

        var invalid = Self.spec("/c", "bad", placement: .own(newestFirst: true), line: 7)
        invalid.method = HTTPMethod("BAD METHOD")
        let error = #expect(throws: HTTPMockError.self) {
            try mock.register(
                [Self.spec("/c", "new", placement: .own(newestFirst: true)), invalid], replacing: [old], code: .mockTree,
                operation: "replaceMappings")
        }
        #expect(error?.message.hasPrefix("replaceMappings: nothing was registered:\nspecs: ") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("\"BAD METHOD\" is not a valid HTTP method name") == true)
        #expect(mock.adminRouteStates.map(\.order) == [old], "the replaced route stays when the batch fails")
        #expect(try await Self.get(mock, "/c") == (200, "old"))

        let replaced = try mock.register(
            [Self.spec("/c", "new", placement: .own(newestFirst: true))], replacing: [old], code: .mockTree, operation: "test")
        #expect(mock.adminRouteStates.map(\.order) == replaced.compactMap { $0 })
        #expect(try await Self.get(mock, "/c") == (200, "new"))
    }

    @Test("a spec without responses registers no route, whichever entry point (it says so in its warning)")
    func noResponsesNoRoute() throws {
        let mock = HTTPMock()
        var empty = Self.spec("/d", "unused")
        empty.responses = []
        // The warning is recorded as a Swift Testing warning, which does not fail the test. Its
        // location ("specs") names no module: Swift Testing trapped on such a file ID before.
        #expect(try mock.register([empty], code: .mockTree, operation: "test") == [nil])
        #expect(mock.adminRouteStates.isEmpty)
        mock.addResponses(forPath: "/d", host: "api.example.com", responses: [])
        #expect(mock.adminRouteStates.isEmpty)
    }
}

#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer

/// A client of one server's admin API and its routes, over a plain URLSession.
struct AdminClient {
    let server: HTTPMockServer
    let session = makePlainSession()

    /// Sends `method path` (with a body, as JSON unless `contentType` says otherwise); returns
    /// the status, the body text and the body as JSON (`nil` when it is not JSON).
    @discardableResult
    func send(
        _ method: String, _ path: String, _ body: String? = nil, contentType: String = "application/json"
    ) async throws
        -> (status: Int, text: String, json: JSONValue?)
    {
        var request = URLRequest(url: URL(string: server.baseURL.absoluteString + path)!)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        return (
            (response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self),
            try? JSONDecoder().decode(JSONValue.self, from: data)
        )
    }

    /// `GET path`'s JSON answer.
    func json(_ path: String) async throws -> JSONValue {
        try await send("GET", path).json ?? .null
    }
}

/// Serves `mock` with its admin API on for the duration of `body`.
func servingAdmin<T>(_ mock: HTTPMock, _ body: (AdminClient) async throws -> T) async throws -> T {
    let server = try await mock.startServer(admin: true)
    do {
        let result = try await body(AdminClient(server: server))
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// A fresh folder under the temporary directory, with `mappings/` and `__files/`.
func temporaryWireMockRoot() throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-admin-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: root.appendingPathComponent("__files"), withIntermediateDirectories: true)
    return root
}

/// An instance that logs nothing, with the WireMock root `root` loaded.
func quietMock(loading root: URL) throws -> HTTPMock {
    let mock = HTTPMock()
    mock.logHandler = nil
    try mock.loadWireMock(from: root)
    return mock
}
#endif

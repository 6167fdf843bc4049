#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

/// Admin endpoints the guides name that no other test reached (`.ci/guide-flags` lists them).
@Suite("Admin endpoints the guides name", .serialized, .timeLimit(.minutes(1)))
struct AdminGuideTests {
    @Test("POST /__admin/mappings/reset removes the mappings added through the API and brings back those from files")
    func mappingsReset() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-reset-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try Data(#"{"request": {"method": "GET", "urlPath": "/from-file"}, "response": {"status": 200, "body": "file"}}"#.utf8)
            .write(to: root.appendingPathComponent("mappings/file.json"))
        let mock = HTTPMock()
        mock.logHandler = nil
        try mock.loadWireMock(from: root)
        let server = try await mock.startServer(admin: true)
        defer { Task { await server.stop() } }
        let session = makePlainSession()
        func send(_ method: String, _ path: String, _ json: String? = nil) async throws -> (Int, String) {
            var request = URLRequest(url: URL(string: server.baseURL.absoluteString + path)!)
            request.httpMethod = method
            if let json {
                request.httpBody = Data(json.utf8)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let (data, response) = try await session.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        }
        let (created, _) = try await send(
            "POST", "/__admin/mappings", #"{"request": {"method": "GET", "urlPath": "/posted"}, "response": {"status": 201}}"#)
        #expect(created == 201)
        #expect(try await send("GET", "/posted").0 == 201)
        // The file's mapping is removed too, then comes back.
        #expect(try await send("DELETE", "/__admin/mappings").0 == 200)
        #expect(try await send("GET", "/from-file").0 == 404)
        _ = try await send(
            "POST", "/__admin/mappings", #"{"request": {"method": "GET", "urlPath": "/posted"}, "response": {"status": 201}}"#)
        let (status, _) = try await send("POST", "/__admin/mappings/reset")
        #expect(status == 200)
        #expect(try await send("GET", "/posted").0 == 404)
        #expect(try await send("GET", "/from-file") == (200, "file"))
        let (_, list) = try await send("GET", "/__admin/mappings")
        #expect(list.contains("/from-file") && !list.contains("/posted"))
        #expect(list.contains(#""total":1"#))
    }
}
#endif

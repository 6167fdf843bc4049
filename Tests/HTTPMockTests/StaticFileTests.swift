import Foundation
import HTTPMock
import Testing

@Suite("serveFiles: a directory of static files")
struct StaticFileTests {
    let mock = HTTPMock()

    init() {
        mock.logHandler = nil
    }

    /// `base/public/{a/b.png, index.json, link-out → ../secret.txt, link-in → a/b.png}`, `base/secret.txt`.
    func makeTree() throws -> (base: URL, served: URL) {
        let base = try Fixtures.scratchDirectory()
        let served = base.appendingPathComponent("public")
        try FileManager.default.createDirectory(at: served.appendingPathComponent("a"), withIntermediateDirectories: true)
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: served.appendingPathComponent("a/b.png"))
        try Data(#"{"ok":true}"#.utf8).write(to: served.appendingPathComponent("index.json"))
        try Data("TOP SECRET".utf8).write(to: base.appendingPathComponent("secret.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: served.appendingPathComponent("link-out.txt").path,
            withDestinationPath: "../secret.txt")
        try FileManager.default.createSymbolicLink(
            atPath: served.appendingPathComponent("link-in.png").path,
            withDestinationPath: "a/b.png")
        return (base, served)
    }

    @Test("GET /static/a/b.png answers the file with its Content-Type, read at request time")
    func servesFiles() async throws {
        let (base, served) = try makeTree()
        defer { try? FileManager.default.removeItem(at: base) }
        try mock.serveFiles(from: served, at: "/static")

        let png = try await mock.urlSession.reply("https://example.com/static/a/b.png")
        #expect(png.status == 200)
        #expect(png.data == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(png.header("Content-Type") == "image/png")
        let json = try await mock.urlSession.replyViaCompletionHandler(request("https://example.com/static/index.json"))
        #expect(json.text == #"{"ok":true}"#)
        #expect(json.header("Content-Type") == "application/json")
        // A link inside the directory is fine; the type comes from the requested name.
        #expect(try await mock.urlSession.reply("https://example.com/static/link-in.png").data == Data([0x89, 0x50, 0x4E, 0x47]))
        // Added after registration: still served.
        try Data("later".utf8).write(to: served.appendingPathComponent("a/later.txt"))
        #expect(try await mock.urlSession.reply("https://example.com/static/a/later.txt").text == "later")
        // Delegate-driven tasks get it streamed like any file body.
        let delegate = RecordingDelegate()
        mock.delegateSession(delegate).dataTask(with: url("https://example.com/static/a/b.png")).resume()
        await delegate.completion()
        #expect(delegate.body == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(mock.recordedRequests.first?.route == "GET example.com/static/**")
    }

    @Test("no file, a folder, another method or host: 404")
    func notFound() async throws {
        let (base, served) = try makeTree()
        defer { try? FileManager.default.removeItem(at: base) }
        try mock.serveFiles(from: served, at: "/static")
        #expect(try await mock.urlSession.reply("https://example.com/static/a/nope.png").status == 404)
        #expect(try await mock.urlSession.reply("https://example.com/static/a").status == 404)
        #expect(try await mock.urlSession.reply("https://example.com/static").status == 404)
        #expect(try await mock.urlSession.reply(request("https://example.com/static/index.json", method: "POST")).status == 404)
        #expect(try await mock.urlSession.reply("https://other.example/static/index.json").status == 404)
    }

    @Test(
        "traversal attempts get a 4xx and never a file outside",
        arguments: [
            "/static/../secret.txt", "/static/%2E%2E/secret.txt", "/static/%2e%2e%2fsecret.txt", "/static/a/..%2F..%2Fsecret.txt",
            "/static/link-out.txt", "/static/%2e%2e/%2e%2e/etc/passwd", "/static/a/%2E/b.png", "/static/%00",
        ])
    func traversal(path: String) async throws {
        let (base, served) = try makeTree()
        defer { try? FileManager.default.removeItem(at: base) }
        try mock.serveFiles(from: served, at: "/static")
        let reply = try await mock.urlSession.reply("https://example.com\(path)")
        // FoundationNetworking hands the path to the protocol unnormalised, so each of these
        // reaches the route and is refused by it (not merely unmatched).
        #expect(reply.status == 403, "\(path): \(reply.status) \(reply.text)")
        #expect(!reply.text.contains("TOP SECRET"))
        #expect(!reply.text.contains("root:"))
    }

    @Test("several directories: the first that has the file answers; a second call at the same path throws")
    func severalDirectories() async throws {
        let (base, served) = try makeTree()
        defer { try? FileManager.default.removeItem(at: base) }
        let overrides = base.appendingPathComponent("overrides")
        try FileManager.default.createDirectory(at: overrides, withIntermediateDirectories: true)
        try Data(#"{"ok":"overridden"}"#.utf8).write(to: overrides.appendingPathComponent("index.json"))
        try mock.serveFiles(from: [overrides, served], at: "/", host: "**")
        #expect(try await mock.urlSession.reply("https://any.example/index.json").text == #"{"ok":"overridden"}"#)
        #expect(try await mock.urlSession.reply("http://127.0.0.1:8080/a/b.png").data == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(try await mock.urlSession.reply("https://any.example/link-out.txt").status == 403)
        #expect {
            try mock.serveFiles(from: served, at: "/", host: "**")
        } throws: { error in
            (error as? HTTPMockError)?.message.contains("is already registered; pass every directory in one call") == true
        }
    }

    @Test("a directory that does not exist or a pattern prefix throws and registers nothing")
    func registrationErrors() async throws {
        #expect {
            try mock.serveFiles(from: URL(fileURLWithPath: "/no/such/dir"), at: "/static")
        } throws: { error in
            (error as? HTTPMockError)?.message == "serveFiles: /no/such/dir is not a directory"
        }
        let (base, served) = try makeTree()
        defer { try? FileManager.default.removeItem(at: base) }
        #expect {
            try mock.serveFiles(from: served, at: "/static/*")
        } throws: { error in
            (error as? HTTPMockError)?.message.contains("must be a literal path") == true
        }
        #expect(mock.describeRoutes().isEmpty)
    }
}

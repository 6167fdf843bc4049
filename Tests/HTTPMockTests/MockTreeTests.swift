import Foundation
import HTTPMock
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Mocks kept as a folder tree")
struct MockTreeTests {
    static var bundledTree: URL {
        get throws { try #require(Bundle.module.url(forResource: "Mocks", withExtension: nil)) }
    }

    let mock = HTTPMock()

    init() {
        mock.logHandler = nil
    }

    @Test("the bundled tree (a SwiftPM .copy resource) serves every rule")
    func bundledTreeServes() async throws {
        try mock.loadMocks(from: try Self.bundledTree, host: "api.example.com")
        let session = mock.urlSession

        let users = try await session.reply("https://api.example.com/users")
        #expect(users.text == #"[{"id":1,"name":"Ada"},{"id":2,"name":"Grace"}]"#)
        #expect(users.header("Content-Type") == "application/json")

        let user = try await session.reply("https://api.example.com/users/1")
        #expect(user.text == #"{"id":1,"name":"Ada"}"#)
        #expect(user.header("X-Source") == "tree")
        #expect(mock.recordedRequests.last?.request.pathParameters == ["id": "1"])

        #expect(try await session.reply(request("https://api.example.com/users/1", method: "DELETE")).status == 204)

        // Polling: two "running", then "done" for ever.
        var states: [String] = []
        for _ in 0..<4 { states.append(try await session.reply("https://api.example.com/jobs/42").text) }
        #expect(states == [#"{"state":"running"}"#, #"{"state":"running"}"#, #"{"state":"done"}"#, #"{"state":"done"}"#])

        let start = Date()
        let slow = try await session.reply("https://api.example.com/slow")
        #expect(Date().timeIntervalSince(start) >= 0.2)
        #expect(slow.status == 202)
        #expect(slow.header("Content-Type") == "text/plain; charset=utf-8")

        let image = try await session.reply("https://api.example.com/images/logo")
        #expect(image.header("Content-Type") == "image/png")
        #expect(image.data == (try Data(contentsOf: Fixtures.url("pixel.png"))))

        let health = try await session.reply("https://api.example.com/internal/v2/health")
        #expect(health.header("Content-Type") == "application/health+json")
        #expect(try await session.reply("https://api.example.com/health").text == #"{"status":"ok"}"#)

        #expect(try await session.reply("https://other.example.com/users").status == 404)
    }

    @Test("host: nil matches any host")
    func anyHost() async throws {
        try mock.loadMocks(from: try Self.bundledTree)
        #expect(try await mock.urlSession.reply("https://whatever.test/users/7").status == 200)
        #expect(try await mock.urlSession.reply("http://localhost:8080/users").status == 200)
    }

    @Test("describeRoutes lists one line per route with its queue and configuration file")
    func describeRoutes() throws {
        try mock.loadMocks(from: try Self.bundledTree, host: "api.example.com")
        let lines = mock.describeRoutes().split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "GET api.example.com/**/health — 1 response queued, the last .eternal (**/health/GET/configuration.json:1)",
                "GET api.example.com/images/* — 1 response queued, the last .eternal (images/*/GET/configuration.json:1)",
                "GET api.example.com/jobs/42 — 2 responses queued, the last .eternal (jobs/42/GET/configuration.json:1)",
                "GET api.example.com/slow — 1 response queued, the last .eternal (slow/GET/configuration.json:1)",
                // Folders are read in name order, and ":" sorts before "G".
                "GET api.example.com/users/:id — 1 response queued, the last .eternal (users/:id/GET/configuration.json:1)",
                "DELETE api.example.com/users/:id — 1 response queued, the last .eternal (users/:id/delete/configuration.json:1)",
                "GET api.example.com/users — 1 response queued, the last .eternal (users/GET/configuration.json:1)",
            ])
    }

    // MARK: - Errors: one per kind, each naming the file, each registering nothing

    /// Builds a tree with one good route (`GET /good`) plus `files`, loads it under a watchdog,
    /// checks through a real session that nothing was registered, and returns the error message
    /// with the root shown as `<root>`.
    func loadError(
        _ files: [String: String], links: [String: String] = [:], sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws -> String {
        let root = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.write(files.merging(["good/GET/configuration.json": #"{"status_code": 200}"#]) { $1 }, links: links, in: root)
        let message = try await loadErrorMessage(root, sourceLocation: sourceLocation)
        return message.replacingOccurrences(of: root.path, with: "<root>")
    }

    /// Loads `root` under a watchdog, expects an `HTTPMockError` and checks that nothing was
    /// registered (`GET /good` is unmocked through a real session, and no route is listed).
    func loadErrorMessage(_ root: URL, sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> String {
        let mock = self.mock
        let outcome = await withWatchdog(seconds: 20) { () -> (any Error)? in
            do {
                try mock.loadMocks(from: root, host: "api.example.com")
                return nil
            } catch {
                return error
            }
        }
        guard let outcome else {
            Issue.record("loadMocks did not return within 20 s", sourceLocation: sourceLocation)
            return ""
        }
        guard let thrown = outcome else {
            Issue.record("loading succeeded", sourceLocation: sourceLocation)
            return ""
        }
        // `loadMocks` is declared `throws`; what it throws is an HTTPMockError.
        guard let error = thrown as? HTTPMockError else {
            Issue.record("not an HTTPMockError: \(thrown)", sourceLocation: sourceLocation)
            return ""
        }
        #expect(error.code == .mockTree, sourceLocation: sourceLocation)
        #expect(mock.describeRoutes().isEmpty, "something was registered", sourceLocation: sourceLocation)
        #expect(try await mock.urlSession.reply("https://api.example.com/good").status == 404, sourceLocation: sourceLocation)
        return error.message
    }

    static func write(_ files: [String: String], links: [String: String] = [:], in root: URL) throws {
        for (path, content) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(content.utf8).write(to: url)
        }
        for (path, destination) in links.sorted(by: { $0.key < $1.key }) {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: destination)
        }
    }

    @Test("an unknown method folder")
    func unknownMethod() async throws {
        let message = try await loadError(["users/FETCH/configuration.json": "{}"])
        #expect(message.contains("<root>/users/FETCH/configuration.json: the folder holding a configuration.json names the HTTP method"))
        #expect(message.contains("not \"FETCH\""))
    }

    @Test("malformed JSON, with path, line and column")
    func malformedJSON() async throws {
        let message = try await loadError(["users/GET/configuration.json": "{\n  \"status_code\": 200,\n  \"headers\" {\"a\": \"b\"}\n}"])
        #expect(message.contains("<root>/users/GET/configuration.json:3:13: malformed JSON"))
    }

    @Test("an unknown key")
    func unknownKey() async throws {
        let message = try await loadError(["users/GET/configuration.json": #"{"status": 404}"#])
        #expect(
            message
                == #"loadMocks: <root>/users/GET/configuration.json: unknown key "status" (known keys: delay, headers, lifetime, new_state, required_state, response_file, scenario, status_code, template)"#
        )
    }

    /// Each case: the contents of `users/GET/configuration.json` and the message expected after
    /// `loadMocks: <root>/users/GET/configuration.json`.
    static let wrongTypes: [(json: String, message: String)] = [
        (#"{"status_code": "200"}"#, #": status_code must be a number from 100 to 599, got the string "200""#),
        (
            #"[{"status_code": 200}, {"status_code": "404"}]"#,
            #", entry [1]: status_code must be a number from 100 to 599, got the string "404""#
        ),
        (#"{"status_code": 600}"#, ": status_code must be a number from 100 to 599, got the number 600"),
        (#"{"status_code": 200.5}"#, ": status_code must be a number from 100 to 599, got the number 200.5"),
        (#"{"status_code": true}"#, ": status_code must be a number from 100 to 599, got true"),
        (#"{"status_code": null}"#, ": status_code must be a number from 100 to 599, got null"),
        (
            #"{"headers": ["X-A: b"]}"#,
            #": headers must be an object of strings like {"Cache-Control": "no-store"}, got an array of 1 value"#
        ),
        (#"{"headers": {"X-Count": 5}}"#, #": headers["X-Count"] must be a string, got the number 5"#),
        (#"{"headers": {"X-A": "a\nb"}}"#, #": headers["X-A"] must be a string without line breaks or NUL, got the string "a\nb""#),
        (#"{"headers": {"X A": "b"}}"#, #": headers: "X A" is not a header name (letters, digits and !#$%&'*+-.^_`|~)"#),
        (#"{"response_file": 5}"#, ": response_file must be the name of a file, relative to the method folder, got the number 5"),
        (#"{"response_file": ""}"#, #": response_file must be the name of a file, relative to the method folder, got the string """#),
        (#"{"delay": -1}"#, ": delay must be a number of seconds from 0 to 86400, got the number -1"),
        (#"{"delay": "0.5"}"#, #": delay must be a number of seconds from 0 to 86400, got the string "0.5""#),
        (#"{"delay": {}}"#, ": delay must be a number of seconds from 0 to 86400, got an object"),
        // Finite but huge: refused at load rather than trapped when the server converts it.
        (#"{"delay": 1e11}"#, ": delay must be a number of seconds from 0 to 86400, got the number 100000000000"),
        (#"{"delay": 1e300}"#, ": delay must be a number of seconds from 0 to 86400, got the number 1e+300"),
        (#"{"lifetime": "forever"}"#, #": lifetime must be "single", "eternal" or a count from 1 to 999999999, got the string "forever""#),
        (#"{"lifetime": 0}"#, #": lifetime must be "single", "eternal" or a count from 1 to 999999999, got the number 0"#),
        (#"{"lifetime": 1.5}"#, #": lifetime must be "single", "eternal" or a count from 1 to 999999999, got the number 1.5"#),
        (#"{"lifetime": false}"#, #": lifetime must be "single", "eternal" or a count from 1 to 999999999, got false"#),
        (
            #"[{"status_code": 200}, "ok"]"#,
            #", entry [1]: expected an object like {"status_code": 200, "response_file": "body.json"}, got the string "ok""#
        ),
    ]

    @Test("a value of the wrong type names the file, the entry, the key and the JSON value received", arguments: wrongTypes)
    func wrongType(json: String, expected: String) async throws {
        let message = try await loadError(["users/GET/configuration.json": json])
        #expect(message == "loadMocks: <root>/users/GET/configuration.json" + expected)
    }

    @Test("a missing response file, or one that is a folder")
    func missingResponseFile() async throws {
        let message = try await loadError(["users/GET/configuration.json": #"{"response_file": "nope.json"}"#])
        #expect(
            message
                == #"loadMocks: <root>/users/GET/configuration.json: response_file "nope.json" does not exist (looked for <root>/users/GET/nope.json)"#
        )
        let folder = try await loadError(["users/GET/configuration.json": #"{"response_file": "bodies"}"#, "users/GET/bodies/a.json": "{}"])
        #expect(
            folder
                == #"loadMocks: <root>/users/GET/configuration.json: response_file "bodies" is not a regular file (<root>/users/GET/bodies is a folder, a FIFO or a device)"#
        )
    }

    @Test("a configuration.json that is a FIFO is an error, not a read that never ends")
    func configurationFIFO() async throws {
        let root = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.write(["good/GET/configuration.json": "{}", "users/GET/user.json": "{}"], in: root)
        try #require(mkfifo(root.appendingPathComponent("users/GET/configuration.json").path, 0o644) == 0)
        let message = try await loadErrorMessage(root).replacingOccurrences(of: root.path, with: "<root>")
        #expect(message == "loadMocks: <root>/users/GET/configuration.json is not a regular file (a dangling link, a FIFO or a device)")
    }

    @Test("a method folder without configuration.json")
    func methodFolderWithoutConfiguration() async throws {
        let message = try await loadError(["users/POST/body.json": "{}"])
        #expect(message == "loadMocks: the method folder <root>/users/POST has no configuration.json")
    }

    @Test("a configuration.json next to method folders (inside a method folder) is an error, not a route dropped")
    func configurationInsideMethodFolder() async throws {
        // `api/get` holds a configuration.json, so it is the method folder of GET /api; the
        // route GET /api/get below it used to be dropped without a word.
        let message = try await loadError([
            "api/get/configuration.json": "{}",
            "api/get/GET/configuration.json": "{}",
        ])
        #expect(
            message
                == "loadMocks: <root>/api/get/GET/configuration.json is inside the method folder <root>/api/get (it holds a configuration.json), where it would be ignored: folders in a method folder hold response files, not routes. Move it out of <root>/api/get, or rename <root>/api/get/configuration.json if that folder is a path segment."
        )
        let deeper = try await loadError([
            "users/GET/configuration.json": "{}",
            "users/GET/fixtures/:id/DELETE/configuration.json": "{}",
        ])
        #expect(
            deeper.hasPrefix(
                "loadMocks: <root>/users/GET/fixtures/:id/DELETE/configuration.json is inside the method folder <root>/users/GET "))
        // Beside method folders, in a path folder.
        let beside = try await loadError([
            "users/configuration.json": "{}",
            "users/GET/configuration.json": "{}",
            "users/post/configuration.json": "{}",
        ])
        #expect(
            beside
                == "loadMocks: <root>/users/configuration.json is next to the method folders GET/, post/: a configuration.json belongs in a method folder, such as <root>/users/GET/"
        )
    }

    @Test("a malformed pattern folder")
    func malformedPattern() async throws {
        let message = try await loadError(["files/***/GET/configuration.json": "{}"])
        #expect(message.contains("nothing was registered"))
        #expect(message.contains("<root>/files/***/GET/configuration.json"))
        #expect(message.contains("\"***\" is not a pattern"))
    }

    @Test("an unreadable root: missing, or a file")
    func unreadableRoot() throws {
        #expect {
            try mock.loadMocks(from: URL(fileURLWithPath: "/no/such/mocks"))
        } throws: { error in
            (error as? HTTPMockError)?.message == "loadMocks: there is no folder at /no/such/mocks"
        }
        #expect {
            try mock.loadMocks(from: Fixtures.url("user.json"))
        } throws: { error in
            (error as? HTTPMockError)?.message.hasSuffix("user.json is a file, not a folder of mocks") == true
        }
    }

    // MARK: - Fixture folders

    @Test("fixture folders may live anywhere: beside routes, in a method folder, deep in either")
    func fixtureFoldersAnywhere() async throws {
        let root = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.write(
            [
                "fixtures/users.json": #"[{"id":1}]"#,
                "fixtures/deep/er/notes.txt": "unused",
                "users/GET/configuration.json": #"{"response_file": "../../fixtures/users.json", "lifetime": "eternal"}"#,
                "users/:id/GET/configuration.json": #"{"response_file": "bodies/v1/user.json", "lifetime": "eternal"}"#,
                "users/:id/GET/bodies/v1/user.json": #"{"id":7}"#,
                "users/:id/GET/bodies/get/unused.json": "{}",  // named like a method, inside a method folder
            ], in: root)
        try mock.loadMocks(from: root, host: "api.example.com")
        #expect(try await mock.urlSession.reply("https://api.example.com/users").text == #"[{"id":1}]"#)
        #expect(try await mock.urlSession.reply("https://api.example.com/users/7").text == #"{"id":7}"#)
        #expect(mock.describeRoutes().split(separator: "\n").count == 2)
    }

    // MARK: - Folder names that are not UTF-8

    /// Makes a folder whose name is `bytes` in `parent`; `false` if the file system refuses.
    static func makeFolder(named bytes: [UInt8], in parent: URL) -> Bool {
        let path = Array(parent.path.utf8) + [UInt8(ascii: "/")] + bytes + [0]
        return mkdir(path.map { CChar(bitPattern: $0) }, 0o755) == 0
    }

    @Test("a folder whose name is not UTF-8 is an error showing its bytes; such a file is ignored")
    func nonUTF8FolderName() async throws {
        let root = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.write(["good/GET/configuration.json": "{}"], in: root)
        // "caf\xE9": Latin-1 "café", invalid as UTF-8.
        try FileManager.default.createDirectory(at: root.appendingPathComponent("users"), withIntermediateDirectories: true)
        try #require(Self.makeFolder(named: Array("users/caf".utf8) + [0xE9], in: root))
        let message = try await loadErrorMessage(root).replacingOccurrences(of: root.path, with: "<root>")
        #expect(
            message
                == #"loadMocks: <root>/users/caf\xE9 is a folder whose name is not UTF-8 (bytes shown as \xHH); folder names become path segments and methods, so rename it"#
        )

        // A file with such a name cannot be named by a configuration.json: it is ignored.
        let files = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: files) }
        try Self.write(["users/GET/configuration.json": #"{"status_code": 201}"#], in: files)
        let path = Array(files.appendingPathComponent("users/GET").path.utf8) + Array("/caf".utf8) + [0xE9, 0]
        let descriptor = open(path.map { CChar(bitPattern: $0) }, O_CREAT | O_WRONLY, 0o644)
        try #require(descriptor >= 0)
        close(descriptor)
        try mock.loadMocks(from: files, host: "api.example.com")
        #expect(try await mock.urlSession.reply("https://api.example.com/users").status == 201)
    }

    // MARK: - Symbolic links

    @Test("a symbolic link to a folder outside the tree is followed; a second link into it is skipped with a warning")
    func linkedFolderIsFollowed() async throws {
        let root = try Fixtures.scratchDirectory()
        let shared = try Fixtures.scratchDirectory()
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: shared)
        }
        try Self.write(["GET/configuration.json": #"{"response_file": "health.json"}"#, "GET/health.json": #"{"ok":true}"#], in: shared)
        try Self.write([:], links: ["v1/health": shared.path, "v2/health": shared.path + "/."], in: root)
        // Two links into one folder: the second is skipped (every folder is read once), with a warning.
        let warnings = try await loadWarnings(root, shared: shared)
        #expect(
            warnings == [
                #"loadMocks: <root>/v2/health is a symbolic link to "<shared>/.", that is <root>/v1/health, a folder already read there, so it is skipped: every folder of a tree is read once (two ways into one folder would register its mocks twice, and links can multiply the ways without end). Copy the folder, or link its files instead."#
            ])
        #expect(try await mock.urlSession.reply("https://api.example.com/v1/health").text == #"{"ok":true}"#)
        #expect(try await mock.urlSession.reply("https://api.example.com/v2/health").status == 404)
        #expect(mock.describeRoutes().split(separator: "\n").count == 1)
    }

    @Test("a symbolic link loop is skipped with a warning naming the link and its target, not 41 duplicated routes")
    func oneSymlinkLoop() async throws {
        let root = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.write(["users/GET/configuration.json": "{}"], links: ["users/again": ".."], in: root)
        let warnings = try await loadWarnings(root)
        #expect(
            warnings == [
                #"loadMocks: <root>/users/again is a symbolic link to "..", that is <root>, a folder that contains it: a loop, so it is skipped (followed, the tree would never end). Remove the link or point it outside the tree."#
            ])
        #expect(
            mock.describeRoutes() == "GET api.example.com/users — 1 response queued, the last .eternal (users/GET/configuration.json:1)")
        #expect(try await mock.urlSession.reply("https://api.example.com/users").status == 200)
    }

    @Test("two symbolic link loops: loadMocks returns (under a watchdog), each loop skipped with a warning")
    func twoSymlinkLoops() async throws {
        // Before the fix, every level doubled the work: loadMocks never returned.
        let root = try Fixtures.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.write(
            ["a/GET/configuration.json": "{}", "b/c/GET/configuration.json": "{}"],
            links: ["a/x": "..", "a/y": "../a", "b/c/d/e": "../..", "b/c/d/f": "."], in: root)
        let warnings = try await loadWarnings(root)
        #expect(
            warnings.map { String($0.prefix(while: { $0 != "," })) } == [
                #"loadMocks: <root>/a/x is a symbolic link to "..""#,
                #"loadMocks: <root>/a/y is a symbolic link to "../a""#,
                #"loadMocks: <root>/b/c/d/e is a symbolic link to "../..""#,
                #"loadMocks: <root>/b/c/d/f is a symbolic link to ".""#,
            ])
        #expect(warnings.allSatisfy { $0.contains("a folder that contains it: a loop, so it is skipped") })
        #expect(try await mock.urlSession.reply("https://api.example.com/a").status == 200)
        #expect(try await mock.urlSession.reply("https://api.example.com/b/c").status == 200)
        #expect(mock.describeRoutes().split(separator: "\n").count == 2)
    }

    /// Loads `root` under a watchdog, expecting it to load with warnings; returns the warnings,
    /// roots shown as `<root>` and `<shared>`, in the order they were reported.
    func loadWarnings(_ root: URL, shared: URL? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> [String] {
        let mock = self.mock
        let warnings = Box<[String]>([])
        await withKnownIssue {
            // A task, not a thread: the warnings reach this test (Test.current is a task local).
            let loaded = await withTaskWatchdog(seconds: 20) { () -> String? in
                do {
                    try mock.loadMocks(from: root, host: "api.example.com")
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            #expect(loaded == .some(nil), "loadMocks failed or did not return within 20 s", sourceLocation: sourceLocation)
        } matching: { issue in
            guard issue.severity == .warning, let comment = issue.comments.first?.rawValue else { return false }
            var text = comment.replacingOccurrences(of: root.path, with: "<root>")
            if let shared { text = text.replacingOccurrences(of: shared.path, with: "<shared>") }
            warnings.value += [text]
            return true
        }
        return warnings.value
    }
}

/// Runs `body` in a task (which keeps the test's task locals) and returns its result, or `nil`
/// if it has not returned within `seconds`.
private func withTaskWatchdog<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () -> T) async -> T? {
    await withCheckedContinuation { continuation in
        let once = ResumeOnce(continuation)
        Task { once.resume(body()) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { once.resume(nil) }
    }
}

/// Runs `body` on a thread of its own and returns its result, or `nil` if it has not returned
/// within `seconds` — so a regression that hangs fails the test instead of the whole run (the
/// stuck thread is left behind).
private func withWatchdog<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () -> T) async -> T? {
    await withCheckedContinuation { continuation in
        let once = ResumeOnce(continuation)
        Thread.detachNewThread { once.resume(body()) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { once.resume(nil) }
    }
}

/// Resumes a continuation with the first value it is given and ignores the rest.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    // @unchecked: `continuation` is touched only under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T?, Never>?

    init(_ continuation: CheckedContinuation<T?, Never>) {
        self.continuation = continuation
    }

    func resume(_ value: T?) {
        let taken = lock.withLock { () -> CheckedContinuation<T?, Never>? in
            defer { continuation = nil }
            return continuation
        }
        taken?.resume(returning: value)
    }
}

import Foundation

/// The loopback HTTP server of `test_server.py`, started once per test process.
final class TestServer: Sendable {
    let port: Int
    private let process: Process
    /// Kept open: the server exits when it closes, that is when this process ends.
    private let stdin: Pipe

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The shared server, or the reason it could not start.
    static let shared: Result<TestServer, TestServerError> = Result { try TestServer() }.mapError { error in
        error as? TestServerError ?? TestServerError(message: "\(error)")
    }

    /// The shared server, waited for on a thread of its own: starting python3 takes seconds on
    /// a busy machine, and each suite waiting for it on Swift's cooperative pool held one of the
    /// pool's threads, which stalled every other test until the server was up.
    static func started() async throws -> TestServer {
        try await offCooperativePool { try shared.get() }
    }

    private init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("test_server.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        try process.run()
        var line = Data()
        while let byte = try stdout.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw TestServerError(message: "test_server.py did not print its port (is python3 installed?)")
        }
        self.port = port
        self.process = process
        self.stdin = stdin
    }
}

struct TestServerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The processes of the `wiremock` section: release `httpmock serve` and WireMock 2.35.1's
/// standalone jar on Debian's JVM, each a child process on 127.0.0.1 serving the same WireMock
/// root folder; what it takes them to answer, and what they hold while idle.
enum WireMockProcesses {
    static let environment = ProcessInfo.processInfo.environment

    /// WireMock 2.35.1's standalone jar, as PyPI's `wiremock` package ships it (`WIREMOCK_JAR`).
    static let jar =
        environment["WIREMOCK_JAR"]
        ?? "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/wiremock/server/wiremock-standalone-2.35.1.jar"
    /// A release `httpmock` (`HTTPMOCK_BIN`, else the repository's `.build-release`): build it with
    /// `swift build -c release --traits Server,JavaScript --scratch-path .build-release --product httpmock`.
    static let httpmock: String = {
        if let given = environment["HTTPMOCK_BIN"] { return given }
        let benchmarks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return benchmarks.deletingLastPathComponent().appendingPathComponent(".build-release/release/httpmock").path
    }()
    static let java = ["/usr/bin/java", "/usr/local/bin/java"].first(where: FileManager.default.isExecutableFile) ?? "java"

    enum Server: String {
        case httpmock = "httpmock serve"
        case wiremock = "WireMock 2.35.1 (JVM)"
    }

    /// A running server.
    final class Running {
        let process: Process
        let port: Int
        let server: Server

        init(_ server: Server, root: URL, extra: [String] = []) throws {
            self.server = server
            port = try freePort()
            process = Process()
            switch server {
            case .httpmock:
                process.executableURL = URL(fileURLWithPath: httpmock)
                process.arguments = ["serve", "--wiremock-root", root.path, "--port", String(port), "--log-level", "CRITICAL"] + extra
            case .wiremock:
                process.executableURL = URL(fileURLWithPath: java)
                process.arguments = ["-jar", jar, "--port", String(port), "--root-dir", root.path, "--disable-banner"] + extra
            }
            process.currentDirectoryURL = root
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
        }

        /// Starts the process; returns the seconds from the start until `path` answers 200, or
        /// infinity when it did not within `limit` seconds (a start-up figure, not a failure).
        func startAndWait(for path: String, limit: TimeInterval = 120) throws -> Double {
            let started = DispatchTime.now().uptimeNanoseconds
            try process.run()
            let deadline = Date().addingTimeInterval(limit)
            while Date() < deadline {
                if status(port: port, path: path) == 200 {
                    return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                }
                guard process.isRunning else { throw BenchmarkFailure("\(server.rawValue) exited (\(process.terminationStatus))") }
                usleep(1_000)
            }
            return .infinity
        }

        /// Resident set size of the process (VmRSS), in bytes.
        var residentBytes: Int {
            guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
            else { return 0 }
            return kilobytes * 1024
        }

        /// CPU time the process has spent (utime + stime of `/proc/PID/stat`), in seconds; in
        /// clock ticks (10 ms here), so read it over runs of seconds.
        var cpuSeconds: Double {
            guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { return 0 }
            // After the command's closing parenthesis: state is field 3, utime 14, stime 15.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }

        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            process.waitUntilExit()
        }

        var url: String { "http://127.0.0.1:\(port)" }
    }

    /// A port nothing listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchmarkFailure("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A connected loopback socket with a receive timeout, or -1.
    static func connect(port: Int, timeout: Int = 2) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return -1
        }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// The status of `GET path` on a new connection, or `nil` (nothing listens yet, no answer).
    static func status(port: Int, path: String) -> Int? {
        let fd = connect(port: port)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count >= 12 else { return nil }
        return Int(String(decoding: buffer[9..<12], as: UTF8.self))
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// WireMock root folders (`mappings/*.json`, one mapping per file, as real roots hold them).
enum WireMockRoots {
    static let body = String(repeating: "x", count: 100)

    /// One `urlPath` mapping, `GET /item`.
    static func one() throws -> URL {
        try make("one", [#"{"request":{"method":"GET","urlPath":"/item"},"response":{"status":200,"body":"\#(body)"}}"#])
    }

    /// `count` `urlPathPattern` mappings, `GET /api/v1/resourceN/[0-9]+`.
    static func patterns(_ count: Int) throws -> URL {
        try make(
            "patterns-\(count)",
            (0..<count).map { index in
                #"{"request":{"method":"GET","urlPathPattern":"/api/v1/resource\#(index)/[0-9]+"},"response":{"status":200,"body":"\#(body)"}}"#
            })
    }

    /// The path the middle mapping of ``patterns(_:)`` answers.
    static func middle(of count: Int) -> String { "/api/v1/resource\(count / 2)/42" }

    static func make(_ name: String, _ mappings: [String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-bench-\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        let folder = root.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("__files"), withIntermediateDirectories: true)
        for (index, mapping) in mappings.enumerated() {
            try Data(mapping.utf8).write(to: folder.appendingPathComponent(String(format: "mapping-%05d.json", index)))
        }
        return root
    }
}

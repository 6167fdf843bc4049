#if Server
import ArgumentParser
import Foundation
import HTTPMock
@_spi(CLI) import HTTPMockServer
import Logging

/// Voodoo's options, shared by `serve` and Voodoo's `run`, with Voodoo's short
/// names (`-c`, `-t`, `-p`; `-f` is `--file-dir`'s).
struct VoodooOptions: ParsableArguments {
    /// Voodoo's default port range, which `run` tries when no port is given.
    static let defaultPortRange = 8080...8090

    @Option(name: [.customShort("c"), .long], help: "A Voodoo YAML endpoint file, or a folder of them (read recursively).")
    var config: String?

    @Option(
        name: [.customShort("t"), .long],
        help: "The folder of Voodoo's templates and partials (a template's name is its path here, without .json).")
    var templateDir: String?

    @Option(
        name: [.customShort("p"), .long],
        help:
            "A port, or a range of ports as 8080-8090: the server binds the first free one (instead of --port). httpmock run: 8080-8090 by default."
    )
    var portRange: String?

    @Flag(help: "Say more: the routes loaded at start-up, and every exchange (on standard error under run).")
    var verbose = false

    @Flag(name: .customLong("hummingbird-verbose"), help: .hidden)
    var hummingbirdVerbose = false

    func validate() throws {
        if let portRange { _ = try Self.parse(portRange) }
    }

    /// `8080`, or `8080-8090` (Voodoo's forms), as a range of ports.
    static func parse(_ text: String) throws -> ClosedRange<Int> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let bounds = parts.map { part in part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) ? Int(part) : nil }
        // 0 (a free port) only alone: it is no place in a range.
        guard (1...2).contains(bounds.count), let low = bounds[0], let high = bounds[bounds.count - 1], 0...65_535 ~= low,
            low...65_535 ~= high, low > 0 || high == 0
        else {
            throw ValidationError(
                "--port-range must be a port or a range of ports from 1 to 65535, as 8080 or 8080-8090 (or 0 for a free port), got \"\(text)\"."
            )
        }
        return low...high
    }

    /// Under `run`, standard output is the server's URL alone: every other line goes to standard
    /// error from the start.
    func prepareOutput(for mode: ServeMode) {
        if mode == .run { Output.standardOutputIsReserved = true }
    }

    /// The ports to try, in order: `--port-range`, else `port` (`--port` or `configuration.json`),
    /// else Voodoo's 8080–8090 under `run`, else 0 (a free port).
    func ports(port: Int?, mode: ServeMode) throws -> [Int] {
        if let portRange { return Array(try Self.parse(portRange)) }
        if let port { return [port] }
        return mode == .run ? Array(Self.defaultPortRange) : [0]
    }

    /// Starts the server on the first of `ports` that is free; a port taken meanwhile (another
    /// `httpmock run` of a parallel test) moves on to the next.
    /// - Throws: `ValidationError` naming the range when every port is taken.
    func bind(_ ports: [Int], host: String, start: (Int) async throws -> HTTPMockServer) async throws -> HTTPMockServer {
        guard ports.count > 1, let first = ports.first, let last = ports.last else {
            return try await start(ports.first ?? 0)
        }
        for port in ports {
            do {
                return try await start(port)
            } catch let error as HTTPMockError where error.message.contains("already in use") {
                if verbose { complain("httpmock: port \(port) is busy, trying the next port in \(first)-\(last)") }
            }
        }
        throw ValidationError("Every port in \(first)-\(last) is taken on \(host): no port of the range is free.")
    }

    /// `run` prints the server's bare URL as the first line of standard output, for scripts
    /// (Voodoo.md reads it from a file while the server runs in the background).
    func announce(_ url: URL, mode: ServeMode) {
        if mode == .run { Output.stdout.write(url.absoluteString + "\n") }
    }

    /// Loads `--config` into `mock`; `POST /_admin/shutdown` calls `shutdown`, which stops the CLI
    /// (exit 0). A script that does not load is a warning to `log` (its endpoint answers 500), as
    /// in Voodoo: `httpmock: warning: MESSAGE`.
    func load(
        into mock: HTTPMock, fileDirectories: [String], log: Logger, shutdown: @escaping @Sendable () -> Void
    ) throws {
        guard let config else {
            if templateDir != nil { throw ValidationError("--template-dir needs --config (a Voodoo YAML file or folder).") }
            return
        }
        do {
            try mock.loadVoodoo(
                from: URL(fileURLWithPath: config), templateDirectory: templateDir.map { URL(fileURLWithPath: $0, isDirectory: true) },
                fileDirectories: fileDirectories.map { URL(fileURLWithPath: $0, isDirectory: true) }, host: nil,
                shutdown: shutdown, warn: { log.warning("warning: \($0)") })
        } catch {
            throw ValidationError("Could not load the Voodoo configuration \(config): \((error as? HTTPMockError)?.message ?? "\(error)")")
        }
    }

    /// `--verbose` (Voodoo's and WireMock's flag): every route loaded, from any source, on
    /// standard error.
    func listRoutes(of mock: HTTPMock) {
        guard verbose else { return }
        for line in mock.describeRoutes().split(separator: "\n") { complain("httpmock: route \(line)") }
    }
}
#endif

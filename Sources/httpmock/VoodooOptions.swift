#if Server
import ArgumentParser
import Foundation
import HTTPMock
@_spi(CLI) import HTTPMockServer

/// Voodoo's options (SPEC §18), shared by `serve` and its Voodoo name `run`.
struct VoodooOptions: ParsableArguments {
    @Option(help: "A Voodoo YAML endpoint file, or a folder of them (read recursively).")
    var config: String?

    @Option(help: "The folder of Voodoo's template: bodies (a template's name is its path here, without .json).")
    var templateDir: String?

    @Option(help: "A range of ports, as 8080-8090: the server binds the first free one (instead of --port).")
    var portRange: String?

    /// Loads `--config` into `mock`; `POST /_admin/shutdown` sends this process SIGTERM, so the
    /// CLI stops as on a signal and exits 0.
    func load(into mock: HTTPMock, fileDirectories: [String]) throws {
        guard let config else {
            if templateDir != nil { throw ValidationError("--template-dir needs --config (a Voodoo YAML file or folder).") }
            return
        }
        do {
            try mock.loadVoodoo(
                from: URL(fileURLWithPath: config), templateDirectory: templateDir.map { URL(fileURLWithPath: $0, isDirectory: true) },
                fileDirectories: fileDirectories.map { URL(fileURLWithPath: $0, isDirectory: true) }, host: nil,
                shutdown: { kill(getpid(), SIGTERM) })
        } catch {
            throw ValidationError("Could not load the Voodoo configuration \(config): \((error as? HTTPMockError)?.message ?? "\(error)")")
        }
    }

    /// The first port of `--port-range` that `host` can bind, else `port`.
    func port(host: String, otherwise port: Int) throws -> Int {
        guard let portRange else { return port }
        let bounds = portRange.split(separator: "-").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard bounds.count == 2, let low = bounds[0], let high = bounds[1], 1...65535 ~= low, low...65535 ~= high else {
            throw ValidationError("--port-range must be two ports as 8080-8090, got \(portRange).")
        }
        for candidate in low...high where Self.canBind(host: host, port: candidate) { return candidate }
        throw ValidationError("No port in \(portRange) is free on \(host).")
    }

    private static func canBind(host: String, port: Int) -> Bool {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host == "localhost" ? "127.0.0.1" : host)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
#endif

#if Server
import ArgumentParser
import Foundation
import HTTPMock

/// The CLI's `configuration.json` (Espresso-Martini's `hostname`, `port`, `delay`, `log_level`):
/// where it is and what it says, read by ``ServerSettings`` as strictly as a route file.
enum CLIConfiguration {
    static let fileName = "configuration.json"

    /// The settings file: `explicitPath`, else `./configuration.json`, else the one directly in
    /// the mocks folder; `nil` when there is none.
    static func path(explicitPath: String?, mocksFolder: URL?) -> String? {
        if let explicitPath { return explicitPath }
        if FileManager.default.fileExists(atPath: fileName) { return fileName }
        if let mocksFolder {
            let inFolder = mocksFolder.appendingPathComponent(fileName).path
            if FileManager.default.fileExists(atPath: inFolder) { return inFolder }
        }
        return nil
    }

    /// A note when the mocks folder holds a `configuration.json` (a settings file, never a route
    /// file) that is not the settings file in use, so it is not silently ignored.
    static func unusedSettingsFile(in mocksFolder: URL?, using settingsPath: String?) -> String? {
        guard let mocksFolder, let settingsPath else { return nil }
        let inFolder = mocksFolder.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: inFolder.path) else { return nil }
        let used = URL(fileURLWithPath: settingsPath).standardizedFileURL.resolvingSymlinksInPath()
        guard used != inFolder.standardizedFileURL.resolvingSymlinksInPath() else { return nil }
        return "httpmock: \(inFolder.path) is not read: the settings come from \(settingsPath)"
    }

    /// The settings of the file at `path` (none for `nil`).
    /// - Throws: `ValidationError` naming the file, the key and the value received.
    static func load(_ path: String?) throws -> ServerSettings {
        guard let path else { return ServerSettings() }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("Could not read the configuration file \(path): \(error.localizedDescription)")
        }
        do {
            return try ServerSettings(data, file: path)
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// Why `value` cannot be the host that requests naming the server are matched as
    /// (`--impersonate`), or `nil`: a host name or address with an optional port, optionally
    /// after `http://` or `https://`.
    static func impersonationProblem(_ value: String) -> String? {
        var rest = Substring(value)
        if let separator = value.range(of: "://") {
            let scheme = value[..<separator.lowerBound].lowercased()
            guard scheme == "http" || scheme == "https" else { return "the scheme must be http or https, got \"\(scheme)\"" }
            rest = value[separator.upperBound...]
            if rest.hasSuffix("/") { rest = rest.dropLast() }
        }
        var port: Substring?
        if rest.hasPrefix("[") {
            guard let end = rest.firstIndex(of: "]") else { return "an IPv6 address needs its closing \"]\"" }
            let address = rest[rest.index(after: rest.startIndex)..<end]
            guard !address.isEmpty, address.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return "\"[\(address)]\" is not an IPv6 address"
            }
            let after = rest[rest.index(after: end)...]
            if !after.isEmpty {
                guard after.first == ":" else { return "only a :port may follow \"]\", got \"\(after)\"" }
                port = after.dropFirst()
            }
        } else {
            let colons = rest.filter { $0 == ":" }.count
            if colons > 1 { return "write an IPv6 address in brackets (\"[::1]:8080\") and one port at most" }
            if let colon = rest.firstIndex(of: ":") {
                port = rest[rest.index(after: colon)...]
                rest = rest[..<colon]
            }
            guard !rest.isEmpty else { return "the host name is empty" }
            if let bad = rest.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_")) }) {
                return "\"\(bad)\" cannot be in a host name (letters, digits, \"-\", \"_\" and \".\")"
            }
            let labels = (rest.hasSuffix(".") ? rest.dropLast() : rest).split(separator: ".", omittingEmptySubsequences: false)
            guard !labels.contains(where: \.isEmpty) else { return "a host name has no empty labels (\"..\" or a leading \".\")" }
        }
        if let port {
            guard !port.isEmpty, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber), let number = Int(port),
                (1...65_535).contains(number)
            else { return "the port must be a number from 1 to 65535, got \"\(port)\"" }
        }
        return nil
    }

    /// `seconds` as typed (`-1`, `0.5`, `1e+11`), for messages.
    static func formatted(_ seconds: Double) -> String {
        seconds.rounded() == seconds && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }
}
#endif

#if Server
import ArgumentParser
import Foundation

/// Espresso-Martini's log levels.
enum LogLevel: String, CaseIterable {
    case trace = "TRACE"
    case debug = "DEBUG"
    case info = "INFO"
    case notice = "NOTICE"
    case warning = "WARNING"
    case error = "ERROR"
    case critical = "CRITICAL"

    var printsExchanges: Bool { [.trace, .debug, .info].contains(self) }
    var printsMisses: Bool { self != .critical }
}

/// Espresso-Martini's `configuration.json`: `hostname`, `port`, `delay` (seconds), `log_level`.
struct ServerConfiguration: Decodable {
    var hostname: String?
    var port: Int?
    var delay: Double?
    var logLevel: String?

    enum CodingKeys: String, CodingKey {
        case hostname, port, delay
        case logLevel = "log_level"
    }

    /// Reads `explicitPath`, else `./configuration.json` when present, else nothing.
    static func load(explicitPath: String?) throws -> ServerConfiguration {
        let path: String
        if let explicitPath {
            path = explicitPath
        } else if FileManager.default.fileExists(atPath: "configuration.json") {
            path = "configuration.json"
        } else {
            return ServerConfiguration()
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("Could not read the configuration file \(path): \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(ServerConfiguration.self, from: data)
        } catch let DecodingError.typeMismatch(type, context), let DecodingError.valueNotFound(type, context) {
            let key = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw ValidationError("\(path): \(key) must be a \(type).")
        } catch {
            throw ValidationError("\(path) is not a valid configuration.json: \(error)")
        }
    }
}
#endif

import Foundation
import FuzzSupport

@testable import HTTPMock

/// The `httpmock` CLI's own `configuration.json` (SPEC §13, `ServerSettings`): any bytes are
/// read into settings within their ranges or rejected with an `HTTPMockError` naming the file.
func fuzzServerSettings(_ bytes: [UInt8]) {
    do {
        let settings = try ServerSettings(Data(bytes), file: "configuration.json")
        if let port = settings.port { precondition((0...65_535).contains(port), "port \(port) accepted") }
        if let delay = settings.delay {
            precondition(delay >= 0 && delay <= ServerSettings.maximumDelay, "delay \(delay) accepted")
        }
        if let level = settings.logLevel { precondition(ServerSettings.logLevels.contains(level), "log_level \(level) accepted") }
        if let hostname = settings.hostname { precondition(!hostname.isEmpty, "an empty hostname accepted") }
    } catch {
        precondition(
            error.code == .mockTree && error.message.hasPrefix("configuration.json"),
            "an error that does not name the file: \(error.message)")
    }
    // The suggestion for a mistyped key is bounded whatever the key.
    if let key = String(validating: bytes.prefix(200), as: UTF8.self) {
        _ = ServerSettings.closestKnownKey(to: key)
    }
}

@_cdecl("FuzzServerSettings_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.main(argc, argv, fuzzServerSettings)
}

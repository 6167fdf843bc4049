import Foundation
import FuzzSupport

@testable import HTTPMock

/// The `configuration.json` reader of mock folder trees (SPEC §8): any bytes are read into
/// responses or rejected with an `HTTPMockError` naming what was wrong. Reading the disk
/// (response files, links) is not part of it.
func fuzzConfiguration(_ bytes: [UInt8]) {
    do {
        let configuration = try MockConfiguration(Data(bytes), file: "Mocks/users/GET/configuration.json")
        precondition(!configuration.entries.isEmpty, "a configuration without responses was accepted")
        for entry in configuration.entries {
            precondition((100...599).contains(entry.status), "status \(entry.status) accepted")
            precondition(entry.delay >= 0 && entry.delay <= ServerSettings.maximumDelay, "delay \(entry.delay) accepted")
        }
    } catch {
        precondition(
            error.code == .mockTree && error.message.hasPrefix("loadMocks: Mocks/users/GET/configuration.json"),
            "an error that does not name the file: \(error.message)")
    }
}

@_cdecl("FuzzConfiguration_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.main(argc, argv, fuzzConfiguration)
}

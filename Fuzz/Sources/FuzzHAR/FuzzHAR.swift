import Foundation
import FuzzSupport

@testable import HTTPMock

/// The HAR 1.2 reader (SPEC §14) and the routes it makes: any bytes are read into entries and
/// registered, or rejected with an `HTTPMockError` (`.har`) naming the file; nothing is
/// registered from an archive with an error.
let registry = Registry(
    passthroughSession: nil, creationLocation: SourceLocation(fileID: "FuzzHAR", filePath: "FuzzHAR", line: 1, column: 1))

func fuzzHAR(_ bytes: [UInt8]) {
    registry.clear()
    let file = "Replays/session.har"
    do {
        let entries = try HARReader.entries(in: Data(bytes), file: file)
        let definitions = HARRoutes.definitions(for: entries, file: file, timing: .immediate)
        do {
            try Registration.registerOrThrow(
                definitions, on: registry, defaultDomain: "example.com", errors: .init(code: .har, operation: "loadHAR(\(file))"))
        } catch {
            precondition(error.code == .har, "a registration error of another code: \(error.code)")
            precondition(registry.routeDescriptions().isEmpty, "an archive with an error registered routes")
        }
    } catch {
        precondition(error.code == .har && error.message.contains(file), "an error that does not name the file: \(error.message)")
    }
}

@_cdecl("FuzzHAR_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.main(argc, argv, fuzzHAR)
}

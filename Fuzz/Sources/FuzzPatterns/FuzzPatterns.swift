import Foundation
import FuzzSupport

@testable import HTTPMock

/// Host and path patterns: parsing what a user registers and matching what a request carries.
///
/// Input, one field a line: a host pattern (`*.example.com:8080`), a path pattern
/// (`/users/:id/**`), then a request URL without its scheme (`api.example.com/users/1?x=1`).
/// Every input must parse or be rejected with an error, and match or not, within the budget.
func fuzzPatterns(_ bytes: [UInt8]) {
    let fields = Fuzzing.lines(bytes, count: 3)
    let request = URL(string: "https://" + fields[2]).map {
        MockRequest(method: .get, url: $0, headers: HTTPHeaders(), body: nil)
    }
    if let host = try? HostPattern.parse(fields[0]) {
        _ = host.description
        if let request {
            _ = host.matches(host: request.normalizedHost, port: request.effectivePort)
        }
        _ = host.matches(host: fields[2], port: nil)
    }
    if let path = try? PathPattern.parse(fields[1]) {
        _ = path.description
        if let request {
            _ = path.match(request.pathSegments)
        }
        _ = path.match(fields[2].split(separator: "/").map(String.init))
    }
}

@_cdecl("FuzzPatterns_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.main(argc, argv, fuzzPatterns)
}

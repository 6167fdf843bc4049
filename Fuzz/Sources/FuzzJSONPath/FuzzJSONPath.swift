import Foundation
import FuzzSupport

@testable import HTTPMock

/// Jayway-style JSONPath: parsing a path (filters, regular expressions, functions) and
/// evaluating it on a document read by `JSONReader`, under a small request budget.
///
/// Input: the path `\n` the JSON document (the rest).
func fuzzJSONPath(_ bytes: [UInt8]) {
    let fields = Fuzzing.lines(bytes, count: 2)
    guard let path = try? JSONPath(fields[0]) else { return }
    _ = path.isDefinite
    guard let document = try? JSONReader.parseOrdered(fields[1], lenient: true) else { return }
    MatchBudget.$current.withValue(MatchBudget(steps: 100_000)) {
        _ = path.evaluate(document).nodes
    }
}

@_cdecl("FuzzJSONPath_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.main(argc, argv, fuzzJSONPath)
}

import Foundation
import FuzzSupport

@testable import HTTPMock

/// The regular-expression engine of mapping files (Java's syntax): compiling a pattern, its
/// literal analysis, and matching it on both machines under a small request budget.
///
/// Input: the pattern `\n` the text to match (the rest, newlines included). Checks that a text
/// the literal gate refuses is one the pattern does not match.
func fuzzRegex(_ bytes: [UInt8]) {
    let fields = Fuzzing.lines(bytes, count: 2)
    guard let regex = try? TextRegex(fields[0]) else { return }
    let text = fields[1]
    MatchBudget.$current.withValue(MatchBudget(steps: 100_000)) {
        let evaluation = regex.evaluate(text)
        if evaluation == .match, !regex.literalPrefix.isEmpty, !text.hasPrefix(regex.literalPrefix) {
            fatalError("\(regex.pattern) matched \(text) without its literal prefix \(regex.literalPrefix)")
        }
        _ = regex.cost(forLength: text.utf8.count)
        _ = regex.description
    }
}

@_cdecl("FuzzRegex_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.main(argc, argv, fuzzRegex)
}

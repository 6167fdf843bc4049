import Foundation
import FuzzSupport

@testable import HTTPMock

/// The XML reader, XPath and the `equalToXml`/`matchesXPath` matchers with their near-miss
/// text, under a small request budget.
///
/// Input: an XPath `\n` an expected document `\n` the body (the rest). Checks that a document
/// is similar to itself.
func fuzzXML(_ bytes: [UInt8]) {
    let fields = Fuzzing.lines(bytes, count: 3)
    let body = RequestBody(Data(fields[2].utf8))
    MatchBudget.$current.withValue(MatchBudget(steps: 100_000, bytes: 1 << 20)) {
        if let xpath = try? XPath(fields[0]) {
            let matcher = ValueMatcher.matchesXPath(XPathMatcher(xpath: xpath, matcher: nil))
            _ = matcher.matches(.body(body))
            _ = matcher.mismatch(.body(body))
        }
        if let expected = try? XMLTree(parsing: fields[1]) {
            let matcher = ValueMatcher.equalToXML(
                XMLEqualityMatcher(expectedText: fields[1], expected: expected, placeholders: nil, exempted: []))
            _ = matcher.mismatch(.body(body))
            if !matcher.matches(.body(RequestBody(Data(fields[1].utf8)))) {
                fatalError("a document is not similar to itself: \(fields[1])")
            }
        }
    }
}

@_cdecl("FuzzXML_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.main(argc, argv, fuzzXML)
}

import Foundation
import FuzzSupport

@testable import HTTPMock

/// Query, header and body matchers (the DSL's, lowered into `RequestConditions`) against a
/// request built from the input.
///
/// Input, one field a line: the query rule (`a=1&b=*&c=x,y`: `*` is `.any`, commas a repeated
/// key; a leading `~` means `.contains`), the header rule (same form), the body matcher (its
/// first character picks the kind — `=` equals, `~` contains, `j` json, `J` jsonContains,
/// `f` form `a=1&b=2`, `g` graphQL operation name, `x` an XML document, `p` an XPath — the rest
/// is its argument), the request URL
/// without its scheme, then the request body (the rest of the input, any bytes).
func fuzzMatchers(_ bytes: [UInt8]) {
    let fields = Fuzzing.lines(bytes, count: 5)
    let query = QueryRequirement(values: rules(fields[0]), matching: fields[0].hasPrefix("~") ? .contains : .exact)
    let headers = HeaderRequirement(rules(fields[1]))
    let body = matcher(fields[2])
    let bodyBytes = Data(fields[4].utf8)

    var requestHeaders = HTTPHeaders()
    for (name, value) in pairs(fields[1], separator: "&") {
        requestHeaders[name] = value
    }
    guard let url = URL(string: "https://" + fields[3]) else { return }
    let request = MockRequest(method: .post, url: url, headers: requestHeaders, body: bodyBytes)
    // Lowered into the one matcher set, as registration does; matched and explained.
    let conditions = RequestConditions(declared: .init(query: query, headers: headers, body: body))
    var facts = RequestFacts()
    _ = conditions.matches(request, parameters: [:], facts: &facts)
    _ = conditions.misses(request, parameters: [:], facts: &facts, revealSecrets: false)
    _ = query.description
    _ = headers.description
    _ = body.matches(request, json: { JSONValue.parse(bodyBytes) }, body: RequestBody(bodyBytes))
    _ = body.description
    _ = request.formParameters
}

private func pairs(_ text: String, separator: Character) -> [(String, String)] {
    text.drop(while: { $0 == "~" }).split(separator: separator).map { pair in
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
    }
}

private func rules(_ text: String) -> [String: QueryValue] {
    var rules: [String: QueryValue] = [:]
    for (key, value) in pairs(text, separator: "&") {
        rules[key] = value == "*" ? .any : QueryValue(value.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
    }
    return rules
}

private func matcher(_ text: String) -> BodyMatcher {
    let argument = String(text.dropFirst())
    switch text.first {
    case "~": return .contains(argument)
    case "j": return JSONValue.parse(Data(argument.utf8)).map { BodyMatcher(rule: .json($0)) } ?? .equals(argument)
    case "J": return JSONValue.parse(Data(argument.utf8)).map { BodyMatcher(rule: .jsonContains($0)) } ?? .equals(argument)
    case "f": return .form(Dictionary(pairs(argument, separator: "&"), uniquingKeysWith: { first, _ in first }))
    case "g": return .graphQL(operationName: argument)
    case "x": return .xml(argument)
    case "p": return .xPath(argument)
    default: return .equals(argument)
    }
}

@_cdecl("FuzzMatchers_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.main(argc, argv, fuzzMatchers)
}

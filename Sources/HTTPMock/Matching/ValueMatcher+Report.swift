import Foundation

// What a matcher says about a value it did not accept, in the near-miss wording every front
// end shares ("expected …, got …"), and how far the value is from it (WireMock's distance:
// 0 for a match, up to 1).

extension ValueMatcher {
    /// `expected <matcher>, got <value>`, with the detail a matcher can give (where two JSON
    /// documents differ, that a regular expression gave up); `nil` when `input` matches.
    func mismatch(_ input: MatchInput) -> String? {
        guard !matches(input) else { return nil }
        var line = "expected \(self), got \(Self.describe(input))"
        switch self {
        case .equalToJSON(let equality):
            if let actual = input.json {
                if let difference = equality.firstDifference(actual) { line += " (at \(difference.isEmpty ? "/" : difference))" }
            } else if input.text != nil {
                line += " (not JSON)"
            }
        case .jsonPath(let path, _):
            if let document = input.orderedJSON {
                let outcome = path.evaluate(document)
                switch outcome {
                case .exceededBudget: line += " (the JSONPath went over its budget of \(JSONPath.maximumSteps) steps)"
                case .failed(let message): line += " (\(message))"
                default:
                    let found = Self.jsonPathText(outcome)
                    line += " (the path found \(found.map { "\"\(Self.truncated($0))\"" } ?? "nothing"))"
                }
            } else if input.text != nil {
                line += " (not JSON)"
            }
        case .matches(let regex), .doesNotMatch(let regex):
            if let text = input.text, regex.evaluate(text) == .gaveUp {
                line += " (the regular expression gave up after \(TextRegex.stepBudget) steps)"
            }
        case .equalToXML(let matcher):
            if let detail = matcher.mismatch(input) { return detail }
        case .matchesXPath(let matcher):
            if let detail = matcher.mismatch(input) { return detail }
        default:
            break
        }
        return line
    }

    /// How far `input` is from satisfying the matcher: 0 when it does, 1 when nothing is alike;
    /// `equalTo` scales by edit distance, as WireMock's does.
    package func distance(_ input: MatchInput) -> Double {
        if matches(input) { return 0 }
        switch self {
        case .equalTo(let expected, let caseInsensitive):
            guard let value = input.text else { return 1 }
            return caseInsensitive
                ? NearMissAnalysis.difference(expected.lowercased(), value.lowercased()) : NearMissAnalysis.difference(expected, value)
        case .and(let all):
            return all.isEmpty ? 0 : all.reduce(0) { $0 + $1.distance(input) } / Double(all.count)
        case .or(let any):
            return any.map { $0.distance(input) }.min() ?? 1
        default:
            return 1
        }
    }

    /// A value as reports quote it: text in quotes (long text cut), `none` when missing.
    static func describe(_ input: MatchInput) -> String {
        switch input {
        case .text(let text):
            return text.map { "\"\(truncated($0))\"" } ?? "none"
        case .body(let body):
            guard let bytes = body.bytes, !bytes.isEmpty else { return "no body" }
            guard let text = String(data: bytes, encoding: .utf8) else { return "\(bytes.count) bytes of binary data" }
            return truncated(text) == text ? text : truncated(text) + " (\(bytes.count) bytes)"
        }
    }

    static func truncated(_ text: String, limit: Int = 160) -> String {
        text.count <= limit ? text : String(text.prefix(limit)) + "…"
    }
}

extension MultiValueMatcher {
    /// Why `field` fails the matcher; `nil` when it matches.
    func mismatch(_ field: FieldValues) -> String? {
        guard !matches(field) else { return nil }
        switch (self, field) {
        case (.single(let matcher), .body(let body)):
            return matcher.mismatch(.body(body))
        case (.single(let matcher), .values(let values)):
            if values.count <= 1 { return matcher.mismatch(.text(values.first)) }
            return "expected \(matcher), got " + values.map { "\"\(ValueMatcher.truncated($0))\"" }.joined(separator: ", ")
        case (_, .missingCookie):
            return "expected \(self), got none"
        case (_, .values(let values)):
            return "expected \(self), got "
                + (values.isEmpty ? "none" : values.map { "\"\(ValueMatcher.truncated($0))\"" }.joined(separator: ", "))
        default:
            return "expected \(self)"
        }
    }

    func distance(_ field: FieldValues) -> Double {
        guard !matches(field) else { return 0 }
        switch (self, field) {
        case (.single(let matcher), .body(let body)):
            return matcher.distance(.body(body))
        case (.single(let matcher), .values(let values)):
            if values.isEmpty { return matcher.distance(.text(nil)) }
            return values.map { matcher.distance(.text($0)) }.min() ?? 1
        default:
            return 1
        }
    }
}

extension RequestConditions {
    /// One condition `request` fails: what it is about and the `expected …, got …` line.
    package struct Miss: Sendable {
        /// `urlPath`, `header Accept`, `bodyPatterns[0]`, …
        let subject: String
        let explanation: String
        /// 0…1, as WireMock weighs one matcher.
        package let distance: Double
        /// WireMock's weight of the part of the request it is about (URL 10, others 1).
        let weight: Double
        /// For a condition lowered from the DSL, the report section it belongs to; its line is
        /// in the DSL's words and already masked as asked.
        var declaredSection: RouteMiss.Section? = nil

        /// `subject: explanation`, as reports print it.
        package var line: String { "\(subject): \(explanation)" }

        package init(subject: String, explanation: String, distance: Double, weight: Double) {
            self.subject = subject
            self.explanation = explanation
            self.distance = distance
            self.weight = weight
        }
    }

    /// Every condition `request` fails, in the mapping's order (URL rule, then conditions, then
    /// multipart patterns).
    package func misses(_ request: MockRequest, parameters: [String: String]) -> [Miss] {
        var facts = RequestFacts()
        return misses(request, parameters: parameters, facts: &facts)
    }

    /// Every condition `request` fails; the lines of conditions lowered from the DSL mask
    /// secrets unless `revealSecrets` (a front end's lines are masked by the caller).
    func misses(_ request: MockRequest, parameters: [String: String], facts: inout RequestFacts, revealSecrets: Bool = true) -> [Miss] {
        var found: [Miss] = []
        if let url {
            let evaluation = Self.evaluate(url, request)
            if evaluation != .match { found.append(Self.urlMiss(url, request, evaluation)) }
        }
        for condition in conditions {
            if let section = condition.field.declaredSection {
                guard !holds(condition, request, parameters, &facts) else { continue }
                for line in declaredLines(condition, request, &facts, revealSecrets: revealSecrets) {
                    var miss = Miss(subject: line.subject, explanation: line.explanation, distance: 1, weight: 1)
                    miss.declaredSection = section
                    found.append(miss)
                }
                continue
            }
            let values = self.values(of: condition.field, request, parameters, &facts)
            guard let explanation = condition.matcher.mismatch(values) else { continue }
            let weight: Double
            switch condition.field {
            case .host, .port: weight = 10
            case .scheme: weight = 3
            default: weight = 1
            }
            found.append(
                Miss(
                    subject: condition.label ?? condition.field.description, explanation: explanation,
                    distance: condition.matcher.distance(values), weight: weight))
        }
        let parts = multipart.isEmpty ? nil : facts.multipartParts(of: request)
        for (index, pattern) in multipart.enumerated() where !pattern.matches(parts) {
            let got = parts.map { "\($0.count) part\($0.count == 1 ? "" : "s") none of which matches" } ?? "a body that is not multipart"
            found.append(
                Miss(subject: "multipartPatterns[\(index)]", explanation: "expected \(pattern), got \(got)", distance: 1, weight: 1))
        }
        return found
    }

    /// What a condition lowered from the DSL says when it fails, in the DSL's words: one line
    /// per query parameter or header that differs (`query: expected page=1, got page=2`), per
    /// unexpected parameter under `.exact`, or for the body.
    private func declaredLines(
        _ condition: Condition, _ request: MockRequest, _ facts: inout RequestFacts, revealSecrets: Bool
    ) -> [(subject: String, explanation: String)] {
        switch (condition.field, condition.matcher) {
        case (.declaredQuery(let key), .declared(let expected, _)):
            let actual = facts.declaredQuery(of: request).values(for: key)
            let masks = !revealSecrets && SecretMasking.isSecretKey(key)
            let values = masks ? actual.map { _ in SecretMasking.placeholder } : actual
            let got = actual.isEmpty ? "no \(key)" : "\(key)=\(values.count == 1 ? values[0] : "[" + values.joined(separator: ", ") + "]")"
            let wanted = masks ? expected.maskedDescription { _ in SecretMasking.placeholder } : "\(expected)"
            return [("query", "expected \(key)=\(wanted), got \(got)")]
        case (.queryNames, .oneOf(let allowed)):
            let query = facts.declaredQuery(of: request)
            return query.keys.filter { !allowed.contains($0) }.map { key in
                let values = query.values(for: key)
                let shown = revealSecrets || !SecretMasking.isSecretKey(key) ? values : values.map { _ in SecretMasking.placeholder }
                return ("query", "unexpected \(key)=\(shown.joined(separator: ",")) (matching: .exact)")
            }
        case (.declaredHeader(let name, _), .declared(let expected, _)):
            let masks = !revealSecrets && SecretMasking.isSecretHeader(name)
            let got = request.headers[name].map { "\(name): \(masks ? SecretMasking.headerValue($0, named: name) : $0)" } ?? "no \(name)"
            let wanted = masks ? expected.maskedDescription { SecretMasking.headerValue($0, named: name) } : "\(expected)"
            return [("headers", "expected \(name): \(wanted), got \(got)")]
        case (.declaredBody, .body(let body)):
            if case .compiled(let compiled) = body.rule, let detail = compiled.matcher.mismatch(.body(facts.body(of: request))) {
                // XML and XPath say where the body differs or why it is not XML.
                return [("body", detail)]
            }
            return [("body", "expected \(body), got \(Self.describeBody(request.body, revealSecrets: revealSecrets))")]
        default:
            return [(condition.field.description, "expected \(condition.matcher)")]
        }
    }

    private static func describeBody(_ body: Data?, revealSecrets: Bool) -> String {
        guard let body, !body.isEmpty else { return "no body" }
        guard let text = String(data: body, encoding: .utf8) else { return "\(body.count) bytes of binary data" }
        let limit = 160
        let shown = text.count <= limit ? text : String(text.prefix(limit))
        let masked = revealSecrets ? shown : SecretMasking.bodyText(shown)
        return text.count <= limit ? masked : masked + "… (\(body.count) bytes)"
    }

    private static func urlMiss(_ rule: URLRule, _ request: MockRequest, _ evaluation: TextRegex.Evaluation) -> Miss {
        let target = request.target
        switch rule {
        case .url(let expected):
            return Miss(
                subject: "url", explanation: "expected \(expected), got \(target.rawPathAndQuery)",
                distance: NearMissAnalysis.difference(expected, target.rawPathAndQuery), weight: 10)
        case .path(let expected):
            return Miss(
                subject: "urlPath", explanation: "expected \(expected), got \(target.rawPath)",
                distance: NearMissAnalysis.difference(expected, target.rawPath), weight: 10)
        case .urlPattern(let regex):
            var explanation = "expected to match \(regex.pattern), got \(target.rawPathAndQuery)"
            if evaluation == .gaveUp { explanation += " (gave up after \(TextRegex.stepBudget) steps)" }
            return Miss(subject: "urlPattern", explanation: explanation, distance: 1, weight: 10)
        case .pathPattern(let regex):
            var explanation = "expected to match \(regex.pattern), got \(target.rawPath)"
            if evaluation == .gaveUp { explanation += " (gave up after \(TextRegex.stepBudget) steps)" }
            return Miss(subject: "urlPathPattern", explanation: explanation, distance: 1, weight: 10)
        }
    }

    /// WireMock's distance between a request and a stub: the weighted mean of each part's
    /// distance — URL, host and port 10, scheme and method 3, each header, query, cookie,
    /// body and multipart matcher 1 — so 0 is a match and 1 nothing alike.
    package func distance(_ request: MockRequest, method: HTTPMethod?, parameters: [String: String]) -> Double {
        let found = misses(request, parameters: parameters)
        var total = 0.0
        var weights = 10.0  // the URL (or any URL) always counts
        weights += 3  // the method
        if let method, method != request.method { total += 3 }
        for condition in conditions {
            switch condition.field {
            case .host, .port: weights += 10
            case .scheme: weights += 3
            default: weights += 1
            }
        }
        weights += Double(multipart.count)
        for miss in found { total += miss.distance * miss.weight }
        return min(1, total / weights)
    }
}

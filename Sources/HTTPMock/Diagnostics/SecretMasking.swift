import Foundation

/// Masks secrets in what a person reads: near-miss reports, the CLI's log, the
/// dashboard. Header values of ``Redaction/default``'s headers (`Authorization`,
/// `Proxy-Authorization`, `Cookie`, `Set-Cookie`) and of API-key and token headers, and the
/// values of well-known secret keys in query strings, JSON and form bodies (`password`, `pw`,
/// `token`, `api_key`, `client_secret`, …) are written as `REDACTED`, as a HAR export writes them.
/// What a program reads is never masked: the journal's values, the WireMock admin JSON.
///
/// Masking keeps what helps a reader: the scheme of an `Authorization` value (`Bearer REDACTED`),
/// cookie names, the layout of a JSON body. Everything here is linear in its input.
package enum SecretMasking {
    /// What a secret is replaced with.
    static let placeholder = HARPlaceholder.redacted

    /// Redaction's default headers, lowercased.
    private static let defaultHeaders = Redaction.default.headerNames

    /// Whether the values of header `name` are secrets.
    package static func isSecretHeader(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if defaultHeaders.contains(lowered) { return true }
        let key = normalized(lowered)
        return key.hasSuffix("apikey") || key.hasSuffix("token") || key.hasSuffix("secret") || key.hasSuffix("password")
    }

    /// Whether a query item, form field or JSON key named `name` holds a secret: `pw`,
    /// `password`, `token`, `accessToken`, `api_key`, `client_secret`, `session_id`, … (but not
    /// `max_tokens` or `token_count`).
    package static func isSecretKey(_ name: some StringProtocol) -> Bool {
        let key = normalized(name)
        if exactKeys.contains(key) { return true }
        return secretSuffixes.contains { key.hasSuffix($0) }
    }

    private static let exactKeys: Set<String> = [
        "pw", "pwd", "pass", "passwd", "passcode", "pin", "otp", "auth", "authorization", "cookie", "session", "sessionid",
        "sid", "ssn", "cvv", "cvc", "cardnumber", "creditcard", "signature", "sig",
    ]
    private static let secretSuffixes = ["password", "passwd", "secret", "token", "apikey", "privatekey", "credentials", "credential"]

    /// Lowercased letters and digits only: `X-Api-Key` and `api_key` are both `xapikey`/`apikey`.
    private static func normalized(_ name: some StringProtocol) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) }))
            .lowercased()
    }

    // MARK: - Values

    /// `value` of header `name` as a person may read it: `Bearer REDACTED`, `session=REDACTED;
    /// theme=REDACTED`, `id=REDACTED; Path=/; HttpOnly`, or `REDACTED`; other headers as they are.
    package static func headerValue(_ value: String, named name: String) -> String {
        guard isSecretHeader(name) else { return value }
        switch name.lowercased() {
        case "authorization", "proxy-authorization":
            // The scheme tells a reader much (Basic or Bearer?) and is no secret.
            if let space = value.firstIndex(of: " "), value[..<space].allSatisfy({ $0.isLetter || $0 == "-" }), space > value.startIndex {
                return value[..<space] + " " + placeholder
            }
            return placeholder
        case "cookie":
            return value.split(separator: ";").map { pair in
                let trimmed = pair.trimmingCharacters(in: .whitespaces)
                guard let equals = trimmed.firstIndex(of: "=") else { return placeholder }
                return trimmed[..<equals] + "=" + placeholder
            }.joined(separator: "; ")
        case "set-cookie":
            let parts = value.split(separator: ";", maxSplits: 1)
            guard let first = parts.first, let equals = first.firstIndex(of: "=") else { return placeholder }
            let cookie = first[..<equals].trimmingCharacters(in: .whitespaces) + "=" + placeholder
            return parts.count > 1 ? cookie + ";" + parts[1] : cookie
        default:
            return placeholder
        }
    }

    /// `url` (or a request target, `/path?query`) with the values of secret query items masked.
    package static func url(_ url: String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let fragmentStart = url[question...].firstIndex(of: "#") ?? url.endIndex
        let query = url[url.index(after: question)..<fragmentStart]
        let masked = formFields(query)
        guard masked != query else { return url }
        return String(url[...question]) + masked + url[fragmentStart...]
    }

    /// `a=1&pw=REDACTED`: the values of secret keys of a query string or a form body masked.
    private static func formFields(_ text: Substring) -> Substring {
        guard text.contains("=") else { return text }
        var changed = false
        let fields = text.split(separator: "&", omittingEmptySubsequences: false).map { field -> Substring in
            guard let equals = field.firstIndex(of: "=") else { return field }
            let name = field[..<equals]
            let decoded = name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(name)
            guard isSecretKey(decoded), field.index(after: equals) < field.endIndex else { return field }
            changed = true
            return field[...equals] + Substring(placeholder)
        }
        return changed ? Substring(fields.joined(separator: "&")) : text
    }

    /// A body's text as a person may read it: JSON with the values of secret keys masked
    /// (its layout kept; a body cut short is masked as far as it goes), a form body's secret
    /// fields masked, anything else as it is.
    package static func bodyText(_ text: String) -> String {
        guard let first = text.first(where: { !$0.isWhitespace }) else { return text }
        if first == "{" || first == "[" { return maskingJSON(text) }
        if !text.contains(where: { $0 == " " || $0 == "\n" }), text.contains("=") {
            return String(formFields(Substring(text)))
        }
        return text
    }

    /// Masks the value after every object key that ``isSecretKey(_:)``, scanning JSON text
    /// once (strings and escapes respected; nested values masked whole).
    private static func maskingJSON(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        var changed = false
        /// The index just past the string that starts at `start` (a quote), or the end.
        func stringEnd(_ start: Int) -> Int {
            var i = start + 1
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "\\") {
                    i += 2
                    continue
                }
                if bytes[i] == UInt8(ascii: "\"") { return i + 1 }
                i += 1
            }
            return bytes.count
        }
        /// The index just past the value that starts at `start`, or the end.
        func valueEnd(_ start: Int) -> Int {
            guard start < bytes.count else { return start }
            switch bytes[start] {
            case UInt8(ascii: "\""):
                return stringEnd(start)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                var i = start
                while i < bytes.count {
                    switch bytes[i] {
                    case UInt8(ascii: "\""):
                        i = stringEnd(i)
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 { return i + 1 }
                    default: break
                    }
                    i += 1
                }
                return bytes.count
            default:
                var i = start
                while i < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(bytes[i]),
                    !isSpace(bytes[i])
                {
                    i += 1
                }
                return i
            }
        }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\"") else {
                output.append(bytes[index])
                index += 1
                continue
            }
            let end = stringEnd(index)
            output.append(contentsOf: bytes[index..<end])
            var after = end
            while after < bytes.count, isSpace(bytes[after]) { after += 1 }
            guard after < bytes.count, bytes[after] == UInt8(ascii: ":"), end - index >= 2 else {
                index = end
                continue
            }
            let key = String(decoding: bytes[(index + 1)..<max(index + 1, end - 1)], as: UTF8.self)
            guard isSecretKey(key) else {
                index = end
                continue
            }
            var valueStart = after + 1
            while valueStart < bytes.count, isSpace(bytes[valueStart]) { valueStart += 1 }
            let valueStop = valueEnd(valueStart)
            guard valueStop > valueStart else {
                index = end
                continue
            }
            output.append(contentsOf: bytes[end..<valueStart])
            output.append(contentsOf: Array("\"\(placeholder)\"".utf8))
            changed = true
            index = valueStop
        }
        return changed ? String(decoding: output, as: UTF8.self) : text
    }

    /// A matcher's report line (`header Authorization: expected equalTo "Bearer x", got …`,
    /// `headers.Cookie: …`, `query parameter token: …`) with the quoted values it expects masked
    /// when its subject is a secret header, a cookie, or a secret query or form field; what was
    /// received is masked by ``text(_:hiding:)``. Other lines as they are.
    package static func maskingExpectations(in line: String) -> String {
        guard let colon = line.range(of: ": ") else { return line }
        let subject = line[..<colon.lowerBound].lowercased()
        guard let name = subject.split(whereSeparator: { $0 == " " || $0 == "." }).last.map(String.init) else { return line }
        let isHeader = subject.hasPrefix("header")
        let secret =
            subject.hasPrefix("cookie") || (isHeader && isSecretHeader(name))
            || ((subject.hasPrefix("query") || subject.hasPrefix("form")) && isSecretKey(name))
        guard secret else { return line }
        var result = String(line[..<colon.upperBound])
        var rest = line[colon.upperBound...]
        while let open = rest.firstIndex(of: "\"") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "\"") else {
                rest = rest[open...]
                break
            }
            let value = String(rest[afterOpen..<close])
            result += "\"" + (isHeader ? headerValue(value, named: name) : placeholder) + "\""
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    // MARK: - Free text

    /// The secret values `request` carries, each with what replaces it, longest first: header
    /// values (`Bearer REDACTED`) and their credentials, secret query items and form fields,
    /// secret JSON strings. Values shorter than 4 characters are left out (masking every `"1"`
    /// of a report would hide more than secrets).
    static func secrets(of request: MockRequest) -> [(secret: String, replacement: String)] {
        var found: [(String, String)] = []
        for (name, value) in request.headers where isSecretHeader(name) {
            found.append((value, headerValue(value, named: name)))
            switch name.lowercased() {
            case "authorization", "proxy-authorization":
                if let space = value.firstIndex(of: " ") { found.append((String(value[value.index(after: space)...]), placeholder)) }
            case "cookie", "set-cookie":
                for pair in value.split(separator: ";") {
                    if let equals = pair.firstIndex(of: "=") { found.append((String(pair[pair.index(after: equals)...]), placeholder)) }
                }
            default: break
            }
        }
        for item in request.queryItems where isSecretKey(item.name) {
            if let value = item.value { found.append((value, placeholder)) }
        }
        if let body = request.body, body.count <= maximumScannedBody, let text = String(data: body, encoding: .utf8) {
            found += secretValues(inBody: text).map { ($0, placeholder) }
        }
        var seen: Set<String> = []
        return found.filter { $0.0.count >= 4 && seen.insert($0.0).inserted }.sorted { $0.0.count > $1.0.count }
    }

    /// Bodies larger than this are not scanned for secrets to hide in free text (reports show
    /// 160 characters of a body, masked on their own).
    static let maximumScannedBody = 1 << 20

    /// The values of secret keys in a JSON or form body, as they are written there and decoded.
    private static func secretValues(inBody text: String) -> [String] {
        var values: [String] = []
        guard let first = text.first(where: { !$0.isWhitespace }) else { return [] }
        if first == "{" || first == "[" {
            guard let data = text.data(using: .utf8), let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            else { return [] }
            collect(json, secret: false, into: &values)
        } else if text.contains("=") {
            for field in text.split(separator: "&") {
                guard let equals = field.firstIndex(of: "=") else { continue }
                let name = field[..<equals].replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(field[..<equals])
                guard isSecretKey(name) else { continue }
                let raw = String(field[field.index(after: equals)...])
                values.append(raw)
                if let decoded = raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding { values.append(decoded) }
            }
        }
        return values
    }

    private static func collect(_ value: Any, secret: Bool, into values: inout [String]) {
        switch value {
        case let object as [String: Any]:
            for (key, child) in object { collect(child, secret: secret || isSecretKey(key), into: &values) }
        case let array as [Any]:
            for child in array { collect(child, secret: secret, into: &values) }
        case let string as String where secret:
            values.append(string)
        case let number as NSNumber where secret:
            values.append(number.stringValue)
        default:
            break
        }
    }

    /// `text` with every occurrence of each of `secrets` (longest first) replaced.
    package static func text(_ text: String, hiding secrets: [(secret: String, replacement: String)]) -> String {
        var text = text
        for (secret, replacement) in secrets where text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: replacement)
        }
        return text
    }
}

extension HTTPMock {
    /// Whether near-miss reports, the `httpmock` CLI's log and the dashboard show secrets as sent.
    ///
    /// Off by default: what a person reads has the values of `Authorization`,
    /// `Proxy-Authorization`, `Cookie` and `Set-Cookie` (the headers ``Redaction/default``
    /// removes from archives), of API-key and token headers (`X-Api-Key`, `X-Auth-Token`), and of
    /// well-known secret keys in query strings, JSON and form bodies (`password`, `pw`, `token`,
    /// `access_token`, `api_key`, `client_secret`, …) written as `REDACTED`, keeping what helps
    /// (`Authorization: Bearer REDACTED`, cookie names, the layout of a JSON body). Reports are
    /// pasted into chats and bug trackers, and CI logs are often public. What code reads is not
    /// masked: ``recordedRequests``, a `.dynamic` handler's request, WireMock's admin JSON.
    ///
    /// ```swift
    /// mock.revealSecrets = true   // debugging a header mismatch on Authorization
    /// ```
    ///
    /// The CLI's flag is `httpmock serve --reveal-secrets`. Reports already written (a journal
    /// entry's ``RecordedRequest/nearMissReport``) keep the setting they were written with.
    public var revealSecrets: Bool {
        get { registry.settings.revealSecrets }
        set { registry.updateSettings { $0.revealSecrets = newValue } }
    }
}

extension RouteKey {
    /// ``description`` with the expected values of secret headers and query items masked
    /// (``SecretMasking``): a route is named in reports and on the dashboard, and a credential it
    /// expects is one too. The description itself when there is nothing to mask.
    var maskedDescription: String {
        let (query, headers, body) = (declared?.query, declared?.headers, declared?.body)
        let secretHeaders = headers?.values.keys.contains(where: SecretMasking.isSecretHeader) ?? false
        let secretQuery = query?.values.keys.contains(where: { SecretMasking.isSecretKey($0) }) ?? false
        guard label == nil, secretHeaders || secretQuery else { return description }
        var text = "\(method?.rawValue ?? "ANY") \(host)\(path)"
        if let query { text += query.maskedDescription }
        if let headers { text += " [headers: \(headers.maskedDescription)]" }
        if let body { text += " [body: \(body)]" }
        if predicate != nil { text += " [where]" }
        if let scenario { text += " [when \(scenario)]" }
        return text
    }
}

extension HeaderRequirement {
    /// ``description`` with the values of secret headers masked.
    var maskedDescription: String {
        values.sorted(by: { $0.key < $1.key }).map { name, value in
            let shown =
                SecretMasking.isSecretHeader(name) ? value.maskedDescription { SecretMasking.headerValue($0, named: name) } : "\(value)"
            return "\(name): \(shown)"
        }.joined(separator: ", ")
    }
}

extension QueryRequirement {
    /// ``description`` with the values of secret query items masked.
    var maskedDescription: String {
        let pairs = values.sorted(by: { $0.key < $1.key }).map { name, value in
            "\(name)=\(SecretMasking.isSecretKey(name) ? value.maskedDescription { _ in SecretMasking.placeholder } : "\(value)")"
        }
        return "?" + pairs.joined(separator: "&") + (matching == .contains ? " (contains)" : "")
    }
}

import Foundation

/// The responses a `configuration.json` describes, read and checked without touching the disk
/// (the response files are looked up by ``MockTree``), so the reader can be fuzzed on its own.
///
/// One object or a non-empty array of objects with the keys `status_code` (100–599, default
/// 200), `headers` (an object of strings), `response_file` (a file name), `delay` (seconds, 0
/// to a day) and `lifetime` (`"single"`, `"eternal"` or a count ≥ 1; a route's last entry without
/// one repeats), `scenario`, `required_state` and
/// `new_state` (non-empty strings; the last two need `scenario`) and `template` (a boolean;
/// needs `response_file`). Every key is checked; a mistake
/// names the file, the array entry, the key and what was received:
/// `…/configuration.json, entry [1]: status_code must be a number from 100 to 599, got the string "200"`.
struct MockConfiguration: Sendable {
    /// One response of the file.
    struct Entry: Sendable {
        var status = 200
        var headers: [(name: String, value: String)] = []
        var responseFile: String?
        var delay: TimeInterval = 0
        var lifetime = Lifetime.single
        /// Whether the file names `lifetime`: the last entry of a route's queue that does not
        /// repeats (`.eternal`, Espresso-Martini's queue rule).
        var namesLifetime = false
        /// The scenario `required_state` and `new_state` refer to.
        var scenario: String?
        /// The state the scenario must be in for this entry's route.
        var requiredState: String?
        /// The state serving this entry moves the scenario to.
        var newState: String?
        /// Whether the response file is a Mustache template.
        var isTemplate = false
    }

    static let fileName = "configuration.json"
    static let knownKeys = [
        "delay", "headers", "lifetime", "new_state", "required_state", "response_file", "scenario", "status_code", "template",
    ]
    /// The largest `lifetime` count: large enough for any test, small enough for an `Int`
    /// converted from a JSON number (a `Double`) to be exact.
    static let maximumCount = 999_999_999

    var entries: [Entry]

    /// Reads `data`, the contents of the file at `file` (used in messages only).
    /// - Throws: ``HTTPMockError`` (`.mockTree`) naming the file (and line and column for
    ///   malformed JSON), the entry, the key and the value received.
    init(_ data: Data, file: String) throws(HTTPMockError) {
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw HTTPMockError(
                .mockTree, "loadMocks: \(file)\(Self.position(of: error, in: data)): malformed JSON (\(Self.debugDescription(of: error)))")
        }
        if let array = json as? [Any] {
            guard !array.isEmpty else {
                throw HTTPMockError(.mockTree, "loadMocks: \(file): the array holds no response")
            }
            var entries: [Entry] = []
            for (index, element) in array.enumerated() {
                entries.append(try Self.entry(element, place: "\(file), entry [\(index)]"))
            }
            self.entries = entries
        } else {
            entries = [try Self.entry(json, place: file)]
        }
    }

    private static func entry(_ json: Any, place: String) throws(HTTPMockError) -> Entry {
        guard let object = json as? [String: Any] else {
            throw HTTPMockError(
                .mockTree,
                "loadMocks: \(place): expected an object like {\"status_code\": 200, \"response_file\": \"body.json\"}, got \(describe(json))"
            )
        }
        for key in object.keys.sorted() where !knownKeys.contains(key) {
            throw HTTPMockError(
                .mockTree, "loadMocks: \(place): unknown key \(quoted(key)) (known keys: \(knownKeys.joined(separator: ", ")))")
        }
        func invalid(_ key: String, _ expected: String, _ value: Any) -> HTTPMockError {
            HTTPMockError(.mockTree, "loadMocks: \(place): \(key) must be \(expected), got \(describe(value))")
        }

        var entry = Entry()
        if let value = object["status_code"] {
            guard let code = integer(value), (100...599).contains(code) else {
                throw invalid("status_code", "a number from 100 to 599", value)
            }
            entry.status = code
        }
        if let value = object["headers"] {
            guard let fields = value as? [String: Any] else {
                throw invalid("headers", "an object of strings like {\"Cache-Control\": \"no-store\"}", value)
            }
            for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
                guard HTTPMethod(name).isValidToken else {
                    throw HTTPMockError(
                        .mockTree,
                        "loadMocks: \(place): headers: \(quoted(name)) is not a header name (letters, digits and !#$%&'*+-.^_`|~)")
                }
                guard let text = field as? String else {
                    throw invalid("headers[\(quoted(name))]", "a string", field)
                }
                guard !text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                    throw invalid("headers[\(quoted(name))]", "a string without line breaks or NUL", field)
                }
                entry.headers.append((name, text))
            }
        }
        if let value = object["response_file"] {
            guard let name = value as? String, !name.isEmpty, !name.unicodeScalars.contains("\0") else {
                throw invalid("response_file", "the name of a file, relative to the method folder", value)
            }
            entry.responseFile = name
        }
        if let value = object["delay"] {
            // Bounded: a finite but huge delay (1e300) would overflow the server's nanoseconds.
            guard let seconds = number(value), seconds >= 0, seconds <= ServerSettings.maximumDelay else {
                throw invalid("delay", "a number of seconds from 0 to \(Int(ServerSettings.maximumDelay))", value)
            }
            entry.delay = seconds
        }
        if let value = object["lifetime"] {
            entry.namesLifetime = true
            if let text = value as? String, text == "single" || text == "eternal" {
                entry.lifetime = text == "single" ? .single : .eternal
            } else if let count = integer(value), (1...maximumCount).contains(count) {
                entry.lifetime = .multiple(count)
            } else {
                throw invalid("lifetime", "\"single\", \"eternal\" or a count from 1 to \(maximumCount)", value)
            }
        }
        for (key, path) in [("scenario", \Entry.scenario), ("required_state", \Entry.requiredState), ("new_state", \Entry.newState)] {
            guard let value = object[key] else { continue }
            guard let text = value as? String, !text.isEmpty else {
                throw invalid(key, "a non-empty string", value)
            }
            entry[keyPath: path] = text
        }
        if entry.scenario == nil, let key = ["required_state", "new_state"].first(where: { object[$0] != nil }) {
            throw HTTPMockError(.mockTree, "loadMocks: \(place): \(key) needs a \"scenario\" naming the scenario it belongs to")
        }
        if let value = object["template"] {
            guard let flag = value as? NSNumber, isBoolean(flag) else {
                throw invalid("template", "true or false", value)
            }
            entry.isTemplate = flag.boolValue
            if entry.isTemplate, entry.responseFile == nil {
                throw HTTPMockError(.mockTree, "loadMocks: \(place): \"template\": true needs a response_file holding the template")
            }
        }
        return entry
    }

    // MARK: - JSON values

    /// Whether `value` is a JSON `true`/`false`. `JSONSerialization` gives booleans as
    /// `NSNumber`s (`objCType` "c") that also cast to `Int`.
    private static func isBoolean(_ value: NSNumber) -> Bool {
        String(cString: value.objCType) == "c"
    }

    static func number(_ value: Any) -> Double? {
        guard let number = value as? NSNumber, !isBoolean(number) else { return nil }
        return number.doubleValue
    }

    static func integer(_ value: Any) -> Int? {
        guard let double = number(value), double.rounded() == double, abs(double) <= 1e15 else { return nil }
        return Int(double)
    }

    /// The JSON type and value received, for messages: `the string "200"`, `the number 2.5`,
    /// `true`, `null`, `an array of 2 values`, `an object`.
    static func describe(_ value: Any) -> String {
        switch value {
        case is NSNull:
            return "null"
        case let text as String:
            return "the string \(quoted(text))"
        case let number as NSNumber:
            if isBoolean(number) { return number.boolValue ? "true" : "false" }
            let double = number.doubleValue
            if double.rounded() == double, abs(double) <= 1e15 { return "the number \(Int(double))" }
            return "the number \(double)"
        case let array as [Any]:
            return array.count == 1 ? "an array of 1 value" : "an array of \(array.count) values"
        case is [String: Any]:
            return "an object"
        default:
            return "\(type(of: value))"
        }
    }

    /// `text` in double quotes, with quotes, backslashes and control characters escaped as in
    /// JSON, shortened to 80 characters.
    static func quoted(_ text: String) -> String {
        JSONValue.quoted(text, shortenedTo: 80)
    }

    // MARK: - Malformed JSON

    /// `:line:column` of a JSONSerialization error ("… around character 36."), or "".
    static func position(of error: any Error, in data: Data) -> String {
        let description = debugDescription(of: error)
        guard let range = description.range(of: "character "),
            let offset = Int(description[range.upperBound...].prefix(while: \.isNumber))
        else { return "" }
        var line = 1
        var column = 1
        for byte in data.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {  // count characters, not UTF-8 continuation bytes
                column += 1
            }
        }
        return ":\(line):\(column)"
    }

    static func debugDescription(of error: any Error) -> String {
        ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
    }
}

import Foundation

/// Reads an Espresso-Martini-style folder tree into route definitions.
///
/// ```
/// Mocks/
///   users/
///     GET/configuration.json        → GET /users
///     :id/
///       GET/configuration.json      → GET /users/:id
///       GET/user.json
///       delete/configuration.json   → DELETE /users/:id
///   **/health/GET/configuration.json → GET /**/health
/// ```
///
/// A folder holding `configuration.json` is a *method folder*: its name is the HTTP method
/// (any case) and the folders above it, below the root, are the path. Every other folder is a
/// path segment (`*`, `**` and `:name` folders are pattern segments). Files outside method
/// folders are ignored, so shared fixtures can live anywhere in the tree.
enum MockTree {
    static let configurationFileName = "configuration.json"
    static let knownMethods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT"]
    static let knownKeys: Set<String> = ["status_code", "headers", "response_file", "delay", "lifetime"]

    /// Every route of the tree under `root`, in a deterministic order (folders sorted by name).
    /// - Throws: ``HTTPMockError`` naming the file and what is wrong in it.
    static func definitions(in root: URL, host: String?) throws(HTTPMockError) -> [RouteDefinition] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) else {
            throw HTTPMockError(.mockTree, "loadMocks: there is no folder at \(root.path)")
        }
        guard isDirectory.boolValue else {
            throw HTTPMockError(.mockTree, "loadMocks: \(root.path) is a file, not a folder of mocks")
        }
        if FileManager.default.fileExists(atPath: root.appendingPathComponent(configurationFileName).path) {
            throw HTTPMockError(.mockTree, "loadMocks: \(root.appendingPathComponent(configurationFileName).path) is directly in the root; put it in a method folder such as GET/")
        }
        var definitions: [RouteDefinition] = []
        try walk(root, segments: [], root: root, host: host, into: &definitions)
        return definitions
    }

    private static func walk(_ folder: URL, segments: [String], root: URL, host: String?, into definitions: inout [RouteDefinition]) throws(HTTPMockError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        } catch {
            throw HTTPMockError(.mockTree, "loadMocks: cannot read the folder \(folder.path): \(error.localizedDescription)")
        }
        for name in names where !name.hasPrefix(".") {
            let child = folder.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: child.path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            let configuration = child.appendingPathComponent(configurationFileName)
            if FileManager.default.fileExists(atPath: configuration.path) {
                guard knownMethods.contains(name.uppercased()) else {
                    throw HTTPMockError(.mockTree, "loadMocks: \(configuration.path): the folder holding a configuration.json names the HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, TRACE, CONNECT, any case), not \"\(name)\"")
                }
                definitions.append(try definition(from: configuration, method: HTTPMethod(name), segments: segments, root: root, host: host))
            } else if knownMethods.contains(name.uppercased()), try isLeaf(child) {
                throw HTTPMockError(.mockTree, "loadMocks: the method folder \(child.path) has no configuration.json")
            } else {
                try walk(child, segments: segments + [name], root: root, host: host, into: &definitions)
            }
        }
    }

    private static func isLeaf(_ folder: URL) throws(HTTPMockError) -> Bool {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { name in
                var isDirectory: ObjCBool = false
                return !FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isDirectory) || !isDirectory.boolValue
            }
        } catch {
            throw HTTPMockError(.mockTree, "loadMocks: cannot read the folder \(folder.path): \(error.localizedDescription)")
        }
    }

    private static func definition(from configuration: URL, method: HTTPMethod, segments: [String], root: URL, host: String?) throws(HTTPMockError) -> RouteDefinition {
        let data: Data
        do {
            data = try Data(contentsOf: configuration)
        } catch {
            throw HTTPMockError(.mockTree, "loadMocks: cannot read \(configuration.path): \(error.localizedDescription)")
        }
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw HTTPMockError(.mockTree, "loadMocks: \(configuration.path)\(position(of: error, in: data)): malformed JSON (\(debugDescription(of: error)))")
        }
        let entries: [Any]
        if let array = json as? [Any] {
            entries = array
        } else {
            entries = [json]
        }
        guard !entries.isEmpty else {
            throw HTTPMockError(.mockTree, "loadMocks: \(configuration.path): the array holds no response")
        }
        let folder = configuration.deletingLastPathComponent()
        var responses: [MockResponse] = []
        for (index, entry) in entries.enumerated() {
            let place = entries.count > 1 ? "\(configuration.path), response \(index + 1)" : configuration.path
            responses.append(try response(from: entry, place: place, folder: folder, configuration: configuration))
        }
        let relative = String(configuration.path.dropFirst(root.path.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        return RouteDefinition(
            path: RoutePath.join(segments), host: host ?? "**", method: method, query: nil, matching: .exact,
            headers: nil, body: nil, predicate: nil, responses: responses,
            location: SourceLocation(fileID: relative, filePath: configuration.path, line: 1, column: 1))
    }

    private static func response(from entry: Any, place: String, folder: URL, configuration: URL) throws(HTTPMockError) -> MockResponse {
        guard let object = entry as? [String: Any] else {
            throw HTTPMockError(.mockTree, "loadMocks: \(place): expected an object like {\"status_code\": 200, \"response_file\": \"body.json\"}")
        }
        for key in object.keys.sorted() where !knownKeys.contains(key) {
            throw HTTPMockError(.mockTree, "loadMocks: \(place): unknown key \"\(key)\" (known keys: \(knownKeys.sorted().joined(separator: ", ")))")
        }
        func invalid(_ key: String, _ expected: String) -> HTTPMockError {
            HTTPMockError(.mockTree, "loadMocks: \(place): \"\(key)\" must be \(expected), not \(object[key].map { "\($0)" } ?? "null")")
        }

        var status = HTTPStatus.ok
        if let value = object["status_code"] {
            guard let code = integer(value), (100...599).contains(code) else { throw invalid("status_code", "an HTTP status from 100 to 599") }
            status = HTTPStatus(code)
        }
        var headers = HTTPHeaders()
        if let value = object["headers"] {
            guard let fields = value as? [String: Any] else { throw invalid("headers", "an object of strings") }
            for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
                guard let text = field as? String else { throw invalid("headers", "an object of strings (\"\(name)\" is not a string)") }
                headers[name] = text
            }
        }
        var delivery = Delivery.instant
        if let value = object["delay"] {
            guard let seconds = number(value), seconds >= 0, seconds.isFinite else { throw invalid("delay", "a number of seconds ≥ 0") }
            delivery = seconds > 0 ? .delayed(seconds) : .instant
        }
        var lifetime = Lifetime.single
        if let value = object["lifetime"] {
            if let text = value as? String, text == "single" || text == "eternal" {
                lifetime = text == "single" ? .single : .eternal
            } else if let count = integer(value), count >= 1 {
                lifetime = .multiple(count)
            } else {
                throw invalid("lifetime", "\"single\", \"eternal\" or a count ≥ 1")
            }
        }
        guard let value = object["response_file"] else {
            return .empty(status: status, headers: headers, lifetime: lifetime, delivery: delivery)
        }
        guard let name = value as? String, !name.isEmpty else { throw invalid("response_file", "a file name") }
        let file = folder.appendingPathComponent(name).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw HTTPMockError(.mockTree, "loadMocks: \(place): response_file \"\(name)\" does not exist (looked for \(file.path))")
        }
        return .file(url: file, status: status, headers: headers, lifetime: lifetime, delivery: delivery,
                     fileID: configuration.lastPathComponent, filePath: configuration.path, line: 1, column: 1)
    }

    /// A JSON number. `JSONSerialization` gives `NSNumber`s, and `true`/`false` are `NSNumber`s
    /// too (`objCType` "c"), which also cast to `Int`; they are not numbers here.
    private static func number(_ value: Any) -> Double? {
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        return number.doubleValue
    }

    private static func integer(_ value: Any) -> Int? {
        guard let double = number(value), double.rounded() == double, abs(double) < 1e9 else { return nil }
        return Int(double)
    }

    /// `:line:column` of a JSONSerialization error ("… around character 36."), or "".
    private static func position(of error: any Error, in data: Data) -> String {
        let description = debugDescription(of: error)
        guard let range = description.range(of: "character "),
              let offset = Int(description[range.upperBound...].prefix(while: \.isNumber)) else { return "" }
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

    private static func debugDescription(of error: any Error) -> String {
        ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
/// folders are ignored, so shared fixtures can live anywhere in the tree; folders inside a
/// method folder hold its response files, never routes (a `configuration.json` there is an
/// error rather than a route silently dropped). A folder named like a method that holds only
/// files but no `configuration.json` is a method folder missing it: an error.
///
/// Reading the disk (links, loops, folder names that are not UTF-8) is ``FolderReader``'s;
/// reading `configuration.json` is ``MockConfiguration``'s.
enum MockTree {
    static let knownMethods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT"]

    /// Every route of the tree under `root`, in a deterministic order (folders sorted by name).
    /// With `rootHoldsSettings` (the CLI), a `configuration.json` directly in `root` is the CLI's
    /// settings file and no route; otherwise it is an error. A link to a folder that loops or
    /// leads into a folder already read is skipped and reported as a warning, after the tree
    /// loaded (nothing is reported for a tree that fails to load).
    /// - Throws: ``HTTPMockError`` naming the file or folder and what is wrong in it.
    static func definitions(
        in root: URL, host: String?, rootHoldsSettings: Bool = false
    ) throws(HTTPMockError) -> (
        definitions: [RouteSpec], skipped: [FolderReader.SkippedLink]
    ) {
        let (tree, skipped) = try FolderReader.read(root: root.path)
        if !rootHoldsSettings, tree.files.contains(MockConfiguration.fileName) {
            throw HTTPMockError(
                .mockTree,
                "loadMocks: \(tree.path)/\(MockConfiguration.fileName) is directly in the root; put it in a method folder such as GET/")
        }
        var definitions: [RouteSpec] = []
        for folder in tree.folders {
            try collect(folder, segments: [], root: tree.path, host: host, into: &definitions)
        }
        return (definitions, skipped)
    }

    /// Reports each skipped link as a warning at the link (no line: it is not a file's).
    static func warn(about skipped: [FolderReader.SkippedLink]) {
        for link in skipped {
            Reporter.warn(link.message, at: SourceLocation(fileID: link.path, filePath: link.path, line: 0, column: 0))
        }
    }

    private static func collect(
        _ folder: MockFolder, segments: [String], root: String, host: String?, into definitions: inout [RouteSpec]
    ) throws(HTTPMockError) {
        let isMethodName = knownMethods.contains(folder.name.uppercased())
        if folder.files.contains(MockConfiguration.fileName) {
            let configuration = folder.path + "/" + MockConfiguration.fileName
            guard isMethodName else {
                let methodFolders = folder.folders.map(\.name).filter { knownMethods.contains($0.uppercased()) }
                if !methodFolders.isEmpty {
                    throw HTTPMockError(
                        .mockTree,
                        "loadMocks: \(configuration) is next to the method folder\(methodFolders.count == 1 ? "" : "s") \(methodFolders.map { $0 + "/" }.joined(separator: ", ")): a configuration.json belongs in a method folder, such as \(folder.path)/\(methodFolders[0])/"
                    )
                }
                throw HTTPMockError(
                    .mockTree,
                    "loadMocks: \(configuration): the folder holding a configuration.json names the HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, TRACE, CONNECT, any case), not \"\(folder.name)\""
                )
            }
            if let nested = firstConfiguration(below: folder) {
                throw HTTPMockError(
                    .mockTree,
                    "loadMocks: \(nested) is inside the method folder \(folder.path) (it holds a configuration.json), where it would be ignored: folders in a method folder hold response files, not routes. Move it out of \(folder.path), or rename \(folder.path)/configuration.json if that folder is a path segment."
                )
            }
            definitions += try routeDefinitions(
                from: configuration, method: HTTPMethod(folder.name), segments: segments, root: root, host: host)
        } else if isMethodName, folder.folders.isEmpty {
            throw HTTPMockError(.mockTree, "loadMocks: the method folder \(folder.path) has no configuration.json")
        } else {
            for child in folder.folders {
                try collect(child, segments: segments + [folder.name], root: root, host: host, into: &definitions)
            }
        }
    }

    /// The path of a `configuration.json` anywhere below `folder`, if there is one.
    private static func firstConfiguration(below folder: MockFolder) -> String? {
        for child in folder.folders {
            if child.files.contains(MockConfiguration.fileName) { return child.path + "/" + MockConfiguration.fileName }
            if let nested = firstConfiguration(below: child) { return nested }
        }
        return nil
    }

    /// One route per scenario condition: entries that name different `required_state` values
    /// (or scenarios) become separate routes, in the order they first appear.
    private static func routeDefinitions(
        from configuration: String, method: HTTPMethod, segments: [String], root: String, host: String?
    ) throws(HTTPMockError) -> [RouteSpec] {
        // Reading a FIFO would block for ever; anything but a regular file is a mistake.
        var fileStatus = stat()
        guard stat(configuration, &fileStatus) == 0, (fileStatus.st_mode & S_IFMT) == S_IFREG else {
            throw HTTPMockError(.mockTree, "loadMocks: \(configuration) is not a regular file (a dangling link, a FIFO or a device)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: configuration))
        } catch {
            throw HTTPMockError(.mockTree, "loadMocks: cannot read \(configuration): \(error.localizedDescription)")
        }
        var entries = try MockConfiguration(data, file: configuration).entries
        let folder = URL(fileURLWithPath: configuration).deletingLastPathComponent()
        // Espresso-Martini's queue rule: the n-th request gets response min(n, count), so the
        // last entry of each route (one per scenario condition) repeats unless it names a lifetime.
        var lastOfRoute: [ScenarioState?: Int] = [:]
        for (index, entry) in entries.enumerated() {
            lastOfRoute[entry.scenario.flatMap { scenario in entry.requiredState.map { ScenarioState(scenario, $0) } }] = index
        }
        for index in lastOfRoute.values where !entries[index].namesLifetime {
            entries[index].lifetime = .eternal
        }
        var groups: [(condition: ScenarioState?, responses: [MockResponse])] = []
        for (index, entry) in entries.enumerated() {
            let place = entries.count > 1 ? "\(configuration), entry [\(index)]" : configuration
            var served = try response(from: entry, place: place, folder: folder, configuration: configuration)
            if let scenario = entry.scenario, let newState = entry.newState {
                served = served.transitioning(scenario, to: newState)
            }
            let condition = entry.scenario.flatMap { scenario in entry.requiredState.map { ScenarioState(scenario, $0) } }
            if let group = groups.firstIndex(where: { $0.condition == condition }) {
                groups[group].responses.append(served)
            } else {
                groups.append((condition, [served]))
            }
        }
        let relative = String(configuration.dropFirst(root.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        return groups.map { group in
            RouteSpec(
                path: RoutePath.join(segments), host: host ?? "**", method: method, query: nil, matching: .exact,
                headers: nil, body: nil, predicate: nil, scenario: group.condition, responses: group.responses,
                location: SourceLocation(fileID: relative, filePath: configuration, line: 1, column: 1))
        }
    }

    private static func response(
        from entry: MockConfiguration.Entry, place: String, folder: URL, configuration: String
    ) throws(HTTPMockError) -> MockResponse {
        var headers = HTTPHeaders()
        for (name, value) in entry.headers {
            headers[name] = value
        }
        let status = HTTPStatus(entry.status)
        let delivery = entry.delay > 0 ? Delivery.delayed(entry.delay) : .instant
        guard let name = entry.responseFile else {
            return .empty(status: status, headers: headers, lifetime: entry.lifetime, delivery: delivery)
        }
        let file = folder.appendingPathComponent(name).standardizedFileURL
        var fileStatus = stat()
        guard stat(file.path, &fileStatus) == 0 else {
            throw HTTPMockError(.mockTree, "loadMocks: \(place): response_file \"\(name)\" does not exist (looked for \(file.path))")
        }
        guard (fileStatus.st_mode & S_IFMT) == S_IFREG else {
            throw HTTPMockError(
                .mockTree,
                "loadMocks: \(place): response_file \"\(name)\" is not a regular file (\(file.path) is a folder, a FIFO or a device)")
        }
        if entry.isTemplate {
            // Read and checked now: a malformed template fails the whole load, with its position.
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw HTTPMockError(.mockTree, "loadMocks: \(place): cannot read the template \(file.path)")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw HTTPMockError(.mockTree, "loadMocks: \(place): the template \(file.path) is not UTF-8 text")
            }
            let contentType = headers["Content-Type"] ?? ContentType.forPathExtension(file.pathExtension)
            let template = MockResponse.template(
                text, contentType: contentType, status: status, headers: headers,
                lifetime: entry.lifetime, delivery: delivery)
            if case .invalid(let message, _) = template.payload {
                throw HTTPMockError(.mockTree, "loadMocks: \(place): response_file \"\(name)\": \(message)")
            }
            return template
        }
        return .file(
            url: file, status: status, headers: headers, lifetime: entry.lifetime, delivery: delivery,
            fileID: MockConfiguration.fileName, filePath: configuration, line: 1, column: 1)
    }
}

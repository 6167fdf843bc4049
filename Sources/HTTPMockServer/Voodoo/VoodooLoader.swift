#if Server
import Foundation
import HTTPMock
import Yams

/// Reads Voodoo's YAML endpoint files (SPEC §18) into routes: every file and include, all or
/// nothing, each mistake naming its file, line and key.
struct VoodooLoader {
    let mock: HTTPMock
    let templateDirectory: URL?
    let fileDirectories: [URL]
    let host: String?
    let scripts: VoodooScriptEngine?
    var routes: [PackageRoute] = []
    /// The files being read, outermost first, to tell an include cycle from a repeated include.
    private var reading: [String] = []
    /// The files already read: a file both included and below the `--config` folder registers once.
    private var loaded: Set<String> = []

    init(mock: HTTPMock, templateDirectory: URL?, fileDirectories: [URL], host: String?, scripts: VoodooScriptEngine?) {
        self.mock = mock
        self.templateDirectory = templateDirectory
        self.fileDirectories = fileDirectories
        self.host = host
        self.scripts = scripts
    }

    /// Reads a file, or every `*.yml`/`*.yaml` below a folder (hidden ones skipped, sorted).
    mutating func load(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw VoodooError.at(url.path, nil, "no such file or folder")
        }
        if isDirectory.boolValue {
            for file in try Self.yamlFiles(in: url) { try loadFile(file) }
        } else {
            try loadFile(url)
        }
    }

    static func yamlFiles(in folder: URL) throws -> [URL] {
        guard
            let enumerator = FileManager.default.enumerator(
                at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { throw VoodooError.at(folder.path, nil, "the folder cannot be read") }
        var files: [URL] = []
        for case let file as URL in enumerator where ["yml", "yaml"].contains(file.pathExtension.lowercased()) {
            files.append(file.standardizedFileURL)
        }
        return files.sorted { $0.path < $1.path }
    }

    private mutating func loadFile(_ url: URL) throws {
        let path = url.standardizedFileURL.path
        if let start = reading.firstIndex(of: path) {
            let cycle = (reading[start...] + [path]).map { ($0 as NSString).lastPathComponent }
            throw VoodooError.at(path, nil, "an include cycle: \(cycle.joined(separator: " → "))")
        }
        guard loaded.insert(path).inserted else { return }
        reading.append(path)
        defer { reading.removeLast() }
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw VoodooError.at(path, nil, "cannot be read: \(error.localizedDescription)")
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw VoodooError.at(path, nil, "is not valid YAML: \(Self.describe(error))")
        }
        guard let root else { return }
        if let items = root.sequence {
            for item in items { try loadItem(item, file: url) }
        } else {
            try loadItem(root, file: url)
        }
    }

    private mutating func loadItem(_ node: Node, file: URL) throws {
        if let scalar = node.scalar {
            // An include: a YAML file or folder, relative to this file.
            let target = URL(fileURLWithPath: scalar.string, relativeTo: file.deletingLastPathComponent()).standardizedFileURL
            guard FileManager.default.fileExists(atPath: target.path) else {
                throw VoodooError.at(
                    file.path, node.mark?.line, "the included file \(scalar.string) does not exist (looked for \(target.path))")
            }
            try load(target)
            return
        }
        guard node.mapping != nil else {
            throw VoodooError.at(
                file.path, node.mark?.line, "an endpoint must be a mapping with http: or graphQL:, or a file name to include")
        }
        routes.append(contentsOf: try endpoint(node, file: file))
    }

    /// Yams' message with the line and column it names.
    static func describe(_ error: YamlError) -> String {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let around = context.map { " (\($0.text))" } ?? ""
            return "line \(mark.line), column \(mark.column): \(problem)\(around)"
        default:
            return "\(error)"
        }
    }
}

/// A mistake in a Voodoo file: its path, line and what was wrong.
enum VoodooError {
    static func at(_ file: String, _ line: Int?, _ message: String) -> HTTPMockError {
        HTTPMockError(.mockTree, "loadVoodoo: \(file)\(line.map { ":\($0)" } ?? ""): \(message)")
    }
}
#endif

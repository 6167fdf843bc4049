#if Server
import Foundation
import HTTPMock
import Yams

/// Reads Voodoo's YAML endpoint files into routes: every file and include, all or
/// nothing, each mistake naming its file, line and key. A script that does not compile is not a
/// mistake of the YAML: its endpoint answers 500 and the load goes on (``warnings``).
struct VoodooLoader {
    let mock: HTTPMock
    let templates: VoodooTemplates?
    let fileDirectories: [URL]
    let host: String?
    let scripts: VoodooScriptEngine?
    var routes: [RouteSpec] = []
    /// Scripts that do not load: each endpoint answers 500 with its message.
    var warnings: [String] = []
    /// The folder includes must stay in: the `--config` folder, or the folder of the `--config` file.
    private var root: URL?
    /// The files being read, outermost first, to tell an include cycle from a repeated include.
    private var reading: [String] = []
    /// The files already read: a file both included and below the `--config` folder registers once.
    private var loaded: Set<String> = []
    /// The `graphQL:` endpoints' parser, shared so a request's document is parsed once.
    let graphQL = VoodooGraphQLParser()

    init(mock: HTTPMock, templateDirectory: URL?, fileDirectories: [URL], host: String?, scripts: VoodooScriptEngine?) {
        self.mock = mock
        self.templates = templateDirectory.map(VoodooTemplates.init(directory:))
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
        if root == nil {
            root = (isDirectory.boolValue ? url : url.deletingLastPathComponent()).resolvingSymlinksInPath()
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
        for case let file as URL in enumerator where isYAML(file) {
            files.append(file.standardizedFileURL)
        }
        return files.sorted { $0.path < $1.path }
    }

    static func isYAML(_ url: URL) -> Bool { ["yml", "yaml"].contains(url.pathExtension.lowercased()) }

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
        try VoodooYAMLLimits.checkNesting(text, file: path)
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw VoodooError.at(path, nil, "is not valid YAML: \(Self.describe(error))")
        }
        guard let root else { return }
        try VoodooYAMLLimits.checkAliases(root, text: text, file: path)
        if let items = root.sequence {
            for item in items { try loadItem(item, file: url) }
        } else {
            try loadItem(root, file: url)
        }
    }

    private mutating func loadItem(_ node: Node, file: URL) throws {
        if let scalar = node.scalar {
            try include(scalar.string, line: node.mark?.line, from: file)
            return
        }
        guard node.mapping != nil else {
            throw VoodooError.at(
                file.path, node.mark?.line, "an endpoint must be a mapping with http: or graphQL:, or a file name to include")
        }
        routes.append(contentsOf: try endpoint(node, file: file))
    }

    /// An include: a YAML file or folder, relative to `file`, inside the configuration's folder.
    /// Nothing outside that folder is read, and nothing but a YAML file's name is quoted.
    private mutating func include(_ name: String, line: Int?, from file: URL) throws {
        let shown = VoodooError.quoted(name)
        let target = URL(fileURLWithPath: name, relativeTo: file.deletingLastPathComponent()).standardizedFileURL
        if let root, !ConfinedPath.isInside(target, root) {
            throw VoodooError.at(
                file.path, line, "the include \(shown) is outside the configuration folder \(root.path): includes stay inside it")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: target.path, isDirectory: &isDirectory) else {
            throw VoodooError.at(
                file.path, line, "the included file \(shown) does not exist (looked in \(file.deletingLastPathComponent().path))")
        }
        guard isDirectory.boolValue || Self.isYAML(target) else {
            throw VoodooError.at(file.path, line, "the include \(shown) is not a YAML file (.yml or .yaml) or a folder of them")
        }
        try load(target)
    }

    /// Yams' message with the line and column it names.
    static func describe(_ error: YamlError) -> String {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let around = context.map { " (\($0.text))" } ?? ""
            return "line \(mark.line), column \(mark.column): \(problem)\(around)"
        case .reader(let problem, let offset, _, _):
            return problem + (offset.map { " at byte \($0)" } ?? "")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return "line \(context.mark.line): the keys \(duplicates.sorted().joined(separator: ", ")) appear twice in one mapping"
        default:
            return "\(type(of: error)) error"
        }
    }
}

extension Node {
    /// The value of `key`; `nil` when the key is absent or null (`~`): Voodoo reads a null
    /// optional key as an absent one.
    subscript(present key: String) -> Node? {
        guard let value = self[key], value.null == nil else { return nil }
        return value
    }
}

/// A mistake in a Voodoo file: its path, line and what was wrong.
enum VoodooError {
    static func at(_ file: String, _ line: Int?, _ message: String) -> HTTPMockError {
        HTTPMockError(.mockTree, "loadVoodoo: \(file)\(line.map { ":\($0)" } ?? ""): \(message)")
    }

    /// A name from a file, quoted for a message: one line, at most 120 characters (a scalar that
    /// is a whole file's text is never repeated).
    static func quoted(_ text: String) -> String {
        let line = text.prefix { $0 != "\n" && $0 != "\r" }
        let cut = line.count > 120 || line.count < text.count
        return "\"" + line.prefix(120) + (cut ? "…" : "") + "\""
    }
}
#endif

#if Server
import Foundation
import HTTPMock

/// Voodoo's `--template-dir`: a template's name is its path inside the folder, without its
/// extension (`.json` when the name has none). Nothing outside the folder is ever read: a name
/// that leads out of it (`../../etc/hostname`, an absolute path, a symbolic link out) is refused.
/// Templates are parsed once and kept.
final class VoodooTemplates: Sendable {
    let directory: URL
    private let parsed = NSLockedDictionary<String, PackageTemplate>()

    /// Why a template cannot be used.
    struct Problem: Error, CustomStringConvertible {
        let description: String
        /// No such template (as opposed to one refused or unreadable).
        var isMissing = false
    }

    init(directory: URL) {
        self.directory = directory.standardizedFileURL.resolvingSymlinksInPath()
    }

    /// The template `name`, parsed.
    func template(_ name: String) throws(Problem) -> PackageTemplate {
        if let template = parsed[name] { return template }
        let source = try source(name)
        let template: PackageTemplate
        do {
            template = try PackageTemplate(source, partials: partials)
        } catch {
            throw Problem(
                description:
                    "the template \(VoodooError.quoted(name)) is not a valid template: \((error as? HTTPMockError)?.message ?? "\(error)")")
        }
        parsed[name] = template
        return template
    }

    /// Finds `{{> name}}`: a template of the folder by the same naming rule, `nil` when there is
    /// none; a name that leads out of the folder is refused (the error names it).
    var partials: (String) throws -> String? {
        { [self] name in
            do {
                return try source(name)
            } catch let problem as Problem where problem.isMissing {
                return nil
            }
        }
    }

    /// The text of the template `name`, read from inside the template folder only.
    func source(_ name: String) throws(Problem) -> String {
        let shown = VoodooError.quoted(name)
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\0") else {
            throw Problem(description: "the template name \(shown) is not a path inside the template folder \(directory.path)")
        }
        let base = directory.appendingPathComponent(name).standardizedFileURL
        for url in [base, base.appendingPathExtension("json")] {
            let resolved = url.resolvingSymlinksInPath()
            guard ConfinedPath.isInside(resolved, directory) else {
                throw Problem(
                    description: "the template \(shown) is outside the template folder \(directory.path): templates stay inside it")
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: resolved.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                guard let text = try? String(contentsOf: resolved, encoding: .utf8) else {
                    throw Problem(description: "the template \(shown) (\(resolved.path)) cannot be read as UTF-8 text")
                }
                return text
            }
        }
        throw Problem(
            description: "the template \(shown) is not in \(directory.path) (looked for \(name) and \(name).json)", isMissing: true)
    }
}

/// A dictionary behind a lock.
final class NSLockedDictionary<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    // @unchecked: `storage` is read and written only under `lock`.
    private let lock = NSLock()
    private var storage: [Key: Value] = [:]

    subscript(key: Key) -> Value? {
        get { lock.withLock { storage[key] } }
        set { lock.withLock { storage[key] = newValue } }
    }
}
#endif

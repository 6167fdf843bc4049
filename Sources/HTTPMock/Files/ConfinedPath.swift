import Foundation

/// Keeping a name a request or a file gave inside a folder: one implementation for every place
/// that serves or reads files by a name it did not choose (static files, WireMock's `__files`
/// and its partials, Voodoo's templates and includes). Security code: change it here only.
///
/// A name is taken segment by segment; a segment that is empty, `.`, `..`, or holds `/`, `\` or
/// NUL is refused before the file system is asked. What remains must lie inside the folder once
/// symbolic links are resolved, the folder's own links included.
package enum ConfinedPath {
    /// Whether `segment` names one entry of a folder and nothing else.
    static func isPlainSegment(_ segment: some StringProtocol) -> Bool {
        !(segment.isEmpty || segment == "." || segment == ".." || segment.contains("/") || segment.contains("\\")
            || segment.contains("\0"))
    }

    /// Whether `path` is `root` or lies below it; both are real paths (links resolved).
    package static func isInside(path: String, root: String) -> Bool {
        let base = root.hasSuffix("/") ? String(root.dropLast()) : root
        return path == base || path.hasPrefix(base + "/")
    }

    /// Whether `url` is `folder` or lies below it, symbolic links of both resolved.
    package static func isInside(_ url: URL, _ folder: URL) -> Bool {
        isInside(path: real(url).path, root: real(folder).path)
    }

    /// `url`, standardized, with its symbolic links resolved.
    static func real(_ url: URL) -> URL {
        url.standardizedFileURL.resolvingSymlinksInPath().standardizedFileURL
    }

    /// Why a name was refused.
    package enum Refusal: Error, Sendable, Equatable {
        /// A segment is empty, `.`, `..`, or holds a separator or NUL.
        case segment
        /// The name leads outside the folder through a symbolic link.
        case leadsOutside
    }

    /// The file `segments` name under `folder` (which need not exist yet), or why not: the
    /// deepest part of it that exists must resolve inside the folder, so a link inside cannot
    /// point out.
    package static func file(_ segments: [String], in folder: URL) -> Result<URL, Refusal> {
        guard segments.allSatisfy(isPlainSegment) else { return .failure(.segment) }
        let base = real(folder)
        var file = base
        for segment in segments { file.appendPathComponent(segment) }
        var existing = file
        while !FileManager.default.fileExists(atPath: existing.path), existing.path.count > base.path.count {
            existing.deleteLastPathComponent()
        }
        guard isInside(path: real(existing).path, root: base.path) else { return .failure(.leadsOutside) }
        return .success(file)
    }

    /// ``file(_:in:)`` for a relative name written with `/` (`partials/header.hbs`); an absolute
    /// name is refused.
    package static func file(named name: String, in folder: URL) -> Result<URL, Refusal> {
        guard !name.isEmpty, !name.hasPrefix("/") else { return .failure(.segment) }
        return file(name.split(separator: "/").map(String.init), in: folder)
    }
}

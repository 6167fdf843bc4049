import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The directories served by `serveFiles(from:at:)`: maps a request path below the route's
/// prefix to a file inside one of them (the first that has it), at request time, and never to
/// anything outside them.
struct StaticFileRoot: Sendable {
    /// The directories with every symbolic link resolved, no trailing `/` (`""` for `/`).
    let roots: [String]
    /// How many path segments the route's prefix has.
    let prefixCount: Int

    /// The real path of `path` (every link resolved), or `nil` if it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The directories of `directories`, checked (each an existing, readable folder; at least
    /// one), with every link resolved. `caller` starts the messages (`serveFiles`).
    static func roots(of directories: [URL], caller: String) throws(HTTPMockError) -> [String] {
        guard !directories.isEmpty else {
            throw HTTPMockError(.invalidRegistration, "\(caller): no directory was given")
        }
        var roots: [String] = []
        for directory in directories {
            guard directory.isFileURL else {
                throw HTTPMockError(.invalidRegistration, "\(caller): \(directory.absoluteString) is not a file URL")
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue,
                let root = realPath(directory.path)
            else {
                throw HTTPMockError(.invalidRegistration, "\(caller): \(directory.path) is not a directory")
            }
            guard FileManager.default.isReadableFile(atPath: root) else {
                throw HTTPMockError(.invalidRegistration, "\(caller): \(directory.path) is not readable")
            }
            roots.append(root == "/" ? "" : root)
        }
        return roots
    }

    /// The file for `request`, or a 4xx saying why there is none.
    func response(for request: MockRequest) -> MockResponse {
        existingFile(for: request) ?? notFound(request.url.path(percentEncoded: true))
    }

    /// The file for `request`, a 4xx for a path that is malformed or leaves the directories, or
    /// `nil` when no directory holds the file.
    func existingFile(for request: MockRequest) -> MockResponse? {
        // Split the raw path before decoding, so an encoded `/` (`%2F`) cannot form a segment.
        let raw = request.url.path(percentEncoded: true)
        let segments = raw.split(separator: "/").map(String.init).dropFirst(prefixCount)
        var names: [String] = []
        for segment in segments {
            guard let name = segment.removingPercentEncoding else {
                return .plaintext("Malformed percent-encoding in \(raw)", status: .badRequest)
            }
            guard ConfinedPath.isPlainSegment(name) else {
                return .plaintext("Refused: \(raw) leaves the served directory", status: .forbidden)
            }
            names.append(name)
        }
        guard !names.isEmpty else { return nil }
        for root in roots {
            let candidate = root + "/" + names.joined(separator: "/")
            guard let resolved = Self.realPath(candidate) else { continue }
            guard ConfinedPath.isInside(path: resolved, root: root), resolved != root else {
                return .plaintext("Refused: \(raw) leads outside the served directory", status: .forbidden)
            }
            var fileStatus = stat()
            guard stat(resolved, &fileStatus) == 0, (fileStatus.st_mode & S_IFMT) == S_IFREG,
                access(resolved, R_OK) == 0
            else { continue }
            let pathExtension = (names[names.count - 1] as NSString).pathExtension
            return .file(url: URL(fileURLWithPath: resolved), headers: ["Content-Type": ContentType.forPathExtension(pathExtension)])
        }
        return nil
    }

    private func notFound(_ path: String) -> MockResponse {
        .plaintext("No file for \(path)", status: .notFound)
    }
}

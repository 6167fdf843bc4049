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

    /// The file for `request`, or a 4xx saying why there is none.
    func response(for request: MockRequest) -> MockResponse {
        // Split the raw path before decoding, so an encoded `/` (`%2F`) cannot form a segment.
        let raw = request.url.path(percentEncoded: true)
        let segments = raw.split(separator: "/").map(String.init).dropFirst(prefixCount)
        var names: [String] = []
        for segment in segments {
            guard let name = segment.removingPercentEncoding else {
                return .plaintext("Malformed percent-encoding in \(raw)", status: .badRequest)
            }
            if name == ".." || name == "." || name.contains("/") || name.contains("\\") || name.contains("\0") {
                return .plaintext("Refused: \(raw) leaves the served directory", status: .forbidden)
            }
            names.append(name)
        }
        guard !names.isEmpty else { return notFound(raw) }
        for root in roots {
            let candidate = root + "/" + names.joined(separator: "/")
            guard let resolved = Self.realPath(candidate) else { continue }
            guard resolved.hasPrefix(root + "/") else {
                return .plaintext("Refused: \(raw) leads outside the served directory", status: .forbidden)
            }
            var fileStatus = stat()
            guard stat(resolved, &fileStatus) == 0, (fileStatus.st_mode & S_IFMT) == S_IFREG,
                access(resolved, R_OK) == 0
            else { continue }
            let pathExtension = (names[names.count - 1] as NSString).pathExtension
            return .file(url: URL(fileURLWithPath: resolved), headers: ["Content-Type": ContentType.forPathExtension(pathExtension)])
        }
        return notFound(raw)
    }

    private func notFound(_ path: String) -> MockResponse {
        .plaintext("No file for \(path)", status: .notFound)
    }
}

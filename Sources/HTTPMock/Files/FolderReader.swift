import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder of a mock tree as read from disk: its name, its path (as given, symbolic links not
/// resolved, so messages name what the user sees), the names of everything in it that is not a
/// folder, and its subfolders — both sorted by name, hidden entries (`.name`) left out.
struct MockFolder: Sendable {
    var name: String
    var path: String
    var files: [String]
    var folders: [MockFolder]
}

/// Reads a folder tree into ``MockFolder``s, following symbolic links to folders.
///
/// Every real folder (device and inode) is read at most once, so reading ends and takes time
/// linear in the number of folders whatever the links do: a link that leads back into a folder
/// containing it (a loop) and a second way into a folder already read are skipped, each with a
/// warning naming the link and its target (a checkout or a home folder holds such
/// links, and one of them is no reason to refuse the rest). Without this, one loop repeats the
/// subtree until the path is too long for the system (40 repetitions), and two loops double the
/// work at every level — reading never ends.
///
/// Folder names must be UTF-8 (they become path segments and methods); a folder whose name is
/// not is an error showing its bytes. Files with such names are ignored like any file no
/// `configuration.json` names (a JSON string cannot name them).
enum FolderReader {
    /// The tree under `path`, and a warning for each link it skipped (a loop, a second way into
    /// a folder), in reading order.
    /// - Throws: ``HTTPMockError`` (`.mockTree`) naming the folder at fault.
    static func read(root path: String) throws(HTTPMockError) -> (tree: MockFolder, skipped: [SkippedLink]) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw HTTPMockError(.mockTree, "loadMocks: there is no folder at \(path)")
        }
        guard isFolder(status) else {
            throw HTTPMockError(.mockTree, "loadMocks: \(path) is a file, not a folder of mocks")
        }
        var reader = Reader()
        let identity = Identity(status)
        reader.readAt[identity] = path
        let tree = try reader.read(path, name: (path as NSString).lastPathComponent, ancestors: [identity])
        return (tree, reader.skipped)
    }

    /// A link to a folder that was not followed, and why.
    struct SkippedLink: Sendable, Equatable {
        /// The link's path, as the tree names it.
        let path: String
        let message: String
    }

    /// A folder's identity on disk, the same through every link that reaches it.
    private struct Identity: Hashable {
        let device: UInt64
        let inode: UInt64

        init(_ status: stat) {
            device = UInt64(truncatingIfNeeded: status.st_dev)
            inode = UInt64(truncatingIfNeeded: status.st_ino)
        }
    }

    private struct Reader {
        /// Where each folder read so far was read.
        var readAt: [Identity: String] = [:]
        var skipped: [SkippedLink] = []

        mutating func read(_ path: String, name: String, ancestors: Set<Identity>) throws(HTTPMockError) -> MockFolder {
            var files: [String] = []
            var folders: [(name: String, path: String, identity: Identity)] = []
            for entry in try FolderReader.entries(of: path) {
                let childPath = Array(path.utf8) + [UInt8(ascii: "/")] + entry
                let status = FolderReader.status(of: childPath)
                guard let name = String(validating: entry, as: UTF8.self) else {
                    if let status, FolderReader.isFolder(status) {
                        throw HTTPMockError(
                            .mockTree,
                            "loadMocks: \(path)/\(FolderReader.escaped(entry)) is a folder whose name is not UTF-8 (bytes shown as \\xHH); folder names become path segments and methods, so rename it"
                        )
                    }
                    continue
                }
                // A dangling link is not a folder; like any file nothing names, it is ignored.
                if let status, FolderReader.isFolder(status) {
                    folders.append((name, path + "/" + name, Identity(status)))
                } else {
                    files.append(name)
                }
            }
            var children: [MockFolder] = []
            for folder in folders.sorted(by: { $0.name < $1.name }) {
                if ancestors.contains(folder.identity) {
                    skipped.append(
                        SkippedLink(
                            path: folder.path,
                            message:
                                "loadMocks: \(FolderReader.linkDescription(folder.path)) \(readAt[folder.identity] ?? "?"), a folder that contains it: a loop, so it is skipped (followed, the tree would never end). Remove the link or point it outside the tree."
                        ))
                    continue
                }
                if let earlier = readAt[folder.identity] {
                    skipped.append(
                        SkippedLink(
                            path: folder.path,
                            message:
                                "loadMocks: \(FolderReader.linkDescription(folder.path)) \(earlier), a folder already read there, so it is skipped: every folder of a tree is read once (two ways into one folder would register its mocks twice, and links can multiply the ways without end). Copy the folder, or link its files instead."
                        ))
                    continue
                }
                readAt[folder.identity] = folder.path
                children.append(try read(folder.path, name: folder.name, ancestors: ancestors.union([folder.identity])))
            }
            return MockFolder(name: name, path: path, files: files.sorted(), folders: children)
        }
    }

    /// The raw names in a folder, without `.`, `..` and hidden entries.
    private static func entries(of path: String) throws(HTTPMockError) -> [[UInt8]] {
        guard let directory = opendir(path) else {
            let reason = String(cString: strerror(errno))
            throw HTTPMockError(.mockTree, "loadMocks: cannot read the folder \(path): \(reason)")
        }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            var raw = entry.pointee.d_name
            let name = withUnsafeBytes(of: &raw) { Array($0.prefix(while: { $0 != 0 })) }
            if name.first == UInt8(ascii: ".") { continue }
            names.append(name)
        }
        return names
    }

    /// "`path` is a symbolic link to "`target`", that is" or "`path` is", to start a message
    /// that ends with the real folder's path.
    private static func linkDescription(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return "\(path) (a mount of another folder) is" }
        let target = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(path) is a symbolic link to \"\(target)\", that is"
    }

    private static func isFolder(_ status: stat) -> Bool {
        (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// `stat` (following links) of a path given as bytes, which need not be UTF-8; `nil` when
    /// there is nothing there (a dangling link) or it cannot be examined.
    private static func status(of path: [UInt8]) -> stat? {
        let cString = (path + [0]).map { CChar(bitPattern: $0) }
        var status = stat()
        return stat(cString, &status) == 0 ? status : nil
    }

    /// Printable ASCII as is, every other byte as `\xHH`.
    static func escaped(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            (0x20..<0x7F).contains(byte) && byte != UInt8(ascii: "\\")
                ? String(UnicodeScalar(byte)) : String(format: "\\x%02X", byte)
        }.joined()
    }
}

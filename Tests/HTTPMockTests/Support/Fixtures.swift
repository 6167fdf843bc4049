import Foundation

/// Test fixtures: the package's bundled `Fixtures/` folder and scratch files.
enum Fixtures {
    static func url(_ name: String) -> URL {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures") else {
            preconditionFailure("missing fixture \(name)")
        }
        return url
    }

    /// A fresh scratch directory, removed by the caller.
    static func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpmock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Writes `count` bytes to a new file in `directory`: 1 KiB blocks that each start with
    /// their own index, so a reordered or repeated chunk is detected.
    static func patternFile(bytes count: Int, in directory: URL, name: String = "pattern.bin") throws -> (URL, Data) {
        var block = Data((0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var data = Data(capacity: count)
        var index: UInt32 = 0
        while data.count < count {
            withUnsafeBytes(of: index.littleEndian) { block.replaceSubrange(0..<4, with: $0) }
            data.append(block.prefix(count - data.count))
            index += 1
        }
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return (url, data)
    }

    /// A sparse file of `size` zero bytes: large to read, no disk space or memory used to make it.
    static func sparseFile(bytes size: Int, in directory: URL, name: String = "sparse.bin") throws -> URL {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(size))
        return url
    }
}

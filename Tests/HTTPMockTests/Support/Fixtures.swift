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
}

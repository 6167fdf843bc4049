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

    /// Writes `count` bytes of a repeating pattern to a new file in `directory`.
    static func patternFile(bytes count: Int, in directory: URL, name: String = "pattern.bin") throws -> (URL, Data) {
        let data = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 251) })
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return (url, data)
    }
}

import Foundation
import Testing

@testable import HTTPMock

/// The one path-confinement helper every file-serving front end uses (issue 45.4).
@Suite("Names stay inside their folder")
struct ConfinedPathTests {
    @Test("separators, dot segments, NUL, absolute names and links that point out are refused; the rest resolve under the real folder")
    func confinement() throws {
        let top = FileManager.default.temporaryDirectory.appendingPathComponent("confined-\(UUID().uuidString)")
        let folder = top.appendingPathComponent("files")
        let outside = top.appendingPathComponent("secret")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: top) }
        try Data("x".utf8).write(to: folder.appendingPathComponent("sub/a.txt"))
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("out"), withDestinationURL: outside)
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("in"), withDestinationURL: folder.appendingPathComponent("sub"))
        let real = ConfinedPath.real(folder)

        #expect(try ConfinedPath.file(["sub", "a.txt"], in: folder).get() == real.appendingPathComponent("sub/a.txt"))
        #expect(try ConfinedPath.file(["sub", "not-yet.txt"], in: folder).get() == real.appendingPathComponent("sub/not-yet.txt"))
        #expect(try ConfinedPath.file(named: "in/a.txt", in: folder).get() == real.appendingPathComponent("in/a.txt"))
        for segments in [[".."], ["sub", ".."], ["."], [""], ["a/b"], ["a\\b"], ["a\0b"]] {
            #expect(ConfinedPath.file(segments, in: folder) == .failure(.segment), "\(segments)")
        }
        for name in ["/etc/passwd", "", "../secret", "sub/../../secret"] {
            #expect(ConfinedPath.file(named: name, in: folder) == .failure(.segment), "\(name)")
        }
        #expect(ConfinedPath.file(["out", "anything"], in: folder) == .failure(.leadsOutside))
        #expect(ConfinedPath.file(named: "out", in: folder) == .failure(.leadsOutside))

        #expect(ConfinedPath.isInside(folder.appendingPathComponent("sub/a.txt"), folder))
        #expect(ConfinedPath.isInside(folder, folder))
        #expect(!ConfinedPath.isInside(folder.appendingPathComponent("out"), folder))
        // A sibling whose name starts with the folder's is not inside it.
        #expect(!ConfinedPath.isInside(path: "/srv/files-old/a", root: "/srv/files"))
        #expect(ConfinedPath.isInside(path: "/srv/files/a", root: "/srv/files/"))
    }
}

#if Server
import Foundation
import HTTPMock

// `/__admin/files…`: the body files under `__files/` of the WireMock root. A name never leaves
// that folder: `..`, `.` and empty segments are refused (decoded or not), and so is a path
// whose real location (symbolic links resolved) is outside it.

extension AdminAPI {
    func files(method: String, _ path: [String], body: Data?) -> ServedAnswer {
        guard let root = state.root else {
            if method == "GET", path.isEmpty { return Self.json(200, [], method: method) }
            return Self.invalid(
                WireMockMappingError(
                    pointer: "", message: "the files API needs a WireMock root folder: httpmock serve --wiremock-root DIR"),
                method: method)
        }
        let folder = root.appendingPathComponent("__files", isDirectory: true)
        if path.isEmpty {
            guard method == "GET" else { return unknown(method, ["files"]) }
            return Self.json(200, .array(Self.fileNames(in: folder).map(JSONValue.string)), method: method)
        }
        let file: URL
        switch Self.file(path, in: folder) {
        case .success(let found): file = found
        case .failure(let refusal): return Self.error(403, refusal.message, method: method)
        }
        let name = path.joined(separator: "/")
        switch method {
        case "GET":
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: file.path)
            else {
                return Self.notFound("no file \(name) in __files", method: method)
            }
            return Self.direct(200, contentType: Self.contentType(of: file), data, method: method)
        case "PUT":
            do {
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try (body ?? Data()).write(to: file, options: .atomic)
            } catch {
                return Self.error(500, "cannot write \(name) in __files: \(error.localizedDescription)", method: method)
            }
            return Self.direct(200, contentType: Self.contentType(of: file), body ?? Data(), method: method)
        case "DELETE":
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                do {
                    try FileManager.default.removeItem(at: file)
                } catch {
                    return Self.error(500, "cannot delete \(name) in __files: \(error.localizedDescription)", method: method)
                }
            }
            return Self.empty(method: method)
        default:
            return unknown(method, ["files"] + path)
        }
    }

    struct FileRefusal: Error {
        let message: String
    }

    /// `segments` (each already percent-decoded) under `folder`, or why not.
    static func file(_ segments: [String], in folder: URL) -> Result<URL, FileRefusal> {
        ConfinedPath.file(segments, in: folder).mapError { refusal in
            let name = segments.joined(separator: "/")
            switch refusal {
            case .segment: return FileRefusal(message: "file names stay inside __files: \"\(name)\" is refused")
            case .leadsOutside: return FileRefusal(message: "\"\(name)\" leads outside __files (a symbolic link); refused")
            }
        }
    }

    /// Every file under `folder`, as paths relative to it, sorted.
    static func fileNames(in folder: URL) -> [String] {
        let base = folder.resolvingSymlinksInPath().standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(atPath: base) else { return [] }
        var names: [String] = []
        while let name = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: base + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
                names.append(name)
            }
        }
        return names.sorted()
    }

    static func contentType(of file: URL) -> String {
        switch file.pathExtension.lowercased() {
        case "json": "application/json"
        case "txt": "text/plain; charset=utf-8"
        case "html", "htm": "text/html; charset=utf-8"
        case "xml": "application/xml"
        default: "application/octet-stream"
        }
    }
}
#endif

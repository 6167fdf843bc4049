#if Server
import ArgumentParser
import Foundation
import HTTPMock

/// What `serve` and `routes` both load: the mocks folder, HAR archives and static
/// file directories. Another source (`--config`, `--wiremock-root`) is an `@OptionGroup` of its
/// own beside this one. Nothing is read that is not named: without a source, `serve`
/// serves an empty instance (for the admin API) from any folder, the checkout included.
struct SourceOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "The mocks folder (Espresso-Martini layout, see Docs/HTTPMock.docc/MockFiles.md), e.g. ./mocks.",
            discussion:
                "Without one, no folder is read (not even the current one): serve starts empty, for stubs added through the admin API.")
    )
    var folder: String?

    @Option(help: "The mocks folder, as Espresso-Martini names it (same as FOLDER).")
    var requestsFolder: String?

    @Option(help: "A HAR 1.2 archive to replay (repeatable): every entry a route, identical requests in recorded order.")
    var har: [String] = []

    @Option(
        name: [.customShort("f"), .long],
        help:
            "A directory of static files for GET and HEAD requests no route answers (repeatable; the first that holds the file answers)."
    )
    var fileDir: [String] = []

    func validate() throws {
        if let folder, let requestsFolder, folder != requestsFolder {
            throw ValidationError("Give the mocks folder once: FOLDER (\(folder)) and --requests-folder (\(requestsFolder)) differ.")
        }
    }

    /// The mocks folder: FOLDER, else `--requests-folder`, else `nil` (the current folder is
    /// never read unless named: `httpmock serve .`).
    func mocksFolder() throws -> URL? {
        guard let path = folder ?? requestsFolder else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("The mocks folder \(path) does not exist or is not a folder.")
        }
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Whether a source of this group is named (a mocks folder, `--har`, `--file-dir`).
    var namesASource: Bool { folder != nil || requestsFolder != nil || !har.isEmpty || !fileDir.isEmpty }

    /// Loads every source into `mock`, all or nothing per source; a `configuration.json` directly
    /// in the mocks folder is the CLI's settings file, never a route file.
    /// - Returns: Whether `--file-dir` answers a request (`nil` without `--file-dir`), for the log.
    func load(into mock: HTTPMock, mocksFolder folder: URL?) throws -> (@Sendable (MockRequest) -> Bool)? {
        func message(_ error: any Error) -> String { (error as? HTTPMockError)?.message ?? "\(error)" }
        if let folder {
            do {
                try mock.loadMocks(from: folder, rootHoldsSettings: true)
            } catch {
                throw ValidationError("Could not load the mocks in \(folder.path): \(message(error))")
            }
        }
        for path in har {
            do {
                try mock.loadHAR(from: URL(fileURLWithPath: path))
            } catch {
                throw ValidationError("Could not load the HAR archive \(path): \(message(error))")
            }
        }
        guard !fileDir.isEmpty else { return nil }
        do {
            // The policy for misses, not a route: routes always win, and a miss no file answers
            // keeps its near-miss report.
            return try mock.answerMissesWithFiles(from: fileDir.map { URL(fileURLWithPath: $0, isDirectory: true) })
        } catch {
            throw ValidationError("Could not serve the files of \(fileDir.joined(separator: ", ")): \(message(error))")
        }
    }
}
#endif

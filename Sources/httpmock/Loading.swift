#if Server
import ArgumentParser
import Foundation
import HTTPMock
import HTTPMockServer

/// Where the mocks are: the positional folder, else `--requests-folder`, else the current folder.
func mocksFolder(_ folder: String?, requestsFolder: String?) throws -> URL {
    if folder != nil, requestsFolder != nil, folder != requestsFolder {
        throw ValidationError("Give the mocks folder once: FOLDER (\(folder!)) and --requests-folder (\(requestsFolder!)) differ.")
    }
    let path = folder ?? requestsFolder ?? "."
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw ValidationError("The mocks folder \(path) does not exist or is not a folder.")
    }
    return URL(fileURLWithPath: path, isDirectory: true)
}

func loadedMock(from folder: URL?, har: [String] = [], fileDirectories: [String] = []) throws -> HTTPMock {
    let mock = HTTPMock()
    func message(_ error: any Error) -> String { (error as? HTTPMockError)?.message ?? "\(error)" }
    if let folder {
        do {
            try mock.loadMocks(from: folder)
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
    if !fileDirectories.isEmpty {
        do {
            // One call for every directory: the first that holds a file answers. Mock routes are
            // more specific than `/**` and win.
            try mock.serveFiles(from: fileDirectories.map { URL(fileURLWithPath: $0, isDirectory: true) }, at: "/", host: "**")
        } catch {
            throw ValidationError("Could not serve the files of \(fileDirectories.joined(separator: ", ")): \(message(error))")
        }
    }
    return mock
}
#endif

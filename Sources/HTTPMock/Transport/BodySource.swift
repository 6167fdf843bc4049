import Foundation

/// A response body, from memory or from a file read when the request is served.
struct BodySource {
    private enum Storage {
        case data(Data)
        case file(URL)
    }

    private let storage: Storage
    let size: Int

    init(_ body: MockResponse.Body) throws {
        switch body {
        case .none:
            storage = .data(Data())
            size = 0
        case .data(let data):
            storage = .data(data)
            size = data.count
        case .file(let url):
            do {
                let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
                size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            } catch {
                throw HTTPMockError(.fixtureUnreadable, "HTTPMock could not read the response file \(url.path): \(error)")
            }
            storage = .file(url)
        }
    }

    var isFile: Bool {
        if case .file = storage { return true }
        return false
    }

    /// The whole body; a file is memory-mapped, not copied.
    func wholeData() throws -> Data {
        switch storage {
        case .data(let data):
            return data
        case .file(let url):
            do {
                return try Data(contentsOf: url, options: .alwaysMapped)
            } catch {
                throw HTTPMockError(.fixtureUnreadable, "HTTPMock could not read the response file \(url.path): \(error)")
            }
        }
    }

    func reader() throws -> BodyReader {
        switch storage {
        case .data(let data):
            return BodyReader(data: data)
        case .file(let url):
            do {
                return BodyReader(file: try FileHandle(forReadingFrom: url), url: url)
            } catch {
                throw HTTPMockError(.fixtureUnreadable, "HTTPMock could not open the response file \(url.path): \(error)")
            }
        }
    }
}

/// Reads a body chunk by chunk; a file is read from disk as it goes.
struct BodyReader {
    private var data: Data?
    private var offset = 0
    let file: FileHandle?
    private let url: URL?

    init(data: Data) {
        self.data = data
        self.file = nil
        self.url = nil
    }

    init(file: FileHandle, url: URL) {
        self.data = nil
        self.file = file
        self.url = url
    }

    /// The next chunk of at most `count` bytes; empty at the end.
    mutating func next(_ count: Int) throws -> Data {
        if let data {
            let end = min(data.count, offset + count)
            defer { offset = end }
            return data.subdata(in: data.startIndex + offset..<data.startIndex + end)
        }
        guard let file else { return Data() }
        do {
            return try file.read(upToCount: count) ?? Data()
        } catch {
            throw HTTPMockError(.fixtureUnreadable, "HTTPMock could not read the response file \(url?.path ?? "?"): \(error)")
        }
    }
}

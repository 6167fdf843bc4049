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
        case .events:
            // Event streams are sent event by event by the exchange, never read through here.
            storage = .data(Data())
            size = 0
        case .file(let url):
            let attributes: [FileAttributeKey: Any]
            do {
                attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            } catch {
                throw HTTPMockError(.fixtureUnreadable, "HTTPMock could not read the response file \(url.path): \(error)")
            }
            let type = attributes[.type] as? FileAttributeType
            // A FIFO, socket or device has no size and may block a reader for ever (on the work
            // queue every session shares): refuse it with a precise error.
            guard type == .typeRegular else {
                throw HTTPMockError(
                    .fixtureUnreadable,
                    "HTTPMock serves only regular files as a response body; \(url.path) is \(Self.describe(type)). Read it into a .data body yourself if you mean it."
                )
            }
            let statSize = (attributes[.size] as? NSNumber)?.intValue ?? 0
            if statSize == 0 {
                // `/proc` and `/sys` files say 0 bytes and have content when read: read them to
                // the end (a really empty file costs one `read`).
                do {
                    let data = try Data(contentsOf: url)
                    storage = .data(data)
                    size = data.count
                } catch {
                    throw HTTPMockError(.fixtureUnreadable, "HTTPMock could not read the response file \(url.path): \(error)")
                }
            } else {
                storage = .file(url)
                size = statSize
            }
        }
    }

    private static func describe(_ type: FileAttributeType?) -> String {
        switch type {
        case .typeDirectory?: return "a directory"
        case .typeCharacterSpecial?: return "a character device"
        case .typeBlockSpecial?: return "a block device"
        case .typeSocket?: return "a socket"
        case .typeSymbolicLink?: return "a dangling symbolic link"
        case nil: return "of unknown type"
        default:
            // FoundationEssentials has no separate FIFO case name on every platform.
            return "a FIFO (named pipe) or other special file (\(type.map { $0.rawValue } ?? "?"))"
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

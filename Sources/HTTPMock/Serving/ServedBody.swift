import Foundation

// What the server sends as a response body: from memory, or a file read chunk by chunk.

/// A response body from memory or from a file, read in chunks when sent.
package struct ServedBody: Sendable {
    private let source: MockResponse.Body
    package let size: Int

    init(_ source: MockResponse.Body, size: Int) {
        self.source = source
        self.size = size
    }

    /// The whole body when it is in memory, `nil` for a file (stream it with ``reader()``).
    package var data: Data? {
        switch source {
        case .none, .events: return Data()  // events are written one by one (`ServedAnswer.events`)
        case .data(let data): return data
        case .file: return nil
        }
    }

    /// A reader that yields the body chunk by chunk; a file is read from disk as it goes.
    package func reader() throws -> ServedBodyReader {
        ServedBodyReader(try BodySource(source).reader())
    }
}

/// Reads a ``ServedBody`` chunk by chunk. Not Sendable across concurrent use: one reader per
/// response, used by one task at a time.
package struct ServedBodyReader: @unchecked Sendable {
    // @unchecked: wraps a FileHandle, used by the one task that sends the body.
    private var reader: BodyReader
    init(_ reader: BodyReader) { self.reader = reader }

    /// The next chunk of at most `count` bytes; empty at the end.
    package mutating func next(_ count: Int) throws -> Data { try reader.next(count) }

    /// Closes the file, if any.
    package func close() { try? reader.file?.close() }
}

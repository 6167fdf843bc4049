#if Server
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP client for what URLSession cannot send: malformed requests, absolute-form
/// targets, CONNECT, chunked bodies, huge header blocks. Every read has a deadline, so a
/// test fails instead of hanging.
final class RawClient: @unchecked Sendable {
    // @unchecked: one test uses one client from one task at a time.
    private var socket: Int32
    private(set) var received = Data()
    /// Whether the server closed the connection.
    private(set) var isClosed = false

    init(port: Int) throws {
        #if canImport(Glibc)
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { throw RawClientError.socket(errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(socket)
            throw RawClientError.connect(errno)
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { if socket >= 0 { close(socket) } }

    func send(_ text: String) throws { try send(Data(text.utf8)) }

    func send(_ data: Data) throws {
        var offset = 0
        while offset < data.count {
            let sent = data.withUnsafeBytes { bytes in
                #if canImport(Glibc)
                Glibc.send(socket, bytes.baseAddress! + offset, data.count - offset, Int32(MSG_NOSIGNAL))
                #else
                Darwin.send(socket, bytes.baseAddress! + offset, data.count - offset, 0)
                #endif
            }
            guard sent > 0 else { throw RawClientError.send(errno) }
            offset += sent
        }
    }

    /// Reads until `done` holds for what was received, the server closes, or `timeout` passes.
    @discardableResult
    func read(timeout: TimeInterval = 5, until done: (String) -> Bool = { _ in false }) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !isClosed, Date() < deadline, !done(text) {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
            } else if count == 0 {
                isClosed = true
            } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                isClosed = true  // reset by the server
            }
        }
        return text
    }

    /// Reads one whole response with a `Content-Length` body.
    @discardableResult
    func readResponse(timeout: TimeInterval = 30) -> String {
        read(timeout: timeout) { text in
            guard let end = text.range(of: "\r\n\r\n") else { return false }
            let head = text[..<end.lowerBound].lowercased()
            guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
            else { return true }
            return text.utf8.count - text[..<end.upperBound].utf8.count >= length
        }
    }

    var text: String { String(decoding: received, as: UTF8.self) }

    /// Clears what was received, for the next response on the same connection.
    func reset() { received = Data() }

    /// Half-closes: the server sees the end of the request stream (`shutdown(SHUT_WR)`).
    func shutdownWrite() { shutdown(socket, Int32(SHUT_WR)) }

    /// Closes the connection with a reset (`SO_LINGER` 0): the server learns at once that the
    /// client is gone, as when a client process dies.
    func resetNow() {
        var value = linger(l_onoff: 1, l_linger: 0)
        setsockopt(socket, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<linger>.size))
        closeNow()
    }

    /// Closes the connection from this side.
    func closeNow() {
        close(socket)
        socket = -1
        isClosed = true
    }
}

enum RawClientError: Error {
    case socket(Int32)
    case connect(Int32)
    case send(Int32)
}
#endif

#if Server
/// Runs blocking socket work off Swift's cooperative pool (two threads on a two-core machine,
/// which the server's own tasks need), on a thread of its own: on Linux `DispatchQueue.global()`
/// is the very pool Swift's tasks run on, and it does not grow while its threads block, so a
/// few blocked reads there stall every suite's tasks and time out in-process requests.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}

/// One raw exchange on a new connection: sends `request`, returns what came back (a whole
/// response, or everything until the server closed).
func rawExchange(port: Int, _ request: String, timeout: TimeInterval = 5) async throws -> String {
    try await blocking {
        let client = try RawClient(port: port)
        try client.send(request)
        return client.readResponse(timeout: timeout)
    }
}
#endif

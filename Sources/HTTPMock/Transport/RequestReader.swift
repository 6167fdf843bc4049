import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns what a protocol receives into a ``MockRequest``, recovering the body wherever
/// URL loading put it.
enum RequestReader {
    static func mockRequest(from request: URLRequest, task: URLSessionTask?) -> MockRequest {
        let url = request.url ?? URL(fileURLWithPath: "/")
        return MockRequest(
            method: HTTPMethod(request.httpMethod ?? "GET"),
            url: url,
            headers: HTTPHeaders(request.allHTTPHeaderFields ?? [:]),
            body: body(of: request, task: task))
    }

    /// `httpBody` (Linux keeps it), else `httpBodyStream` read once (Apple platforms move bodies
    /// there), else an upload task's body, which FoundationNetworking keeps only in the task.
    static func body(of request: URLRequest, task: URLSessionTask?) -> Data? {
        if let body = request.httpBody { return body }
        if let stream = request.httpBodyStream { return read(stream) }
        if let task, task is URLSessionUploadTask { return TaskInternals.uploadBody(of: task) }
        return nil
    }

    private static func read(_ stream: InputStream) -> Data {
        var data = Data()
        stream.open()
        defer { stream.close() }
        let bufferSize = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        while true {
            let count = stream.read(&buffer, maxLength: bufferSize)
            guard count > 0 else { break }
            data.append(buffer, count: count)
        }
        return data
    }
}

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The physical limit for an in-process interceptor: a `URLProtocol` that answers every request
/// with a fixed 100-byte response and does nothing else.
final class BareProtocol: URLProtocol {
    static let body = Data(repeating: UInt8(ascii: "x"), count: 100)

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let client, let url = request.url,
            let response = HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "text/plain", "Content-Length": "100"])
        else { return }
        client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client.urlProtocol(self, didLoad: Self.body)
        client.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}

    static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [BareProtocol.self]
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }
}

import Foundation

extension MockResponse: CustomStringConvertible {
    /// A one-line summary of the response: its kind, status and body.
    public var description: String {
        switch payload {
        case .http(let http):
            let bodyText: String
            switch http.body {
            case .none: bodyText = "no body"
            case .data(let data): bodyText = "\(data.count) bytes"
            case .file(let url): bodyText = "file \(url.lastPathComponent)"
            case .events: bodyText = "event stream"
            }
            return "\(http.status.code) (\(bodyText))"
        case .failure(let error):
            return "failure(\(error))"
        case .dynamic:
            return "dynamic"
        case .passthrough:
            return "passthrough"
        case .fault(let fault, _):
            return "fault(\(fault))"
        case .invalid(let message, _):
            return "invalid(\(message))"
        }
    }
}

extension JSONEncoder {
    /// The encoder `MockResponse.encodable` uses by default: `Date` as ISO 8601.
    @usableFromInline
    static func httpMockDefault() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

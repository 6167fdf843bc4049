import Foundation

/// The parts of a HAR 1.2 entry HTTPMock reads and writes. Browser extras (`_`-prefixed
/// fields, `cache`, `timings`, cookies) are accepted on reading and not kept.
struct HAREntry: Sendable {
    /// ISO 8601, as written by the recorder.
    var startedDateTime: String
    /// Milliseconds the exchange took, as recorded.
    var time: Double
    var request: HARRequest
    var response: HARResponse
}

struct HARHeader: Sendable, Equatable, Decodable {
    var name: String
    var value: String
}

struct HARRequest: Sendable {
    var method: String
    var url: String
    var httpVersion: String
    var headers: [HARHeader]
    /// `postData.text`, decoded (`postData.encoding` base64 is accepted too).
    var body: Data?
    var bodyMimeType: String?
}

struct HARResponse: Sendable {
    /// 0 when no response arrived (a browser's cancelled request, a recorded transport error).
    var status: Int
    var statusText: String
    var httpVersion: String
    var headers: [HARHeader]
    /// `content.text`, decoded per `content.encoding`.
    var body: Data
    var mimeType: String
    /// Why no response arrived (`_error`, as Chrome writes it), when `status` is 0.
    var error: String?
}

extension HARHeader {
    /// The value of the first header named `name` (case-insensitive) in `headers`.
    static func value(_ name: String, in headers: [HARHeader]) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// What every redaction writes instead of a secret; replay treats a query item or header with
/// this value as "any value".
enum HARPlaceholder {
    static let redacted = "REDACTED"
}

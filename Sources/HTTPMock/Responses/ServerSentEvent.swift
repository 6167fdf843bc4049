import Foundation

/// One server-sent event of a `text/event-stream` response (WHATWG HTML, "Server-sent events").
///
/// ```swift
/// ServerSentEvent(data: #"{"delta":"Hel"}"#, event: "message", id: "1")
/// ServerSentEvent(data: "line one\nline two")   // two `data:` lines, one event
/// ServerSentEvent(data: "", retry: 3000)        // tells the client to reconnect after 3 s
/// ```
///
/// It is framed as the `event:`, `id:` and `retry:` fields that are set, then one `data:` line
/// per line of `data` (`\n`, `\r\n` and `\r` all end a line), then a blank line.
public struct ServerSentEvent: Sendable, Hashable, CustomStringConvertible {
    /// The event's data; each of its lines becomes one `data:` line.
    public var data: String
    /// The event type (`event:`), or `nil` for the default `message`.
    public var event: String?
    /// The event ID (`id:`), which the client sends back as `Last-Event-ID` when it reconnects.
    public var id: String?
    /// The reconnection time in milliseconds (`retry:`).
    public var retry: Int?

    /// An event.
    ///
    /// - Parameters:
    ///   - data: The data; multi-line data becomes several `data:` lines.
    ///   - event: The event type, or `nil`.
    ///   - id: The event ID, or `nil`. It must not contain a line break or NUL.
    ///   - retry: The reconnection time in milliseconds (≥ 0), or `nil`.
    public init(data: String, event: String? = nil, id: String? = nil, retry: Int? = nil) {
        self.data = data
        self.event = event
        self.id = id
        self.retry = retry
    }

    /// The event as it goes on the wire, blank line included.
    public var framed: String {
        var text = ""
        if let event { text += "event: \(event)\n" }
        if let id { text += "id: \(id)\n" }
        if let retry { text += "retry: \(retry)\n" }
        for line in Self.lines(of: data) { text += "data: \(line)\n" }
        return text + "\n"
    }

    /// The event as it goes on the wire: ``framed``.
    public var description: String { framed }

    /// What makes this event impossible to frame, or `nil`.
    var problem: String? {
        if let event, event.contains(where: Self.endsLine) {
            return "the event type \(event.debugDescription) contains a line break"
        }
        if let id, id.contains(where: { Self.endsLine($0) || $0 == "\0" }) {
            return "the id \(id.debugDescription) contains a line break or NUL (clients ignore such an id)"
        }
        if let retry, retry < 0 {
            return "retry is \(retry); it must be a number of milliseconds ≥ 0"
        }
        return nil
    }

    /// `text` split at `\r\n`, `\r` and `\n` (the only line ends of the SSE grammar; U+2028 and
    /// U+0085 stay in the data); an empty string is one empty line.
    private static func lines(of text: String) -> [Substring] {
        // Most data is one line (JSON, as the dashboard's events): a byte scan says so without
        // walking the text by `Character`, which cost the server 8% of its CPU with 10
        // dashboards open (200 requests of JSON per event, framed per subscriber). CR and LF
        // always break graphemes, so text without those bytes has no line end.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) else {
            return [text[...]]
        }
        // `Character` treats "\r\n" as one character, so one split covers all three.
        return text.split(omittingEmptySubsequences: false, whereSeparator: endsLine)
    }

    private static func endsLine(_ character: Character) -> Bool {
        character == "\n" || character == "\r" || character == "\r\n"
    }
}

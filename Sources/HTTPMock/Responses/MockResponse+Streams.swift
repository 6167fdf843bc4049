import Foundation

// MARK: - Event streams

extension MockResponse {
    /// A `text/event-stream` response (server-sent events) that sends `events` one by one,
    /// `interval` seconds apart.
    ///
    /// ```swift
    /// mock.addResponses(forPath: "/v1/chat", method: .post, responses: [
    ///     .eventStream([
    ///         ServerSentEvent(data: #"{"delta":"Hel"}"#, event: "message", id: "1"),
    ///         ServerSentEvent(data: #"{"delta":"lo"}"#, event: "message", id: "2"),
    ///         ServerSentEvent(data: "[DONE]"),
    ///     ], interval: 0.05),
    /// ])
    /// ```
    ///
    /// The first event is sent at once (after the response's `delivery`), each next one
    /// `interval` seconds after the previous, then the stream ends. Delegate-driven tasks
    /// (`URLSessionDataDelegate`) receive each event in its own `didReceive data` call when
    /// its time comes; `data(for:)` and completion-handler tasks receive the whole stream when
    /// it ends, because FoundationNetworking keeps only their last chunk (see <doc:Streams>).
    /// `Content-Type: text/event-stream` and `Cache-Control: no-cache` are set unless `headers`
    /// sets them; there is no `Content-Length`. Every event resets the request's timeout, so a
    /// stream stalls into `URLError(.timedOut)` only when one `interval` exceeds it.
    ///
    /// An event that cannot be framed (a line break in `event` or `id`, a negative `retry`) is
    /// reported at this call site when the response is registered, and nothing is registered.
    ///
    /// - Parameters:
    ///   - events: The events, in order.
    ///   - interval: Seconds between two events (≥ 0).
    ///   - status: The status, `.ok` by default.
    ///   - headers: Response headers.
    ///   - lifetime: How many requests it answers.
    ///   - delivery: When the stream starts.
    ///   - fileID: The call site, for error reports; leave the default.
    ///   - filePath: The call site, for error reports; leave the default.
    ///   - line: The call site, for error reports; leave the default.
    ///   - column: The call site, for error reports; leave the default.
    public static func eventStream(
        _ events: [ServerSentEvent],
        interval: TimeInterval = 0,
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        guard interval >= 0, interval.isFinite else {
            return .invalid(
                "MockResponse.eventStream: interval is \(interval); it must be a finite number of seconds ≥ 0",
                lifetime: lifetime, delivery: delivery, location: location)
        }
        for (index, event) in events.enumerated() {
            if let problem = event.problem {
                return .invalid(
                    "MockResponse.eventStream: event \(index) cannot be framed: \(problem)",
                    lifetime: lifetime, delivery: delivery, location: location)
            }
        }
        return .http(
            status: status, headers: eventStreamHeaders(headers), body: .events(EventSource(.fixed(events, interval: interval))),
            defaultContentType: "text/event-stream", lifetime: lifetime, delivery: delivery)
    }

    /// A `text/event-stream` response whose events come from an `AsyncSequence` made per
    /// request: each event is sent as the sequence yields it, and the stream ends when the
    /// sequence does.
    ///
    /// ```swift
    /// .eventStreamFromSequence { request in
    ///     AsyncStream { continuation in
    ///         for token in ["Hel", "lo"] { continuation.yield(ServerSentEvent(data: token)) }
    ///         continuation.finish()
    ///     }
    /// }
    /// ```
    ///
    /// Use it when the events depend on the request or on something the test drives (an
    /// `AsyncStream` whose continuation the test holds sends an event whenever the test yields
    /// one). Delivery to the task kinds is as for ``eventStream(_:interval:status:headers:lifetime:delivery:fileID:filePath:line:column:)``.
    /// The next element is requested only after the previous event was handed to the client.
    /// An error thrown by `makeEvents` or by the sequence fails the request with that error
    /// (after the events already sent); an event that cannot be framed fails it with an
    /// ``HTTPMockError``. When the request is cancelled or times out, the task iterating the
    /// sequence is cancelled.
    ///
    /// - Parameters:
    ///   - status: The status, `.ok` by default.
    ///   - headers: Response headers.
    ///   - lifetime: How many requests it answers.
    ///   - delivery: When the stream starts.
    ///   - makeEvents: Makes the events for one request.
    public static func eventStreamFromSequence<Events: AsyncSequence & SendableMetatype>(
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        _ makeEvents: @escaping @Sendable (MockRequest) async throws -> Events
    ) -> MockResponse where Events.Element == ServerSentEvent {
        let run: @Sendable (MockRequest, EventSink) async throws -> Void = { request, sink in
            for try await event in try await makeEvents(request) {
                guard await sink.send(event) else { return }
            }
        }
        return .http(
            status: status, headers: eventStreamHeaders(headers), body: .events(EventSource(.sequence(EventSequenceHandler(run: run)))),
            defaultContentType: "text/event-stream", lifetime: lifetime, delivery: delivery)
    }

    private static func eventStreamHeaders(_ headers: HTTPHeaders) -> HTTPHeaders {
        var headers = headers
        if !headers.contains("Cache-Control") { headers["Cache-Control"] = "no-cache" }
        return headers
    }

    /// The events of an event-stream body: a transport-neutral description that the in-process
    /// transport (and a server) turns into timed writes.
    package struct EventSource: Sendable, Equatable {
        package enum Kind: Sendable {
            case fixed([ServerSentEvent], interval: TimeInterval)
            case sequence(EventSequenceHandler)
        }

        package let kind: Kind
        /// Identity for `Equatable`: two sources are equal only if they are the same source.
        private let identity = EventSourceIdentity()

        init(_ kind: Kind) { self.kind = kind }

        package static func == (lhs: EventSource, rhs: EventSource) -> Bool { lhs.identity === rhs.identity }
    }

    /// Runs a dynamic event stream, handing every event to the sink; stops when the sink
    /// returns `false`. Kept in a struct for the reason of ``DynamicHandler``.
    package struct EventSequenceHandler: Sendable {
        package let run: @Sendable (MockRequest, EventSink) async throws -> Void
    }

    /// Where a dynamic stream's events go: `send` returns once the event was handed to the
    /// client, `false` when the request is over (cancelled, timed out) and the stream must stop.
    package struct EventSink: Sendable {
        let send: @Sendable (ServerSentEvent) async -> Bool
        package init(send: @escaping @Sendable (ServerSentEvent) async -> Bool) { self.send = send }
    }
}

final class EventSourceIdentity: Sendable {}

// MARK: - Faults

extension MockResponse {
    /// A network failure in the middle of an exchange, served by ``MockResponse/fault(_:body:status:headers:lifetime:delivery:fileID:filePath:line:column:)``.
    ///
    /// ```swift
    /// .fault(.connectionLost(afterBytes: 100))   // head + 100 bytes, then URLError(.networkConnectionLost)
    /// .fault(.malformedResponse)                 // URLError(.badServerResponse)
    /// .fault(.emptyResponse)                     // the server closes without answering
    /// ```
    ///
    /// Modelled on OkHttp MockWebServer's socket policies. A struct rather than an enum, so new
    /// faults can be added without breaking code; compare faults with `==`.
    public struct Fault: Hashable, Sendable, CustomStringConvertible {
        enum Kind: Hashable, Sendable {
            case connectionLost(afterBytes: Int)
            case malformedResponse
            case emptyResponse
            case connectionReset
        }

        let kind: Kind

        /// The response head and the first `afterBytes` bytes of the body arrive, then the
        /// connection drops: the request fails with `URLError(.networkConnectionLost)`.
        /// Delegate-driven tasks receive the response and those bytes first.
        public static func connectionLost(afterBytes: Int) -> Fault { Fault(kind: .connectionLost(afterBytes: afterBytes)) }

        /// The server answers with bytes that are not HTTP: the request fails with
        /// `URLError(.badServerResponse)` and no response.
        public static let malformedResponse = Fault(kind: .malformedResponse)

        /// The server closes the connection without sending anything: the request fails with
        /// `URLError(.networkConnectionLost)` and no response, as FoundationNetworking reports an
        /// empty reply from a real server (see <doc:Streams>).
        public static let emptyResponse = Fault(kind: .emptyResponse)

        /// The server resets the connection without sending anything (over HTTP a TCP `RST`:
        /// the client reads `ECONNRESET`, "Connection reset by peer"): the request fails with
        /// `URLError(.networkConnectionLost)` and no response. WireMock's
        /// `CONNECTION_RESET_BY_PEER`.
        public static let connectionReset = Fault(kind: .connectionReset)

        /// The fault as written in Swift (`.connectionLost(afterBytes: 100)`).
        public var description: String {
            switch kind {
            case .connectionLost(let bytes): return ".connectionLost(afterBytes: \(bytes))"
            case .malformedResponse: return ".malformedResponse"
            case .emptyResponse: return ".emptyResponse"
            case .connectionReset: return ".connectionReset"
            }
        }

        /// The error the client sees.
        var error: URLError {
            switch kind {
            case .connectionLost, .emptyResponse, .connectionReset: return URLError(.networkConnectionLost)
            case .malformedResponse: return URLError(.badServerResponse)
            }
        }
    }
}

extension MockResponse {
    /// A network failure: a connection that drops mid-body, garbage instead of HTTP, or no
    /// answer at all.
    ///
    /// ```swift
    /// mock.addResponses(forPath: "/download", responses: [
    ///     .fault(.connectionLost(afterBytes: 1_000), body: Data(count: 10_000)),
    ///     .data(Data(count: 10_000)),   // the retry succeeds
    /// ])
    /// ```
    ///
    /// For `.connectionLost(afterBytes:)` the response head carries `status`, `headers` and a
    /// `Content-Length` of the whole `body` (by default `afterBytes + 1` bytes of `x`, so the
    /// client expects more than it gets, at most 1 MiB: with a larger `afterBytes` the whole
    /// default body arrives before the connection drops); the other faults send no response, and ignore
    /// `body`, `status` and `headers`. The journal records the request with the fault's error.
    ///
    /// - Parameters:
    ///   - fault: What goes wrong.
    ///   - body: The body whose first bytes are sent by `.connectionLost`.
    ///   - status: The status of the head `.connectionLost` sends, `.ok` by default.
    ///   - headers: Its headers.
    ///   - lifetime: How many requests it answers.
    ///   - delivery: When the fault happens.
    ///   - fileID: The call site, for error reports; leave the default.
    ///   - filePath: The call site, for error reports; leave the default.
    ///   - line: The call site, for error reports; leave the default.
    ///   - column: The call site, for error reports; leave the default.
    public static func fault(
        _ fault: Fault,
        body: Data? = nil,
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        if case .connectionLost(let bytes) = fault.kind, bytes < 0 {
            return .invalid(
                "MockResponse.fault(.connectionLost(afterBytes: \(bytes))): afterBytes must be ≥ 0",
                lifetime: lifetime, delivery: delivery,
                location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        }
        let afterBytes: Int = if case .connectionLost(let bytes) = fault.kind { bytes } else { 0 }
        // One byte more than is sent, capped: `afterBytes: Int.max` must neither overflow nor allocate.
        let defaultLength = min(afterBytes, Self.maximumDefaultFaultBody - 1) + 1
        let http = HTTPPayload(
            status: status, headers: headers, body: .data(body ?? Data(repeating: UInt8(ascii: "x"), count: defaultLength)),
            defaultContentType: nil, preparedHeaderFields: nil)
        return MockResponse(payload: .fault(fault, head: http), lifetime: lifetime, delivery: delivery)
    }

    /// The largest default body of `.connectionLost(afterBytes:)` (1 MiB).
    static let maximumDefaultFaultBody = 1 << 20
}

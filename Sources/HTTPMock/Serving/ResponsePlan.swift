import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What happens to one response, decided once for both transports: the in-process transport
/// (`Transport/Exchange*`, URLProtocol client calls and DispatchSource timers) and the HTTP server
/// (`HTTPMockServer`, NIO writes and tasks) only execute these steps.
///
/// The steps, in order: refuse what cannot be served (an invalid delivery, status or payload: at
/// once, without waiting), or run a dynamic handler (its answer is planned again and inherits the
/// handler's delivery), or wait for the start (``Start``) and then act (``Action``): fail, fetch
/// upstream, send an HTTP response (its ``Head``: header fields, `Content-Length`, whether a body
/// goes out, at what pace) or a fault.
enum ResponsePlan {
    /// When a response starts.
    enum Start {
        /// At once.
        case now
        /// After this many seconds (> 0).
        case after(TimeInterval)
        /// When the gate is released (at once if it already is).
        case gate(ResponseGate)
        /// Never (`.never`): only a timeout, a cancellation or a closed connection ends it.
        case never
    }

    /// What a response does once it starts.
    enum Action {
        /// `.failure`: the request fails with this error (the connection closes).
        case fail(any Error)
        /// `.passthrough`: fetch the request upstream and relay the answer (``upstreamRequest(for:)``,
        /// ``relayedHeaders(of:)``).
        case passthrough
        /// Send this HTTP response (``head(of:to:framing:)``).
        case http(MockResponse.HTTPPayload)
        /// `.fault`: with `head` for `.connectionLost(afterBytes:)`.
        case fault(MockResponse.Fault, head: MockResponse.HTTPPayload)
    }

    /// The first step of serving a response.
    enum Step {
        /// The response cannot be served: fail the request now (journaled as its outcome).
        case refuse(any Error)
        /// Run the handler, then plan its answer with `inherited: delivery`.
        case runHandler(DynamicHandler, delivery: Delivery)
        /// Wait for `start`, then do `action`; a body goes out at `bytesPerSecond` when throttled.
        case start(Start, Action, bytesPerSecond: Int?)
    }

    /// Plans `response` to `request`. `inherited` is the delivery of the dynamic response whose
    /// handler produced it; `defaultDelay` is the instance's, for `.instant`.
    static func first(
        _ response: MockResponse, to request: MockRequest, inherited: Delivery?, defaultDelay: TimeInterval
    ) -> Step {
        let delivery = response.delivery == .instant ? (inherited ?? .instant) : response.delivery
        // Dynamic results and `.mock(...)` policy responses were never registered, so never validated.
        if let problem = delivery.problem {
            return .refuse(HTTPMockError(.invalidRegistration, "\(request): \(problem)"))
        }
        // A 1xx final status, a header name that is no token, a CR/LF/NUL in a value.
        if let problem = response.sendingProblems.first {
            return .refuse(HTTPMockError(.invalidRegistration, "\(request): \(problem)"))
        }
        let action: Action
        switch response.payload {
        case .invalid(let message, _):
            return .refuse(HTTPMockError(.invalidRegistration, message))
        case .dynamic(let handler):
            return .runHandler(handler, delivery: delivery)
        case .http(let http):
            guard http.status.isValid else {
                return .refuse(
                    HTTPMockError(.invalidRegistration, "\(request): status \(http.status.code) is not an HTTP status (100...599)"))
            }
            action = .http(http)
        case .failure(let error):
            action = .fail(error)
        case .passthrough:
            action = .passthrough
        case .fault(let fault, let head):
            action = .fault(fault, head: head)
        }
        return .start(start(of: delivery, defaultDelay: defaultDelay), action, bytesPerSecond: bytesPerSecond(of: delivery))
    }

    /// When `delivery` starts a response: its own delay, `defaultDelay` for `.instant`, its
    /// gate, or never.
    static func start(of delivery: Delivery, defaultDelay: TimeInterval) -> Start {
        switch delivery.kind {
        case .never: return .never
        case .held(let gate): return .gate(gate)
        case .instant, .delayed, .throttled:
            let delay = delivery.startDelay ?? defaultDelay
            return delay > 0 ? .after(delay) : .now
        }
    }

    /// The largest chunk a body is sent in.
    static let largestChunk = 256 * 1024

    /// The chunk size of a body sent at `bytesPerSecond` (a tenth of a second's worth), or of an
    /// unpaced one streamed from a file.
    static func chunkSize(bytesPerSecond: Int?) -> Int {
        bytesPerSecond.map { min(largestChunk, max(1, $0 / 10)) } ?? largestChunk
    }

    /// Seconds after a paced body started when `sent` bytes of it are due at `bytesPerSecond`.
    static func due(afterSending sent: Int, bytesPerSecond: Int) -> TimeInterval {
        Double(sent) / Double(bytesPerSecond)
    }

    /// The pace of a throttled body.
    static func bytesPerSecond(of delivery: Delivery) -> Int? {
        if case .throttled(let bytesPerSecond, _) = delivery.kind { return bytesPerSecond }
        return nil
    }
}

// MARK: - The head of an HTTP response

extension ResponsePlan {
    /// Who frames the body.
    enum Framing {
        /// Nothing is framed (URLProtocol): a `Content-Length` the user set stands.
        case declared
        /// The wire: `Content-Length` is the body's size, whatever the user set.
        case bodySize
    }

    /// An HTTP response ready to send: its header fields (with `Content-Length` when the status
    /// allows a body, none for an event stream), its body and whether the body goes out (not for
    /// `HEAD`, 1xx, 204, 304). An event stream's events go out when ``allowsBody``.
    struct Head {
        let status: HTTPStatus
        let headers: HTTPHeaders
        let body: BodySource
        /// The status and method allow a body (it may still be empty).
        let allowsBody: Bool

        /// Whether body bytes go out.
        var sendsBody: Bool { allowsBody && body.size > 0 }

        /// What the journal keeps as sent (for `exportHAR`): no body where none goes out.
        func served(_ body: MockResponse.Body) -> ServedResponse {
            ServedResponse(statusCode: status.code, headerFields: headers.dictionary, body: allowsBody ? body : .none, date: Date())
        }
    }

    /// The head of `http` sent in answer to `method`; throws when the body's file cannot be read.
    static func head(of http: MockResponse.HTTPPayload, to method: HTTPMethod, framing: Framing) throws -> Head {
        let body = try BodySource(http.body)
        let headers = framed(
            http.preparedHeaderFields.map { HTTPHeaders($0) } ?? http.effectiveHeaders, status: http.status, body: http.body,
            size: body.size, framing: framing)
        return Head(status: http.status, headers: headers, body: body, allowsBody: http.status.sendsBody(to: method))
    }

    /// `headers` with the length `framing` gives a `size`-byte `body`: none for an event stream
    /// (it ends when it ends), none added for a status that forbids a body, else `size`
    /// (``Framing/bodySize``, or ``Framing/declared`` when the user set none).
    static func framed(_ headers: HTTPHeaders, status: HTTPStatus, body: MockResponse.Body, size: Int, framing: Framing) -> HTTPHeaders {
        var headers = headers
        if case .events = body {
            headers["Content-Length"] = nil
        } else if !status.forbidsBody, framing == .bodySize || !headers.contains("Content-Length") {
            headers["Content-Length"] = String(size)
        }
        return headers
    }
}

// MARK: - Passthrough

extension ResponsePlan {
    /// The request sent upstream for a `.passthrough`: method, headers (not `Host`, which names
    /// the mock; the session sets it from the URL) and body.
    static func upstreamRequest(for request: MockRequest) -> URLRequest {
        var forwarded = URLRequest(url: request.url)
        forwarded.httpMethod = request.method.rawValue
        for (name, value) in request.headers where HTTPHeaders.lowercased(name) != "host" {
            forwarded.setValue(value, forHTTPHeaderField: name)
        }
        forwarded.httpBody = request.body
        return forwarded
    }

    /// The header fields relayed from an upstream answer. URLSession has already decoded and
    /// unframed its body: the client must not decode it again, and its length is added when sent.
    static func relayedHeaders(of response: HTTPURLResponse) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        headers["Content-Encoding"] = nil
        headers["Transfer-Encoding"] = nil
        headers["Content-Length"] = nil
        return headers
    }
}

// MARK: - Events

extension ServerSentEvent {
    /// The event as either transport sends it; throws when it cannot be framed (a dynamic
    /// stream's events were never checked at registration), which ends the stream with an error.
    package func framed(for request: MockRequest) throws -> String {
        if let problem {
            throw HTTPMockError(.invalidRegistration, "\(request): an event of its event stream cannot be framed: \(problem)")
        }
        return framed
    }
}

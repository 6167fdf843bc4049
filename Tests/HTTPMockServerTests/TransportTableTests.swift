#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockServer
import Testing

/// One response plan, two transports (STYLE.md, "One response plan"): every response kind,
/// delivery and fault is served once in process (`mock.urlSession`) and once over loopback (the
/// server and a plain URLSession), and the two clients must see the same thing.
@Suite("One response plan: every behaviour through both transports", .serialized, .timeLimit(.minutes(3)))
struct TransportTableTests {
    /// What a client saw: an answer (status, the selected header fields, the body) or a failure.
    enum Seen: Equatable, CustomStringConvertible {
        case answered(status: Int, headers: [String: String], body: String)
        case failed

        var description: String {
            switch self {
            case .answered(let status, let headers, let body):
                "\(status) \(headers.sorted { $0.key < $1.key }) \(body.debugDescription)"
            case .failed: "failed"
            }
        }
    }

    /// One behaviour: what `register` registers under ``path`` on a fresh instance, requested with `method`.
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        var method = "GET"
        let register: @Sendable (HTTPMock) -> Void
        /// The one deliberate difference (Guarantees.md, 15): a response the registry refuses to
        /// send fails the request in process, and is a 500 naming the problem over the server,
        /// where a client can only see what is on the wire.
        var refusedResponse = false

        var testDescription: String { name }
    }

    static let path = "/table"
    /// Header fields compared; others (`Date`, `Connection`, what libcurl adds) are transport business.
    static let comparedHeaders = ["Content-Type", "Content-Length", "Location", "ETag", "X-Table"]

    static func one(_ response: MockResponse) -> @Sendable (HTTPMock) -> Void {
        { mock in mock.addResponses(forPath: path, responses: [response]) }
    }

    static let rows: [Row] = [
        // Response kinds.
        Row(name: "data", register: one(.data(Data([0, 1, 2, 0xFF]), contentType: "application/octet-stream"))),
        Row(name: "json", register: one(.json(#"{"a":1}"#, headers: ["X-Table": "json"]))),
        Row(name: "plaintext with a 500", register: one(.plaintext("broken", status: .internalServerError))),
        Row(name: "empty", register: one(.empty())),
        Row(
            name: "file",
            register: { mock in
                let url = FileManager.default.temporaryDirectory.appendingPathComponent("TransportTable-\(UUID().uuidString).txt")
                try? Data("from a file\n".utf8).write(to: url)
                mock.addResponses(forPath: path, responses: [.file(url: url)])
            }),
        Row(name: "template", register: one(.template("{{request.method}} {{request.path}}", contentType: "text/x-table"))),
        Row(name: "dynamic", register: one(.dynamic { request in .plaintext("dynamic \(request.method.rawValue) \(request.url.path)") })),
        Row(name: "dynamic returning dynamic", register: one(.dynamic { _ in .dynamic { _ in .plaintext("inner") } })),
        Row(name: "dynamic, its delivery inherited", register: one(.dynamic(delivery: .delayed(0.1)) { _ in .plaintext("later") })),
        Row(
            name: "redirect followed",
            register: { mock in
                mock.addResponses(forPath: path, responses: [.redirect(to: "/target")])
                mock.addResponses(forPath: "/target", responses: [.plaintext("arrived")])
            }),
        Row(name: "a 3xx without Location", register: one(.empty(status: .multipleChoices, headers: ["X-Table": "300"]))),
        Row(
            name: "event stream",
            register: one(.eventStream([ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b\nc")], interval: 0.05))),
        Row(
            name: "dynamic event stream",
            register: one(
                .eventStreamFromSequence { _ in
                    AsyncStream<ServerSentEvent> { continuation in
                        for index in 1...3 { continuation.yield(ServerSentEvent(data: "\(index)")) }
                        continuation.finish()
                    }
                })),
        Row(
            name: "a dynamic event that cannot be framed",
            register: one(
                .eventStreamFromSequence { _ in
                    AsyncStream<ServerSentEvent> { continuation in
                        continuation.yield(ServerSentEvent(data: "fine"))
                        continuation.yield(ServerSentEvent(data: "x", event: "line\nbreak"))
                        continuation.finish()
                    }
                })),
        // Deliveries.
        Row(name: "delayed", register: one(.plaintext("late", delivery: .delayed(0.1)))),
        Row(name: "throttled", register: one(.plaintext("0123456789", delivery: .throttled(bytesPerSecond: 100)))),
        Row(
            name: "defaultDelay",
            register: { mock in
                mock.defaultDelay = 0.05
                mock.addResponses(forPath: path, responses: [.plaintext("default")])
            }),
        Row(
            name: "held by a released gate",
            register: { mock in
                let gate = ResponseGate()
                gate.release()
                mock.addResponses(forPath: path, responses: [.plaintext("released", delivery: .held(gate))])
            }),
        // Faults and failures.
        Row(name: "connectionLost after bytes", register: one(.fault(.connectionLost(afterBytes: 3), body: Data("hello world".utf8)))),
        Row(name: "malformedResponse", register: one(.fault(.malformedResponse))),
        Row(name: "emptyResponse", register: one(.fault(.emptyResponse))),
        Row(name: "failure", register: one(.failure(URLError(.cannotConnectToHost)))),
        Row(name: "a throwing dynamic handler", register: one(.dynamic { _ in throw URLError(.cannotParseResponse) })),
        Row(
            name: "a dynamic handler past the timeout",
            register: { mock in
                mock.timeout = 0.3
                mock.addResponses(
                    forPath: path,
                    responses: [
                        .dynamic { _ in
                            try await Task.sleep(nanoseconds: 5_000_000_000)
                            return .plaintext("too late")
                        }
                    ])
            }),
        Row(
            name: "an invalid dynamic status", register: one(.dynamic { _ in .plaintext("x", status: HTTPStatus(42)) }),
            refusedResponse: true),
        // No body: HEAD, 204, 304.
        Row(name: "HEAD", method: "HEAD", register: one(.plaintext("hello"))),
        Row(name: "HEAD to a dynamic response", method: "HEAD", register: one(.dynamic { _ in .plaintext("hello") })),
        Row(name: "HEAD to an event stream", method: "HEAD", register: one(.eventStream([ServerSentEvent(data: "a")]))),
        Row(name: "204", register: one(.empty(status: .noContent, headers: ["X-Table": "204"]))),
        Row(name: "204 with a body", register: one(.plaintext("dropped", status: .noContent))),
        Row(name: "304", register: one(.empty(status: .notModified, headers: ["ETag": "\"v1\""]))),
    ]

    @Test("both transports show the client the same", arguments: rows)
    func sameThroughBoth(_ row: Row) async throws {
        let inProcess = HTTPMock()
        inProcess.logHandler = nil
        row.register(inProcess)
        let overInProcess = await Self.seen(
            row.method, URL(string: "https://example.com\(Self.path)")!, through: inProcess.urlSession)

        let served = HTTPMock()
        served.logHandler = nil
        row.register(served)
        let overServer = try await serving(served) { server in
            await Self.seen(row.method, server.baseURL.appendingPathComponent(String(Self.path.dropFirst())), through: makePlainSession())
        }
        if row.refusedResponse {
            #expect(overInProcess == .failed, "\(row.name): in process \(overInProcess)")
            guard case .answered(500, _, let body) = overServer else {
                Issue.record("\(row.name): over the server \(overServer), not a 500 naming the problem")
                return
            }
            #expect(body.contains("status 42 is not an HTTP status"), "\(body)")
            return
        }
        #expect(overInProcess == overServer, "\(row.name): in process \(overInProcess), over the server \(overServer)")
    }

    @Test("passthrough: both transports relay an upstream server's answer alike")
    func passthroughThroughBoth() async throws {
        let upstream = HTTPMock()
        upstream.logHandler = nil
        upstream.addResponses(
            forPath: Self.path,
            responses: [.json(#"{"from":"upstream"}"#, headers: ["X-Table": "upstream"], lifetime: .multiple(2))])
        try await serving(upstream) { upstreamServer in
            let origin = "http://127.0.0.1:\(upstreamServer.port)"
            let inProcess = HTTPMock()
            inProcess.logHandler = nil
            inProcess.addResponses(forPath: Self.path, host: "127.0.0.1", responses: [.passthrough()])
            let overInProcess = await Self.seen("GET", URL(string: origin + Self.path)!, through: inProcess.urlSession)

            let served = HTTPMock()
            served.logHandler = nil
            served.addResponses(forPath: Self.path, host: "127.0.0.1", responses: [.passthrough()])
            let overServer = try await serving(served, impersonating: origin) { server in
                await Self.seen("GET", server.baseURL.appendingPathComponent(String(Self.path.dropFirst())), through: makePlainSession())
            }
            #expect(overInProcess == overServer, "in process \(overInProcess), over the server \(overServer)")
            guard case .answered(let status, let headers, let body) = overInProcess else {
                Issue.record("passthrough failed in process")
                return
            }
            #expect(status == 200 && headers["X-Table"] == "upstream" && body == #"{"from":"upstream"}"#)
        }
    }

    /// Requests `url` with `method` through `session`, bounded by a request timeout.
    static func seen(_ method: String, _ url: URL, through session: URLSession) async -> Seen {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 10
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return .failed }
            var headers: [String: String] = [:]
            for name in comparedHeaders {
                if let value = http.value(forHTTPHeaderField: name) { headers[name] = value }
            }
            return .answered(status: http.statusCode, headers: headers, body: String(decoding: data, as: UTF8.self))
        } catch {
            return .failed
        }
    }
}
#endif

import Foundation
import HTTPMock
import Testing

// bstien/HTTPMock's remaining public declarations (SPEC §12): HTTPMockLog, PathElement and
// HostElement, arrays in builders, and Headers' upstream members.

@Suite("bstien/HTTPMock's public API compiles and behaves as upstream")
struct UpstreamAPITests {
    struct ArraysInBuilders: UpstreamScenario {
        @available(*, deprecated, message: "upstream spellings on purpose")
        func run(_ mock: HTTPMock) async throws {
            let paths = [Path("/a") { MockResponse.plaintext("a") }, Path("/b") { MockResponse.plaintext("b") }]
            let hosts = [Host("one.example.com") { paths }, Host("two.example.com") { Path("/c") { MockResponse.plaintext("c") } }]
            let pathElements: [PathElement] = [
                .headers(Headers(["X-Env": "Test"])), .response(.plaintext("d")),
                .child(Path("/e") { MockResponse.plaintext("e") }),
            ]
            let hostElements: [HostElement] = [
                .headers(Headers(["X-Team": "core"])), .path(Path("/d") { pathElements }),
            ]
            mock.registerResponses {
                hosts
                Host("three.example.com") { hostElements }
            }
            #expect(try await get(mock, "https://one.example.com/a").0 == Data("a".utf8))
            #expect(try await get(mock, "https://one.example.com/b").0 == Data("b".utf8))
            #expect(try await get(mock, "https://two.example.com/c").0 == Data("c".utf8))
            let (body, response) = try await get(mock, "https://three.example.com/d")
            #expect(body == Data("d".utf8))
            #expect(response.value(forHTTPHeaderField: "X-Env") == "Test")
            #expect(response.value(forHTTPHeaderField: "X-Team") == "core")
            let nested = try await get(mock, "https://three.example.com/d/e")
            #expect(nested.0 == Data("e".utf8))
            #expect(nested.1.value(forHTTPHeaderField: "X-Env") == nil)  // upstream: no cascade by default
            #expect(nested.1.value(forHTTPHeaderField: "X-Team") == "core")
        }
    }

    @Test("[Path] in Host { }, [Host] in registerResponses { }, [PathElement] and [HostElement]")
    func arraysInBuilders() async throws { try await run(ArraysInBuilders.self) }

    @Test("Headers.values, Headers.shouldCascade, Headers: Equatable")
    func headersMembers() {
        let headers = Headers(["X-Env": "Test", "X-Team": "core"], cascade: true)
        #expect(headers.values == ["X-Env": "Test", "X-Team": "core"])
        #expect(headers.shouldCascade)
        #expect(!Headers(["X-Env": "Test"]).shouldCascade)
        #expect(headers == Headers(["X-Env": "Test", "X-Team": "core"], cascade: true))
        #expect(headers != Headers(["X-Env": "Test", "X-Team": "core"]))
        #expect(Headers(["X-Env": "Test"]) != Headers(["X-Env": "Prod"]))
    }

    struct Log: UpstreamScenario {
        @available(*, deprecated, message: "upstream spellings on purpose")
        func run(_ mock: HTTPMock) async throws {
            defer {
                HTTPMockLog.isEnabled = true
                HTTPMockLog.level = .trace
                HTTPMock.shared.logHandler = HTTPMock.standardErrorMissLogger
            }
            HTTPMockLog.isEnabled = false
            #expect(!HTTPMockLog.isEnabled)
            #expect(HTTPMock.shared.logHandler == nil)
            let evaluated = Counter()
            HTTPMockLog.error(evaluated.increment("error"))
            #expect(evaluated.value == 0)  // disabled: the message is not even built

            HTTPMockLog.isEnabled = true
            HTTPMockLog.level = .warning
            #expect(HTTPMockLog.level == .warning)
            #expect(HTTPMock.shared.logHandler != nil)
            HTTPMockLog.warning(evaluated.increment("written by HTTPMockLog.warning, as the test expects"))
            HTTPMockLog.info(evaluated.increment("info"))
            HTTPMockLog.debug(evaluated.increment("debug"))
            HTTPMockLog.trace(evaluated.increment("trace"))
            #expect(evaluated.value == 1)  // below .warning: not built

            HTTPMockLog.level = .error
            #expect(HTTPMock.shared.logHandler == nil)
            HTTPMockLog.level = .trace
            #expect(HTTPMock.shared.logHandler != nil)
            #expect(HTTPMockLog.Level.error < .warning && HTTPMockLog.Level.debug < .trace)
            #expect(HTTPMockLog.Level(rawValue: 4) == .trace)
        }
    }

    @Test("HTTPMockLog: isEnabled and level set HTTPMock.shared's logHandler; messages below the level are not built")
    func log() async throws { try await run(Log.self) }
}

/// Counts the log messages' autoclosures that were evaluated.
final class Counter: @unchecked Sendable {
    // @unchecked: `count` is only reached under `lock`.
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }

    func increment(_ message: String) -> String {
        lock.withLock { count += 1 }
        return message
    }
}

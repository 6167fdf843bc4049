import Foundation
import Testing

@testable import HTTPMock

// SPEC §11.8: templates parse in linear time and render within their request's timeout; a
// runaway section ends its request, frees its thread and is reported.

@Suite("Templates: linear parsing, bounded rendering")
struct TemplateBudgetTests {
    @Test("16,000 tags parse in linear time (the position of each tag was counted from the start)")
    func parsingIsLinear() throws {
        let source = String(repeating: "{{request.path}}\n{{#store.a}}x{{/store.a}} ", count: 8_000)
        // CPU time, which a busy machine does not inflate (SPEC §23). Quadratic, this took 31 s;
        // linear, well under a second even in a debug build.
        let (_, elapsed) = try TestEnvironment.threadCPUTime { try Template(parsing: source, checkTopLevelName: TemplateNames.check) }
        #expect(elapsed < .seconds(5) * TestEnvironment.slowdown, "parsing 16,000 tags took \(elapsed) of CPU")
    }

    @Test("a parse error deep in a large template still names its line and column")
    func positionsStayExact() throws {
        let source = String(repeating: "{{a}}\n", count: 5_000) + "  {{/b}}"
        #expect(throws: Template.ParseError.self) { try Template(parsing: source) }
        do {
            _ = try Template(parsing: source)
        } catch {
            #expect(error.message.hasPrefix("5001:3: {{/b}} closes no open section"), "\(error.message)")
        }
    }

    @Test("sections nested more than 100 deep are a parse error, not a deep recursion")
    func nestingIsBounded() {
        let deep = String(repeating: "{{#a}}", count: 10_000) + String(repeating: "{{/a}}", count: 10_000)
        #expect { try Template(parsing: deep) } throws: { error in
            (error as? Template.ParseError)?.message.contains("nested more than 100 deep") == true
        }
        let fine = String(repeating: "{{#a}}", count: 100) + "x" + String(repeating: "{{/a}}", count: 100)
        #expect((try? Template(parsing: fine)) != nil)
    }

    @Test("a render over its step budget stops with an error naming the budget")
    func stepBudget() async throws {
        let template = try Template(parsing: "{{#big}}{{#big}}x{{/big}}{{/big}}")
        let context: JSONValue = ["big": .array(Array(repeating: .integer(1), count: 1_000))]
        #expect { try template.render(context, limits: Template.Limits(steps: 10_000)) } throws: { error in
            (error as? Template.RenderStopped)?.description.contains("stopped after 10000 steps") == true
        }
        // A million-step render on a thread of its own: on the cooperative pool (two threads on a
        // two-core machine) it would starve every other suite's tasks on a busy machine (SPEC §23).
        let rendered = try await withCheckedThrowingContinuation { (done: CheckedContinuation<Int, any Error>) in
            Thread.detachNewThread {
                done.resume(with: Result { try template.render(context, limits: Template.Limits(steps: 10_000_000)).utf8.count })
            }
        }
        #expect(rendered == 1_000_000)
        #expect { try template.render(context, limits: Template.Limits(outputBytes: 1_000)) } throws: { error in
            (error as? Template.RenderStopped)?.description.contains("larger than 1000 bytes") == true
        }
    }

    @Test("a render that writes much in few steps asks whether its request still stands per 256 KiB of output (issue 43.11)")
    func abandonedLargeOutputStops() throws {
        // 200 entries of a 1 MB value: 400 steps, far below the 4,096 between two step checks.
        let template = try Template(parsing: "{{#items}}{{big}}{{/items}}")
        let context: JSONValue = [
            "items": .array(Array(repeating: .integer(1), count: 200)), "big": .string(String(repeating: "x", count: 1 << 20)),
        ]
        let asked = Locked(0)
        #expect {
            try template.render(context) {
                asked.withLock { $0 += 1 }
                return "its request ended"
            }
        } throws: { error in
            // Stopped at the first megabyte by the question, not at 64 MB by the output budget.
            let description = (error as? Template.RenderStopped)?.description ?? ""
            return description.contains("its request ended") && description.contains("after 1048576 bytes")
        }
        #expect(asked.withLock { $0 } == 1)
    }

    @Test(
        "a runaway section fails its request with an HTTPMockError, not a body burnt for minutes (in a child process)",
        .enabled(if: ChildProcess.isAvailable))
    func runawayThroughURLSession() async throws {
        // Millions of render steps on purpose: in a process of its own, so the burn never holds
        // this process's cooperative pool (two threads here) from every other suite.
        let outcome = try await ChildProcess.run("runawaySectionThroughURLSession", timeout: 180)
        #expect(outcome.passed, "\(outcome)")
    }
}

extension ChildScenarios {
    /// A section of 6.25 million steps through URLSession: the step budget ends it with an
    /// HTTPMockError naming the budget and the registration's line, not the timeout.
    static func runawaySectionThroughURLSession() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.store["big"] = .array(Array(repeating: .integer(1), count: 2_500))  // 6.25 million steps
        mock.addResponses(
            forPath: "/t", responses: [.template("{{#store.big}}{{#store.big}}{{/store.big}}{{/store.big}}", lifetime: .eternal)])
        mock.timeout = 120  // the step budget ends it, not the timeout
        let error = await #expect(throws: HTTPMockError.self) { try await mock.urlSession.reply("https://example.com/t") }
        #expect(
            error?.message.contains("MockResponse.template: rendering stopped after 4000000 steps") == true, "\(String(describing: error))")
        #expect(error?.message.contains("TemplateBudgetTests.swift") == true)
    }

    /// Two runaway templates under a 1 s timeout: both requests time out, a plain request is
    /// still answered while they run, and once they timed out the process stops burning CPU.
    static func runawayTemplates() async throws {
        let mock = HTTPMock()
        mock.logHandler = nil
        mock.timeout = 1
        mock.store["big"] = .array(Array(repeating: .integer(1), count: 20_000))
        mock.addResponses(
            forPath: "/t", responses: [.template("{{#store.big}}{{#store.big}}{{/store.big}}{{/store.big}}", lifetime: .eternal)])
        mock.addResponses(forPath: "/plain", responses: [.plaintext("ok", lifetime: .eternal)])
        let session = mock.urlSession
        async let first = Result(catching: { try await session.reply("https://example.com/t") })
        async let second = Result(catching: { try await session.reply("https://example.com/t") })
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await session.reply("https://example.com/plain").text == "ok")
        for outcome in await [first, second] {
            #expect(throws: URLError.self) { try outcome.get() }
        }
        // The renders stopped with their requests: the process is (nearly) idle now.
        try await Task.sleep(for: .milliseconds(500))
        let before = processCPUSeconds()
        try await Task.sleep(for: .seconds(2))
        let used = processCPUSeconds() - before
        #expect(used < 1.0, "the process used \(used) s of CPU in 2 s after both requests timed out")
    }

    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

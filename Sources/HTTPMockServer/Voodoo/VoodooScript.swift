#if Server
import Foundation
import HTTPMock

#if JavaScript
#if canImport(CJavaScriptCore)
import CJavaScriptCore
#else
import JavaScriptCore

/// Exported by JavaScriptCore, absent from its public headers.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_silgen_name("JSContextGroupSetExecutionTimeLimit")
func JSContextGroupSetExecutionTimeLimit(
    _ group: JSContextGroupRef, _ limit: Double,
    _ callback: (@convention(c) (JSContextRef?, UnsafeMutableRawPointer?) -> Bool)?, _ context: UnsafeMutableRawPointer?)
#endif

/// Runs Voodoo's JavaScript responses: one JavaScriptCore context per script, all in one
/// context group (one JavaScriptCore VM, so one heap per configuration) served by one serial
/// queue, so scripts never run on the event loop and a context never serves two requests at once.
final class VoodooScriptEngine: Sendable {
    let log: @Sendable (String) -> Void
    let group: VoodooScriptGroup

    init(log: @escaping @Sendable (String) -> Void) {
        self.log = log
        group = VoodooScriptGroup()
    }

    /// Compiles `source` (a syntax error or a missing `response` function fails here, naming the
    /// file and line) and returns the endpoint's dynamic response.
    func response(source: String, file: String, firstLine: Int, bodies: VoodooBodies, mock: HTTPMock) throws -> MockResponse {
        let context = try VoodooScriptContext(source: source, file: file, firstLine: firstLine, group: group, timeout: mock.timeout)
        let log = self.log
        return .dynamic(lifetime: .eternal) { [weak mock] request in
            guard let mock else { throw HTTPMockError(.instanceDeallocated, "The HTTPMock of this Voodoo endpoint no longer exists.") }
            let input = VoodooScriptInput(request: request, store: mock.store.snapshot)
            let output = await context.call(input, timeout: mock.timeout)
            for line in output.logs { log("console.log (\(URL(fileURLWithPath: file).lastPathComponent)): \(line)") }
            do {
                let result = try output.result.get()
                for (key, value) in result.cacheChanges { mock.store[key] = value }
                let answer = try VoodooScriptInput.answer(result.response, bodies: bodies)
                return try answer.response(for: request, mock: mock)
            } catch {
                let message = "\(file): the script failed: \((error as? HTTPMockError)?.message ?? "\(error)")"
                log(message)
                return .plaintext(message, status: 500)
            }
        }
    }
}

/// A JavaScriptCore context group (one VM) and the serial queue every call into it runs on.
final class VoodooScriptGroup: @unchecked Sendable {
    // @unchecked: `group` is used only on `queue` (and in init/deinit).
    let group: JSContextGroupRef
    let queue = DispatchQueue(label: "HTTPMock.Voodoo.script")

    init() { group = JSContextGroupCreate() }

    deinit { JSContextGroupRelease(group) }
}

/// One script's context, in its engine's group.
final class VoodooScriptContext: @unchecked Sendable {
    // @unchecked: `context` is used only on the group's queue (and in init/deinit).
    private let owner: VoodooScriptGroup
    private let context: JSGlobalContextRef
    private let file: String
    private var group: JSContextGroupRef { owner.group }
    private var queue: DispatchQueue { owner.queue }

    init(source: String, file: String, firstLine: Int, group owner: VoodooScriptGroup, timeout: TimeInterval) throws {
        self.file = file
        self.owner = owner
        context = JSGlobalContextCreateInGroup(owner.group, nil)
        Self.limit(owner.group, timeout)
        _ = try evaluate(VoodooScriptPrelude.source, url: "prelude.js", line: 1)
        do {
            _ = try evaluate(source, url: file, line: firstLine)
            let kind = try evaluate("typeof response", url: file, line: firstLine)
            guard kind == "function" else {
                throw HTTPMockError(.mockTree, "loadVoodoo: \(file):\(firstLine): the script defines no function response(request, cache)")
            }
        } catch let error as ScriptError {
            let line = error.line.map { ":\($0)" } ?? ""
            throw HTTPMockError(.mockTree, "loadVoodoo: \(file)\(line): the script does not load: \(error.message)")
        }
    }

    deinit { JSGlobalContextRelease(context) }

    private static func limit(_ group: JSContextGroupRef, _ timeout: TimeInterval) {
        JSContextGroupSetExecutionTimeLimit(group, max(timeout, 0.001), { _, _ in true }, nil)
    }

    struct ScriptError: Error, CustomStringConvertible {
        var message: String
        var line: Int?
        var description: String { message }
    }

    /// Calls `response(request, cache)` on the context's queue.
    func call(_ input: VoodooScriptInput, timeout: TimeInterval) async -> VoodooScriptOutput {
        await withCheckedContinuation { continuation in
            queue.async {
                Self.limit(self.group, timeout)
                let started = Date()
                var output = VoodooScriptOutput(result: .failure(ScriptError(message: "no result")), logs: [])
                do {
                    let text = try self.evaluate("__voodooCall(\(input.requestJSON), \(input.cacheJSON))", url: self.file, line: 1)
                    output.result = Result { try input.decode(text) }
                } catch var error as ScriptError {
                    if Date().timeIntervalSince(started) >= timeout * 0.9 {
                        error.message = "the script ran past the instance timeout (\(timeout) s) and was stopped: \(error.message)"
                    }
                    output.result = .failure(error)
                } catch {
                    output.result = .failure(error)
                }
                if let logs = try? self.evaluate("JSON.stringify(__voodooLogs)", url: self.file, line: 1),
                    let lines = try? JSONDecoder().decode([String].self, from: Data(logs.utf8))
                {
                    output.logs = lines
                }
                continuation.resume(returning: output)
            }
        }
    }

    /// Evaluates `source`, returning its value as a string.
    private func evaluate(_ source: String, url: String, line: Int) throws -> String {
        let script = JSStringCreateWithUTF8CString(source)
        let sourceURL = JSStringCreateWithUTF8CString(url)
        defer {
            JSStringRelease(script)
            JSStringRelease(sourceURL)
        }
        var exception: JSValueRef?
        let value = JSEvaluateScript(context, script, nil, sourceURL, Int32(line), &exception)
        if let exception {
            var errorLine: Int?
            if let object = JSValueToObject(context, exception, nil) {
                let name = JSStringCreateWithUTF8CString("line")
                let lineValue = JSObjectGetProperty(context, object, name, nil)
                JSStringRelease(name)
                if let lineValue, JSValueIsNumber(context, lineValue) { errorLine = Int(JSValueToNumber(context, lineValue, nil)) }
            }
            throw ScriptError(message: string(exception), line: errorLine)
        }
        guard let value else { throw ScriptError(message: "the script returned nothing") }
        return string(value)
    }

    private func string(_ value: JSValueRef) -> String {
        guard let copy = JSValueToStringCopy(context, value, nil) else { return "" }
        defer { JSStringRelease(copy) }
        let size = JSStringGetMaximumUTF8CStringSize(copy)
        var buffer = [CChar](repeating: 0, count: size)
        JSStringGetUTF8CString(copy, &buffer, size)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#else
/// Without the `JavaScript` trait there is no engine: a config with a script fails to load.
final class VoodooScriptEngine: Sendable {
    func response(source: String, file: String, firstLine: Int, bodies: VoodooBodies, mock: HTTPMock) throws -> MockResponse {
        throw HTTPMockError(.mockTree, "loadVoodoo: \(file): no JavaScript engine in this build")
    }
}
#endif

/// What a script call returns: the response (as JSON) and the cache keys it changed.
struct VoodooScriptResult: Sendable {
    var response: JSONValue
    var cacheChanges: [String: JSONValue?]
}

struct VoodooScriptOutput: Sendable {
    var result: Result<VoodooScriptResult, any Error>
    var logs: [String]
}
#endif

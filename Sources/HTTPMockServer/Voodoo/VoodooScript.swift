#if Server
import Foundation
import HTTPMock

#if JavaScript
import Logging
import NIOConcurrencyHelpers
#if canImport(CJavaScriptCore)
import CJavaScriptCore
#else
import JavaScriptCore
#endif
#endif

/// A script that does not load (a syntax error, no `response` function, a top level that
/// throws): its endpoint answers 500 with `message`, which names the file and the line.
struct VoodooScriptLoadError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

#if JavaScript
/// Runs Voodoo's JavaScript responses on JavaScriptCore: one context per script, all in one
/// ``VoodooScriptRunner`` (one virtual machine and thread per configuration).
final class VoodooScriptEngine: Sendable {
    /// The logger of the instance's messages now (``HTTPMock/HTTPMock/serverLogger``); `nil`:
    /// none are written.
    let logger: @Sendable () -> Logger?
    /// Made by the first script that loads: a configuration without scripts never loads
    /// JavaScriptCore (idle memory and start-up time stay low).
    private let madeRunner = NIOLockedValueBox<VoodooScriptRunner?>(nil)

    init(logger: @escaping @Sendable () -> Logger?) {
        self.logger = logger
    }

    /// The configuration's runner, made on first use.
    /// - Throws: ``VoodooScriptLoadError`` naming the library when JavaScriptCore cannot be loaded.
    private func runner(for file: String) throws -> VoodooScriptRunner {
        try madeRunner.withLockedValue { runner in
            if let runner { return runner }
            guard let made = VoodooScriptRunner() else {
                throw VoodooScriptLoadError(message: "\(file): \(VoodooJavaScriptCore.loadProblem ?? "JavaScriptCore could not be loaded")")
            }
            runner = made
            return made
        }
    }

    /// Compiles `source` and returns the endpoint's dynamic response.
    /// - Throws: ``VoodooScriptLoadError`` when the script does not load.
    func response(source: String, file: String, firstLine: Int, bodies: VoodooBodies, mock: HTTPMock) throws -> MockResponse {
        let runner = try runner(for: file)
        let name = URL(fileURLWithPath: file).lastPathComponent
        let logger = self.logger
        let sink = VoodooScriptLogSink { line in logger()?.info("console.log (\(name)): \(line)") }
        let script = VoodooScriptContext(source: source, file: file, firstLine: firstLine, runner: runner, sink: sink)
        // A top level that never ends is a script that does not load: bounded here too.
        let loadTime = min(mock.timeout, 5)
        if let problem = runner.runAndWait(timeout: loadTime, fallback: "the script could not be run", { job in script.load(job) }) {
            throw VoodooScriptLoadError(message: problem)
        }
        return .dynamic(lifetime: .eternal) { [weak mock] request in
            guard let mock else { throw HTTPMockError(.instanceDeallocated, "The HTTPMock of this Voodoo endpoint no longer exists.") }
            let input = VoodooScriptInput(request: request)
            let output = await runner.run(timeout: mock.timeout, ifCancelled: VoodooScriptOutput.cancelled) { job in
                script.call(input, store: mock.store, job: job)
            }
            do {
                let response = try output.result.get()
                let answer = try VoodooScriptInput.answer(response, bodies: bodies)
                return try answer.response(for: request, mock: mock)
            } catch {
                var reason = (error as? HTTPMockError)?.message ?? "\(error)"
                if reason.hasPrefix("loadVoodoo: ") { reason.removeFirst("loadVoodoo: ".count) }
                let message = "\(file): the script failed: \(reason)"
                logger()?.error("\(message)")
                return .plaintext(message, status: .internalServerError)
            }
        }
    }
}

/// One script's context. Built when the script loads, kept between calls (a script's globals
/// live on, as functions it defines), rebuilt after a run was stopped (its state is then
/// unknown, and what it allocated is collected). Used only on its runner's thread.
final class VoodooScriptContext: @unchecked Sendable {
    // @unchecked: `context` and `function` are used only on the runner's queue (and in deinit).
    private let source: String
    private let file: String
    private let firstLine: Int
    private let runner: VoodooScriptRunner
    private let sink: VoodooScriptLogSink
    private var context: JSGlobalContextRef?
    private var function: JSObjectRef?

    init(source: String, file: String, firstLine: Int, runner: VoodooScriptRunner, sink: VoodooScriptLogSink) {
        self.source = source
        self.file = file
        self.firstLine = firstLine
        self.runner = runner
        self.sink = sink
    }

    deinit {
        if let context { JSGlobalContextRelease(context) }
    }

    /// Builds the context; the reason when the script does not load (file and line first).
    func load(_ job: VoodooScriptRunner.Job) -> String? {
        if let context {
            JSGlobalContextRelease(context)
            self.context = nil
            function = nil
        }
        let context = JSGlobalContextCreateInGroup(runner.group, nil)
        guard let context else { return "\(file):\(firstLine): no JavaScript context could be made" }
        sink.install(in: context)
        if case .failure(let error) = VoodooJavaScriptCore.evaluate(VoodooScriptPrelude.source, in: context, url: "prelude.js", line: 1) {
            JSGlobalContextRelease(context)
            return "\(file):\(firstLine): the Voodoo prelude failed: \(error.message)"
        }
        let script = JSStringCreateWithUTF8CString(source)
        let url = JSStringCreateWithUTF8CString(file)
        var exception: JSValueRef?
        let syntaxOK = JSCheckScriptSyntax(context, script, url, Int32(clamping: firstLine), &exception)
        JSStringRelease(script)
        JSStringRelease(url)
        if !syntaxOK {
            let error = exception.map { VoodooJavaScriptCore.ScriptError($0, in: context) }
            JSGlobalContextRelease(context)
            return "\(file):\(error?.line ?? firstLine): the script does not compile: \(error?.message ?? "a syntax error")"
        }
        if case .failure(let error) = VoodooJavaScriptCore.evaluate(source, in: context, url: file, line: firstLine) {
            JSGlobalContextRelease(context)
            if let reason = job.stopReason { return "\(file):\(firstLine): the script's top level did not finish: \(reason)" }
            return "\(file):\(error.line ?? firstLine): the script's top level throws: \(error.message)"
        }
        guard case .success(let kind) = VoodooJavaScriptCore.evaluate("typeof response", in: context, url: file, line: firstLine),
            VoodooJavaScriptCore.string(kind, in: context) == "function",
            case .success(let call) = VoodooJavaScriptCore.evaluate("__voodooCall", in: context, url: "prelude.js", line: 1),
            let function = JSValueToObject(context, call, nil)
        else {
            JSGlobalContextRelease(context)
            return "\(file):\(firstLine): the script defines no function response(request, cache)"
        }
        self.context = context
        self.function = function
        return nil
    }

    /// Calls `response(request, cache)`: the cache is `store` as it is now, written back when
    /// the call returns, all within the runner's turn.
    func call(_ input: VoodooScriptInput, store: MockStore, job: VoodooScriptRunner.Job) -> VoodooScriptOutput {
        if context == nil, let problem = load(job) {
            return VoodooScriptOutput(result: .failure(VoodooScriptLoadError(message: problem)))
        }
        guard let context, let function else {
            return VoodooScriptOutput(result: .failure(VoodooScriptLoadError(message: "\(file): no context")))
        }
        let snapshot = store.snapshot
        var output = VoodooScriptOutput(result: .failure(VoodooScriptLoadError(message: "no result")))
        let result = invoke(function, in: context, input: input, cache: VoodooYAML.text(of: .object(snapshot)))
        switch result {
        case .success(let text):
            do {
                let (response, changes) = try VoodooScriptInput.decode(text, store: snapshot)
                store.apply(changes)
                output.result = .success(response)
            } catch {
                output.result = .failure(error)
            }
        case .failure(let error):
            if let reason = job.stopReason {
                output.result = .failure(VoodooScriptLoadError(message: reason))
                // Its state is unknown and what it allocated must go: a fresh context next time.
                JSGlobalContextRelease(context)
                self.context = nil
                self.function = nil
                VoodooJavaScriptCore.collectGarbage(in: runner.group)
            } else {
                output.result = .failure(error)
            }
        }
        return output
    }

    private func invoke(
        _ function: JSObjectRef, in context: JSGlobalContextRef, input: VoodooScriptInput, cache: String
    ) -> Result<String, VoodooJavaScriptCore.ScriptError> {
        let requestText = JSStringCreateWithUTF8CString(input.requestJSON)
        let cacheText = JSStringCreateWithUTF8CString(cache)
        defer {
            JSStringRelease(requestText)
            JSStringRelease(cacheText)
        }
        guard let request = JSValueMakeFromJSONString(context, requestText), let cacheValue = JSValueMakeFromJSONString(context, cacheText)
        else { return .failure(.init(message: "the request could not be given to the script")) }
        let arguments: [JSValueRef?] = [request, cacheValue, body(input.body, in: context)]
        var exception: JSValueRef?
        let value = arguments.withUnsafeBufferPointer { buffer in
            JSObjectCallAsFunction(context, function, nil, buffer.count, buffer.baseAddress, &exception)
        }
        if let exception { return .failure(.init(exception, in: context)) }
        guard let value, let text = JSValueToStringCopy(context, value, nil) else {
            return .failure(.init(message: "the script's answer could not be read"))
        }
        defer { JSStringRelease(text) }
        // The prelude refuses larger answers; a length in UTF-16 units, read without a copy.
        guard JSStringGetLength(text) <= VoodooScriptPrelude.maximumAnswerLength + 65_536 else {
            return .failure(.init(message: "the script's answer is larger than \(VoodooScriptPrelude.maximumAnswerLength) characters"))
        }
        return .success(VoodooJavaScriptCore.string(text))
    }

    /// The request body as an `ArrayBuffer` (Voodoo's `request.body`), `null` without a body.
    private func body(_ data: Data?, in context: JSGlobalContextRef) -> JSValueRef? {
        guard let data else { return JSValueMakeNull(context) }
        guard let bytes = malloc(max(data.count, 1)) else { return JSValueMakeNull(context) }
        data.copyBytes(to: bytes.assumingMemoryBound(to: UInt8.self), count: data.count)
        let buffer = JSObjectMakeArrayBufferWithBytesNoCopy(context, bytes, data.count, { bytes, _ in free(bytes) }, nil, nil)
        if buffer == nil { free(bytes) }
        return buffer ?? JSValueMakeNull(context)
    }

}

/// Where a script's `console.log` lines go, at once: the native `__voodooLog` of its context.
final class VoodooScriptLogSink: @unchecked Sendable {
    // @unchecked: immutable after init.
    let write: @Sendable (String) -> Void

    init(_ write: @escaping @Sendable (String) -> Void) { self.write = write }

    /// Defines the global `__voodooLog(line)` in `context`; the context's script keeps `self` alive.
    func install(in context: JSGlobalContextRef) {
        var definition = kJSClassDefinitionEmpty
        definition.callAsFunction = voodooLogCallback
        let logClass = JSClassCreate(&definition)
        defer { JSClassRelease(logClass) }
        let function = JSObjectMake(context, logClass, Unmanaged.passUnretained(self).toOpaque())
        let name = JSStringCreateWithUTF8CString("__voodooLog")
        defer { JSStringRelease(name) }
        JSObjectSetProperty(context, JSContextGetGlobalObject(context), name, function, JSPropertyAttributes(kJSPropertyAttributeNone), nil)
    }
}

/// `__voodooLog(line)`: the function object's private data is its ``VoodooScriptLogSink``.
private func voodooLogCallback(
    _ context: JSContextRef?, _ function: JSObjectRef?, _ this: JSObjectRef?, _ count: Int, _ arguments: UnsafePointer<JSValueRef?>?,
    _ exception: UnsafeMutablePointer<JSValueRef?>?
) -> JSValueRef? {
    guard let context, let function, let sink = JSObjectGetPrivate(function), count > 0, let value = arguments?[0] else {
        return JSValueMakeUndefined(context)
    }
    Unmanaged<VoodooScriptLogSink>.fromOpaque(sink).takeUnretainedValue().write(VoodooJavaScriptCore.string(value, in: context))
    return JSValueMakeUndefined(context)
}
#else
/// Without the `JavaScript` trait there is no engine: a config with a script fails to load.
final class VoodooScriptEngine: Sendable {
    func response(source: String, file: String, firstLine: Int, bodies: VoodooBodies, mock: HTTPMock) throws -> MockResponse {
        throw HTTPMockError(.mockTree, "loadVoodoo: \(file): no JavaScript engine in this build")
    }
}
#endif

/// What a script call returns: the response (as JSON).
struct VoodooScriptOutput: Sendable {
    var result: Result<JSONValue, any Error>

    /// The output of a call whose request ended before its turn: no script ran.
    static let cancelled = VoodooScriptOutput(
        result: .failure(VoodooScriptLoadError(message: "the request ended before its script could run; the script did not run")))
}
#endif

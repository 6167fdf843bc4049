#if Server && JavaScript
import Foundation

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

/// What the process does once for JavaScriptCore, and what it reads of it.
enum VoodooJavaScriptCore {
    /// Why scripts cannot run in this process, or `nil` when JavaScriptCore is ready; worked out
    /// once, on first use (the first script that loads), never at start-up.
    ///
    /// On Linux the library is opened here (``HTTPMockLoadJavaScriptCore``: the soname, or
    /// `HTTPMOCK_JAVASCRIPTCORE_LIBRARY`), not linked: a process that runs no script never loads
    /// it and its dependencies. Then WebAssembly goes off for the whole process, before its first
    /// JavaScriptCore virtual machine: a WebAssembly loop never checks the execution time limit
    /// (measured: `(loop br 0)` runs forever under a 50 ms limit), so a script could hold its
    /// engine for good. Setting an option after the first machine exists crashes JavaScriptCore,
    /// hence once, here, before any ``VoodooScriptRunner`` makes its group. Apple's framework is
    /// linked and has no option API: the prelude removes `WebAssembly` from every context instead
    /// (both builds do).
    static let loadProblem: String? = {
        #if canImport(CJavaScriptCore)
        var error: UnsafePointer<CChar>?
        guard HTTPMockLoadJavaScriptCore(&error) != 0 else {
            let reason = error.map { String(cString: $0) } ?? "unknown error"
            return "JavaScriptCore could not be loaded, so this script cannot run (\(reason)): "
                + "install the runtime package libjavascriptcoregtk-4.1-0 (apt-get install libjavascriptcoregtk-4.1-0), "
                + "or name the library file in HTTPMOCK_JAVASCRIPTCORE_LIBRARY"
        }
        _ = jsc_options_set_boolean("useWasm", 0)
        #endif
        return nil
    }()

    /// The process's resident memory in bytes (Linux: `/proc/self/statm`); `nil` elsewhere.
    static func residentBytes() -> Int? {
        #if os(Linux)
        guard let file = fopen("/proc/self/statm", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 128)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let fields = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        return nil
        #endif
    }

    /// Collects the garbage of `group` now and gives free memory back to the system, after a
    /// script was stopped: what it allocated must not stay resident until the next collection.
    static func collectGarbage(in group: JSContextGroupRef) {
        let context = JSGlobalContextCreateInGroup(group, nil)
        #if canImport(CJavaScriptCore)
        JSSynchronousGarbageCollectForDebugging(context)
        HTTPMockReleaseJavaScriptCoreFreeMemory()
        #else
        JSGarbageCollect(context)
        #endif
        JSGlobalContextRelease(context)
    }

    /// `value` as a Swift string.
    static func string(_ value: JSValueRef, in context: JSContextRef) -> String {
        guard let copy = JSValueToStringCopy(context, value, nil) else { return "" }
        defer { JSStringRelease(copy) }
        return string(copy)
    }

    /// A JavaScriptCore string as a Swift string (one UTF-8 copy).
    static func string(_ string: JSStringRef) -> String {
        let size = JSStringGetMaximumUTF8CStringSize(string)
        return String(unsafeUninitializedCapacity: size) { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                max(0, JSStringGetUTF8CString(string, chars.baseAddress, size) - 1)
            }
        }
    }

    /// Evaluates `source` in `context`, returning its value or the exception's message and line.
    static func evaluate(_ source: String, in context: JSGlobalContextRef, url: String, line: Int) -> Result<JSValueRef, ScriptError> {
        let script = JSStringCreateWithUTF8CString(source)
        let sourceURL = JSStringCreateWithUTF8CString(url)
        defer {
            JSStringRelease(script)
            JSStringRelease(sourceURL)
        }
        var exception: JSValueRef?
        let value = JSEvaluateScript(context, script, nil, sourceURL, Int32(clamping: line), &exception)
        if let exception { return .failure(ScriptError(exception, in: context)) }
        guard let value else { return .failure(ScriptError(message: "the script produced no value")) }
        return .success(value)
    }

    /// An exception thrown by a script: its text and, when it has one, its line.
    struct ScriptError: Error, CustomStringConvertible {
        var message: String
        var line: Int?
        var description: String { message }

        init(message: String, line: Int? = nil) {
            self.message = message
            self.line = line
        }

        init(_ exception: JSValueRef, in context: JSContextRef) {
            message = VoodooJavaScriptCore.string(exception, in: context)
            line = nil
            if let object = JSValueToObject(context, exception, nil) {
                let name = JSStringCreateWithUTF8CString("line")
                let lineValue = JSObjectGetProperty(context, object, name, nil)
                JSStringRelease(name)
                // A script can throw `{line: 1e300}`: the conversion is checked, never trapped.
                if let lineValue, JSValueIsNumber(context, lineValue),
                    let number = Int(exactly: JSValueToNumber(context, lineValue, nil).rounded(.towardZero)), number > 0
                {
                    line = number
                }
            }
        }
    }
}
#endif

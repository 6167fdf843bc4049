import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What FoundationNetworking keeps inside a `URLSessionTask` and does not show a protocol,
/// read by reflection (`Mirror`). Every accessor degrades to `nil` if a future
/// FoundationNetworking renames the field; the Linux notes
/// (Docs/HTTPMock.docc/LinuxNotes.md) list what then stops working.
///
/// Verified on Swift 6.3.1 (Linux): `URLSessionTask` has `workQueue: DispatchQueue` (the
/// serial queue `startLoading` runs on; every client call must happen on it), `session:
/// URLSession?`, and `knownBody: _Body?` (`.data(DispatchData)` / `.file(URL)` for upload
/// tasks, whose bodies are *not* in the request). `URLSession` has `taskRegistry` whose
/// `behaviours: [Int: _Behaviour]` says whether a task reports to a delegate
/// (`callDelegate`) or to a completion handler (`dataCompletionHandler`,
/// `downloadCompletionHandler`; async `data(for:)` is one of these).
enum TaskInternals {
    /// The first stored property named `label` in `subject` or its superclasses.
    static func field(_ label: String, of subject: Any) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: subject)
        while let current = mirror {
            for child in current.children where child.label == label {
                return child.value
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// Unwraps `Optional<T>` held in an `Any`.
    static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first?.value
    }

    static func workQueue(of task: URLSessionTask) -> DispatchQueue? {
        field("workQueue", of: task) as? DispatchQueue
    }

    static func session(of task: URLSessionTask) -> URLSession? {
        unwrap(field("session", of: task)) as? URLSession
    }

    /// The body an upload task was given (`upload(for:from:)`, `uploadTask(with:fromFile:)`).
    static func uploadBody(of task: URLSessionTask) -> Data? {
        guard let body = unwrap(field("knownBody", of: task)) else { return nil }
        let mirror = Mirror(reflecting: body)
        guard let child = mirror.children.first else { return nil }
        switch child.label {
        case "data":
            if let data = child.value as? DispatchData { return Data(data) }
            return child.value as? Data
        case "file":
            guard let url = child.value as? URL else { return nil }
            return try? Data(contentsOf: url)
        default:
            return nil
        }
    }

    /// Whether `task` reports to a delegate (and so receives every `didLoad` chunk) rather
    /// than to a completion handler or async continuation (which keep only the last chunk).
    static func reportsToDelegate(_ task: URLSessionTask, in session: URLSession) -> Bool {
        guard let registry = field("taskRegistry", of: session),
            let behaviours = field("behaviours", of: registry) as? [Int: Any],
            let behaviour = behaviours[task.taskIdentifier]
        else { return false }
        let mirror = Mirror(reflecting: behaviour)
        let caseName = mirror.children.first?.label ?? String(describing: behaviour)
        return caseName == "callDelegate"
    }
}

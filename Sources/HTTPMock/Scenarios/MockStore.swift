/// A thread-safe key–value store of JSON values, one per ``HTTPMock`` instance
/// (``HTTPMock/store``): the shared state of dynamic handlers and templates, like Voodoo's cache.
///
/// ```swift
/// mock.store["user"] = "Ada"                      // string, number, bool, array and object literals
/// mock.addResponses(forPath: "/items", method: .post, responses: [.dynamic(lifetime: .eternal) { request in
///     mock.store["last"] = .string(request.formParameters["name"] ?? "")
///     return .empty(status: .created)
/// }])
/// ```
///
/// Templates read it as `{{store.key}}` when a request is served. ``HTTPMock/clearQueues()``
/// empties it.
public final class MockStore: Sendable {
    private let values = Locked([String: JSONValue]())

    init() {}

    /// The value stored under `key`; assigning `nil` removes it.
    ///
    /// - Parameter key: The key; templates reach it as `{{store.key}}`.
    public subscript(key: String) -> JSONValue? {
        get { values.withLock { $0[key] } }
        set { values.withLock { $0[key] = newValue } }
    }

    /// Every stored key and value, as one consistent copy.
    public var snapshot: [String: JSONValue] { values.withLock { $0 } }

    /// Sets or removes (`nil`) several keys at once: a concurrent reader sees all of the changes
    /// or none (a Voodoo script's `cache` written back when its call returns).
    package func apply(_ changes: [String: JSONValue?]) {
        guard !changes.isEmpty else { return }
        values.withLock { values in
            for (key, value) in changes { values[key] = value }
        }
    }

    /// Removes every value.
    public func removeAll() {
        let released = values.withLock { values -> [String: JSONValue] in
            let old = values
            values = [:]
            return old
        }
        withExtendedLifetime(released) {}
    }
}

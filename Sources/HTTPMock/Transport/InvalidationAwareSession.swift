import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Making `HTTPMock.urlSession` survive a user's `finishTasksAndInvalidate()` /
/// `invalidateAndCancel()` (common in `tearDown`).
///
/// FoundationNetworking kills the process (a fatal error, "Session invalidated") when a task is
/// created on an invalidated session, and it sets its `invalidated` flag asynchronously on the
/// session's work queue, so neither reflection nor the delegate's `didBecomeInvalidWithError`
/// can tell in time that the session handed out next must be a new one. What is synchronous is
/// the call itself: the session `urlSession` makes is this subclass, which tells its owner
/// before invalidating, so the owner's next `urlSession` makes a fresh session.
enum InvalidationAwareSession {
    static func make(
        configuration: URLSessionConfiguration,
        onInvalidate: @escaping @Sendable (URLSession) -> Void
    ) -> URLSession {
        #if canImport(FoundationNetworking)
        let session = Subclass(configuration: configuration)
        session.onInvalidate.withLock { $0 = InvalidationHandler(handle: onInvalidate) }
        return session
        #else
        // Apple's URLSession cannot be subclassed through `init(configuration:)`.
        return URLSession(configuration: configuration)
        #endif
    }

    /// A closure kept in a struct: stored directly in lock-protected state it would be re-wrapped
    /// on every read on this toolchain.
    struct InvalidationHandler: Sendable {
        let handle: @Sendable (URLSession) -> Void
    }

    #if canImport(FoundationNetworking)
    final class Subclass: URLSession, @unchecked Sendable {
        // @unchecked: the only added state is a `Locked`.
        let onInvalidate = Locked<InvalidationHandler?>(nil)

        override func finishTasksAndInvalidate() {
            notifyOwner()
            super.finishTasksAndInvalidate()
        }

        override func invalidateAndCancel() {
            notifyOwner()
            super.invalidateAndCancel()
        }

        private func notifyOwner() {
            let handler = onInvalidate.withLock { handler -> InvalidationHandler? in
                defer { handler = nil }
                return handler
            }
            handler?.handle(self)
        }
    }
    #endif
}

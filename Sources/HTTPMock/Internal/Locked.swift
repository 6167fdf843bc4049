#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value that is only reachable while holding its lock.
///
/// One lock per logical owner, one critical section per logical operation: callers
/// do everything that must be atomic (for example *match and pop*) inside a single
/// `withLock`. Never call a `URLProtocolClient` or a user closure from inside it.
///
/// The state and the lock live in one allocation (a `ManagedBuffer`), and `Locked` itself is a
/// struct around it: every request makes a few of these, so `NSLock`'s extra objects, and then
/// a class wrapping the buffer, showed up in the per-request overhead. Copies share the buffer,
/// so a `Locked` behaves as a reference.
struct Locked<State>: @unchecked Sendable {
    // @unchecked: the state is only reached inside `withLock`, which holds the lock.
    private let buffer: LockedBuffer<State>

    init(_ state: State) {
        buffer = LockedBuffer.create(state)
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try buffer.withLock(body)
    }
}

#if canImport(Darwin)
private typealias PlatformLock = os_unfair_lock
#else
private typealias PlatformLock = pthread_mutex_t
#endif

private final class LockedBuffer<State>: ManagedBuffer<State, PlatformLock> {
    static func create(_ state: State) -> LockedBuffer<State> {
        let buffer = self.create(minimumCapacity: 1) { _ in state }
        buffer.withUnsafeMutablePointerToElements { lock in
            #if canImport(Darwin)
            lock.initialize(to: os_unfair_lock())
            #else
            lock.initialize(to: pthread_mutex_t())
            // Adaptive: a thread that finds the lock taken spins briefly before it sleeps. The
            // critical sections are short (a route lookup and a journal append), and the server's
            // event loops, one per core, take the registry's lock for every request: sleeping
            // and waking in the kernel cost more than the wait (LinuxNotes.md).
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            defer { pthread_mutexattr_destroy(&attributes) }
            #if canImport(Glibc)
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
            #endif
            let result = pthread_mutex_init(lock, &attributes)
            precondition(result == 0, "pthread_mutex_init failed: \(result)")
            #endif
        }
        // `unsafeDowncast` is safe: `create` on a subclass returns that subclass.
        return unsafeDowncast(buffer, to: LockedBuffer<State>.self)
    }

    deinit {
        withUnsafeMutablePointers { _, lock in
            #if !canImport(Darwin)
            pthread_mutex_destroy(lock)
            #endif
            _ = lock
        }
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { state, lock in
            #if canImport(Darwin)
            os_unfair_lock_lock(lock)
            defer { os_unfair_lock_unlock(lock) }
            #else
            let locked = pthread_mutex_lock(lock)
            precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
            defer {
                let unlocked = pthread_mutex_unlock(lock)
                precondition(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
            }
            #endif
            return try body(&state.pointee)
        }
    }
}

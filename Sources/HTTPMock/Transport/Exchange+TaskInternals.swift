import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Exchange's task internals: the work queue and session, resolved once from the task.

extension Exchange {
    // MARK: - Task internals, resolved once

    var workQueue: DispatchQueue? {
        if let cached = state.withLock({ $0.workQueue }) { return cached }
        let queue = task.flatMap(TaskInternals.workQueue(of:))
        state.withLock { $0.workQueue = .some(queue) }
        return queue
    }

    var session: URLSession? {
        if let cached = state.withLock({ $0.session }) { return cached }
        let session = task.flatMap(TaskInternals.session(of:))
        state.withLock { $0.session = .some(session) }
        return session
    }

    var reportsToDelegate: Bool {
        guard let task, let session else { return false }
        return TaskInternals.reportsToDelegate(task, in: session)
    }
}

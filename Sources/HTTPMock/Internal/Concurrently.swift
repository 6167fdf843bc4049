import Dispatch
import Foundation

/// Work on every core for loaders of thousands of independent items (start-up: a
/// WireMock root of 10,000 mappings is parsed and compiled file by file, and no file depends
/// on another).
package enum Concurrently {
    /// Below this many items, the work runs on the calling thread: handing it out costs more.
    package static let threshold = 64

    /// `transform` of every item, in the items' order, computed on every core. The items are cut
    /// into contiguous runs; each run gets its own `context`, evaluated once per run (a cache
    /// `transform` may fill). The
    /// first item in order whose transform throws is the error thrown; the others finish.
    package static func map<Item, Context, Output, Failure: Error>(
        _ items: [Item], context makeContext: @autoclosure () -> Context, _ transform: (inout Context, Item) throws(Failure) -> Output
    ) throws(Failure) -> [Output] {
        guard items.count >= threshold else {
            var context = makeContext()
            var outputs: [Output] = []
            outputs.reserveCapacity(items.count)
            for item in items { outputs.append(try transform(&context, item)) }
            return outputs
        }
        // Contiguous runs of items, handed out one at a time to the calling thread and to
        // threads of their own. Not `DispatchQueue.concurrentPerform`: on Linux its helpers run
        // on the global queues that also carry Swift's cooperative pool, so a caller on that pool
        // (a load inside an async task) could wait for helpers behind the very tasks it blocks.
        // Threads of our own always run. (Suspected while chasing a stall of the test suite;
        // `callersOnThePool` did not reproduce a wait, and the stall had other causes.)
        let workers = min(ProcessInfo.processInfo.activeProcessorCount, items.count / threshold)
        let runs = min(items.count, max(1, workers) * 4)
        let results = UnsafeMutableBufferPointer<Result<Output, Failure>?>.allocate(capacity: items.count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        let nextRun = Locked(0)
        // Each index is written by exactly one run, and read only after every worker finished.
        nonisolated(unsafe) let shared = results
        nonisolated(unsafe) let items = items
        withoutActuallyEscaping(transform) { transform in
            withoutActuallyEscaping(makeContext) { makeContext in
                nonisolated(unsafe) let transform = transform
                nonisolated(unsafe) let makeContext = makeContext
                let work: @Sendable () -> Void = {
                    while true {
                        let run = nextRun.withLock { next in
                            defer { next += 1 }
                            return next
                        }
                        guard run < runs else { return }
                        var context = makeContext()
                        for index in (items.count * run / runs)..<(items.count * (run + 1) / runs) {
                            do throws(Failure) {
                                shared[index] = .success(try transform(&context, items[index]))
                            } catch {
                                shared[index] = .failure(error)
                            }
                        }
                    }
                }
                // The threads reach `work` through `job`, which lets it go once they are done:
                // a thread object may outlive its block, and the closures must not escape.
                let job = Job(work)
                let finished = DispatchSemaphore(value: 0)
                for _ in 1..<max(1, workers) {
                    Thread.detachNewThread {
                        job.run()
                        finished.signal()
                    }
                }
                work()
                for _ in 1..<max(1, workers) { finished.wait() }
                job.release()
            }
        }
        var outputs: [Output] = []
        outputs.reserveCapacity(items.count)
        for result in results {
            switch result {
            case .success(let output): outputs.append(output)
            case .failure(let error): throw error
            case nil: preconditionFailure("Concurrently.map: an item was not transformed")
            }
        }
        return outputs
    }

    /// A worker's loop, held until every thread has run it.
    private final class Job: @unchecked Sendable {
        // @unchecked: `work` is set at creation and cleared after every thread has finished.
        private var work: (@Sendable () -> Void)?

        init(_ work: @escaping @Sendable () -> Void) { self.work = work }

        func run() { work?() }

        func release() { work = nil }
    }

    /// `transform` of every item, in order, on every core (``map(_:context:_:)`` without a
    /// context).
    package static func map<Item, Output, Failure: Error>(
        _ items: [Item], _ transform: (Item) throws(Failure) -> Output
    ) throws(Failure) -> [Output] {
        try map(items, context: ()) { (_: inout Void, item: Item) throws(Failure) -> Output in try transform(item) }
    }
}

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
        // Contiguous runs of items, several per core, shared out by `concurrentPerform`; its
        // caller takes runs too, so it never waits for a helper to start. Concurrently once ran
        // threads of its own, for fear that helpers on the global queues would wait behind the
        // cooperative pool's blocked callers. Not so on Linux with Swift 6.3.1: a caller on the
        // pool whose other thread and 7 more tasks were blocked finished 4,000 items on 2
        // threads in 0.03–0.16 s, and 20 rounds of 16 concurrent 256-item maps from the pool
        // (ConcurrentlyTests.callersOnThePool, four times over) took 0.04–0.05 s, the slowest
        // round 20 ms, on a 2-core machine busy with a build.
        let workers = min(ProcessInfo.processInfo.activeProcessorCount, items.count / threshold)
        let runs = min(items.count, max(1, workers) * 4)
        let results = UnsafeMutableBufferPointer<Result<Output, Failure>?>.allocate(capacity: items.count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        // Each index is written by exactly one run, and read only after every run finished;
        // `concurrentPerform` returns only then, so the closures it runs never escape.
        nonisolated(unsafe) let shared = results
        nonisolated(unsafe) let items = items
        withoutActuallyEscaping(transform) { transform in
            withoutActuallyEscaping(makeContext) { makeContext in
                nonisolated(unsafe) let transform = transform
                nonisolated(unsafe) let makeContext = makeContext
                DispatchQueue.concurrentPerform(iterations: runs) { run in
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

    /// `transform` of every item, in order, on every core (``map(_:context:_:)`` without a
    /// context).
    package static func map<Item, Output, Failure: Error>(
        _ items: [Item], _ transform: (Item) throws(Failure) -> Output
    ) throws(Failure) -> [Output] {
        try map(items, context: ()) { (_: inout Void, item: Item) throws(Failure) -> Output in try transform(item) }
    }
}

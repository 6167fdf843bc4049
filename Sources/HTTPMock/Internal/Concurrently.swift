import Dispatch
import Foundation

/// Work on every core for loaders of thousands of independent items (SPEC §23, start-up: a
/// WireMock root of 10,000 mappings is parsed and compiled file by file, and no file depends
/// on another).
package enum Concurrently {
    /// Below this many items, the work runs on the calling thread: handing it out costs more.
    package static let threshold = 64

    /// `transform` of every item, in the items' order, computed on every core. Each worker takes
    /// a contiguous run of items and gets its own `context`, evaluated once per worker (a cache
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
        let slices = min(items.count, ProcessInfo.processInfo.activeProcessorCount * 4)
        let results = UnsafeMutableBufferPointer<Result<Output, Failure>?>.allocate(capacity: items.count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        // Each index is written by exactly one worker, and read only after all have finished.
        nonisolated(unsafe) let shared = results
        nonisolated(unsafe) let items = items
        withoutActuallyEscaping(transform) { transform in
            withoutActuallyEscaping(makeContext) { makeContext in
                nonisolated(unsafe) let transform = transform
                nonisolated(unsafe) let makeContext = makeContext
                DispatchQueue.concurrentPerform(iterations: slices) { slice in
                    var context = makeContext()
                    let start = items.count * slice / slices
                    let end = items.count * (slice + 1) / slices
                    for index in start..<end {
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

#if Server
import Foundation
@testable import HTTPMock
import HTTPMockServer
import Testing

/// Front ends keep their state in the instance (issue 45.4): no process-wide table keyed by an
/// instance's address, which could hand a new instance a freed one's state or keep it alive.
@Suite("Per-instance front-end state")
struct FrontEndStateTests {
    final class Counter: Sendable {
        let value = Locked(0)
    }

    @Test("each instance has its own state, made once, whoever asks first")
    func ownState() async {
        let first = HTTPMock()
        let second = HTTPMock()
        let made = Locked(0)
        let states = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    ObjectIdentifier(
                        first.frontEndState(Counter.self) {
                            made.withLock { $0 += 1 }
                            return Counter()
                        })
                }
            }
            return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(states.count == 1)
        #expect(made.withLock { $0 } >= 1)
        let other = second.frontEndState(Counter.self) { Counter() }
        #expect(ObjectIdentifier(other) != states.first)
    }

    @Test("an instance with WireMock mappings and its state are freed when it is released")
    func releasedWithTheInstance() throws {
        weak var released: HTTPMock?
        weak var state: Counter?
        do {
            let mock = HTTPMock()
            mock.logHandler = nil
            try mock.loadWireMock(from: wireMockShop)
            state = mock.frontEndState(Counter.self) { Counter() }
            released = mock
            #expect(released != nil)
        }
        #expect(released == nil)
        #expect(state == nil)
    }
}
#endif

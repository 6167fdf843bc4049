import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Isolation between instances.
//
// FoundationNetworking gives a `URLProtocol` no way back to the session that created it:
// `httpAdditionalHeaders` are invisible to it, `URLProtocol.setProperty` is dropped, and
// async `data(for:)` bypasses `URLSession.dataTask` overrides. What does survive is the
// protocol *class* a configuration lists. So each instance gets its own class: a generic
// subclass specialised with a type-level binary number unique to the instance
// (`InstanceProtocol<Bit1<Bit0<End>>>` for 2). Each specialisation has its own metadata and
// so its own `ObjectIdentifier`, which keys the table of registries below.

/// A type-level binary number; only its identity matters.
protocol InstanceTag {}
enum End: InstanceTag {}
enum Bit0<Rest: InstanceTag>: InstanceTag {}
enum Bit1<Rest: InstanceTag>: InstanceTag {}

/// The protocol class of one instance: `MockURLProtocol` with a distinct identity.
final class InstanceProtocol<Tag: InstanceTag>: MockURLProtocol {}

enum InstanceTable {
    struct Entry: Sendable {
        let registry: Registry
        /// The class registered with `URLProtocol.registerClass` for `URLSession.shared`.
        let isSharedSessionBridge: Bool
    }

    /// Protocol class identity → registry. Entries are removed when their `HTTPMock` deinitialises.
    private static let registries = Locked<[ObjectIdentifier: Entry]>([:])
    /// Numbers are never reused, so a late request to a dead instance's class finds nothing
    /// rather than another instance's mocks.
    private static let counter = Locked<Int>(0)

    /// A protocol class no other instance has, bound to `registry`.
    static func makeProtocolClass(for registry: Registry) -> MockURLProtocol.Type {
        let number = counter.withLock { value -> Int in
            value += 1
            return value
        }
        let protocolClass = protocolClass(for: tag(number))
        registries.withLock { $0[ObjectIdentifier(protocolClass)] = Entry(registry: registry, isSharedSessionBridge: false) }
        return protocolClass
    }

    /// Binds the shared-session bridge class to `registry` (a placeholder: it routes through
    /// `SharedSessionBridge.owner`).
    static func registerBridge(_ protocolClass: MockURLProtocol.Type, registry: Registry) {
        registries.withLock { $0[ObjectIdentifier(protocolClass)] = Entry(registry: registry, isSharedSessionBridge: true) }
    }

    static func entry(for protocolClass: AnyClass) -> Entry? {
        registries.withLock { $0[ObjectIdentifier(protocolClass)] }
    }

    static func remove(_ protocolClass: AnyClass) {
        // The removed entry is returned out of the critical section and released after it.
        let removed = registries.withLock { $0.removeValue(forKey: ObjectIdentifier(protocolClass)) }
        withExtendedLifetime(removed) {}
    }

    /// Builds the tag type for `number`, least significant bit innermost, by opening the
    /// existential metatype at each step.
    private static func tag(_ number: Int) -> any InstanceTag.Type {
        var tag: any InstanceTag.Type = End.self
        var rest = number
        repeat {
            tag = rest & 1 == 0 ? wrapInBit0(tag) : wrapInBit1(tag)
            rest >>= 1
        } while rest > 0
        return tag
    }

    private static func wrapInBit0<Rest: InstanceTag>(_: Rest.Type) -> any InstanceTag.Type { Bit0<Rest>.self }
    private static func wrapInBit1<Rest: InstanceTag>(_: Rest.Type) -> any InstanceTag.Type { Bit1<Rest>.self }
    private static func protocolClass<Tag: InstanceTag>(for _: Tag.Type) -> MockURLProtocol.Type { InstanceProtocol<Tag>.self }
}

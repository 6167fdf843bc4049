/// How a replayed archive matches requests, beyond method, host, path and exact query.
///
/// ```swift
/// try await withHTTPMock(replaying: "search", matching: [.ignoringQueryItems(["timestamp"]), .body]) { mock in … }
/// ```
///
/// An array combines the options it lists; `[]` (the default) matches method, host (and port
/// when the URL names one), path and the exact query.
public struct HARMatching: Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
    enum Option: Sendable, Hashable {
        case ignoringQueryItems([String])
        case ignoringHost
        case body
        case headers([String])
    }

    let options: [Option]

    init(options: [Option]) { self.options = options }

    /// Combines `elements`.
    public init(arrayLiteral elements: HARMatching...) { self.init(options: elements.flatMap(\.options)) }

    /// These query items must be present but may hold any value (timestamps, nonces).
    public static func ignoringQueryItems(_ names: [String]) -> HARMatching { HARMatching(options: [.ignoringQueryItems(names)]) }

    /// Any host (and port) matches; only method, path and query are compared.
    public static let ignoringHost = HARMatching(options: [.ignoringHost])

    /// The request body must equal the recorded one (`postData.text`).
    public static let body = HARMatching(options: [.body])

    /// These request headers must hold the recorded values (a `REDACTED` value matches any).
    public static func headers(_ names: [String]) -> HARMatching { HARMatching(options: [.headers(names)]) }

    public var description: String { "HARMatching(\(options))" }

    var ignoredQueryItems: Set<String> {
        Set(options.flatMap { option -> [String] in if case .ignoringQueryItems(let names) = option { return names } else { return [] } })
    }

    var ignoresHost: Bool { options.contains(.ignoringHost) }

    var matchesBody: Bool { options.contains(.body) }

    var headerNames: [String] {
        options.flatMap { option -> [String] in if case .headers(let names) = option { return names } else { return [] } }
    }
}

/// How fast ``HTTPMock/loadHAR(from:timing:)`` serves archived responses.
public struct HARTiming: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable { case immediate, recorded }
    let kind: Kind

    /// At once (the default).
    public static let immediate = HARTiming(kind: .immediate)

    /// Each response after the entry's recorded `time`.
    public static let recorded = HARTiming(kind: .recorded)

    public var description: String { kind == .immediate ? ".immediate" : ".recorded" }
}

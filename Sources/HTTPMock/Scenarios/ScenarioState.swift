/// A route condition: the route answers only while `scenario` is in `state`.
///
/// A scenario is a named state machine, as in WireMock: every scenario starts in
/// ``started``, a response marked with ``MockResponse/transitioning(_:to:)`` moves it when it
/// is served, and routes with a `when:` condition are candidates only in their state. Reading
/// the state, choosing the route, popping its response and moving the state happen in one
/// critical section, so two concurrent requests never both see the old state.
///
/// ```swift
/// mock.addResponses(forPath: "/cart", when: ScenarioState("checkout", "started"),
///                   responses: [.json("[]", lifetime: .eternal)])
/// mock.addResponses(forPath: "/cart", method: .post, when: ScenarioState("checkout", "started"),
///                   responses: [MockResponse.empty(status: .created).transitioning("checkout", to: "filled")])
/// mock.addResponses(forPath: "/cart", when: ScenarioState("checkout", "filled"),
///                   responses: [.json(#"[{"sku":1}]"#, lifetime: .eternal)])
/// ```
public struct ScenarioState: Hashable, Sendable, CustomStringConvertible {
    /// The state every scenario is in until a response moves it, and again after
    /// ``HTTPMock/resetScenarios()`` or ``HTTPMock/clearQueues()``.
    public static let started = "started"

    /// The scenario's name.
    public let scenario: String
    /// The state the scenario must be in.
    public let state: String

    /// - Parameters:
    ///   - scenario: The scenario's name (any non-empty text; names are case-sensitive).
    ///   - state: The state it must be in; ``started`` at first.
    public init(_ scenario: String, _ state: String) {
        self.scenario = scenario
        self.state = state
    }

    /// `checkout == "started"`.
    public var description: String { "\(scenario) == \"\(state)\"" }
}

/// What serving a response does to a scenario.
struct ScenarioTransition: Hashable, Sendable {
    var scenario: String
    var state: String
}

extension MockResponse {
    /// This response, moving `scenario` to `state` when it is served.
    ///
    /// The move is atomic with taking the response from its queue: a request that arrives
    /// after this response was chosen sees the new state.
    ///
    /// ```swift
    /// MockResponse.empty(status: .created).transitioning("checkout", to: "filled")
    /// ```
    ///
    /// - Parameters:
    ///   - scenario: The scenario to move.
    ///   - state: Its new state.
    public func transitioning(_ scenario: String, to state: String) -> MockResponse {
        var copy = self
        copy.transition = ScenarioTransition(scenario: scenario, state: state)
        return copy
    }
}

extension HTTPMock {
    /// The current state of `scenario`: ``ScenarioState/started`` for a scenario that no
    /// response has moved yet, or since ``resetScenarios()`` or ``clearQueues()``.
    ///
    /// ```swift
    /// #expect(mock.state(of: "checkout") == "filled")
    /// ```
    ///
    /// - Parameter scenario: The scenario's name.
    public func state(of scenario: String) -> String {
        registry.scenarioState(of: scenario)
    }

    /// Moves every scenario back to ``ScenarioState/started``. Routes, queues, the journal
    /// and ``store`` are kept.
    public func resetScenarios() {
        registry.resetScenarios()
    }

    /// The instance's key–value store, shared by dynamic handlers and templates
    /// (`{{store.user}}`) and read when a request is served.
    ///
    /// ```swift
    /// mock.store["user"] = "Ada"
    /// mock.addResponses(forPath: "/me", responses: [.template(#"{"name":"{{store.user}}"}"#, contentType: "application/json")])
    /// ```
    ///
    /// ``clearQueues()`` empties it.
    public var store: MockStore { registry.store }
}

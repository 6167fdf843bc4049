extension HTTPMock {
    /// The instance's `State`, made by `make` on first use, for a front end in another target of
    /// this package (the WireMock mappings, the admin API's settings): stored in the instance,
    /// so it lives exactly as long as the instance, with no process-wide table keyed by the
    /// instance's address.
    ///
    /// `make` runs outside the lock; when two callers race, the first stored state wins and
    /// both get it.
    package func frontEndState<State: AnyObject & Sendable>(_ type: State.Type, make: () -> State) -> State {
        let key = ObjectIdentifier(type)
        if let state = frontEndStates.withLock({ $0[key] }) as? State { return state }
        let made = make()
        return frontEndStates.withLock { states in
            if let state = states[key] as? State { return state }
            states[key] = made
            return made
        }
    }
}

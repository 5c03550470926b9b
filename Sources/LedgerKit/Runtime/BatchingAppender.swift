import LedgerDomain

// MARK: - BatchingAppender

/// Holds a registration's decided events until the next outside effect or the end, then appends
/// them in one durable write. `state` is what the saga sees: the log's state with the held events
/// folded in. A refused write leaves the log as it was: `state` goes back to it, and the refusal is
/// handed back as the outcome of the action whose events opened the batch.
struct BatchingAppender {
    /// A refused write: the action it is the outcome of, and the store's error.
    struct Refusal {
        /// The action whose events opened the refused batch.
        let action: RegistrationSaga.Action
        /// What the store threw.
        let error: any Error
    }

    /// The registration as the saga sees it: the log's state plus the held events.
    private(set) var state: RegistrationState
    /// The registration as the log holds it.
    private var durable: RegistrationState
    /// The events decided but not appended, in order.
    private var held: [LedgerEvent] = []
    /// The action a refusal of the held events is the outcome of (nil: a refusal is thrown).
    private var opener: RegistrationSaga.Action?
    /// The terms the saga decided for the held events (the email check, the first session).
    private var terms = AppendTerms()

    /// An appender over a registration whose log holds `state`.
    init(_ state: RegistrationState) {
        self.state = state
        durable = state
    }

    /// Holds `events`, the outcome of `action`, with the terms the saga decided for them: a refused
    /// write of the batch they open is that action's outcome when `action` is given, else the
    /// refusal is thrown.
    mutating func hold(_ events: [LedgerEvent], for action: RegistrationSaga.Action?, terms: AppendTerms = AppendTerms()) {
        guard !events.isEmpty else { return }
        if held.isEmpty { opener = action }
        held += events
        self.terms = self.terms.merged(with: terms)
        for event in events { state.evolve(event) }
    }

    /// Appends the held events through `write` (events, the version the stream must be at, their
    /// terms, and the state they lead to); nil when they were appended or nothing was held.
    mutating func flush(_ write: ([LedgerEvent], ExpectedVersion, AppendTerms, RegistrationState) throws -> Void) throws -> Refusal? {
        guard !held.isEmpty else { return nil }
        let batch = held, opener = opener, terms = terms
        held = []; self.opener = nil; self.terms = AppendTerms()
        do {
            try write(batch, durable.version == 0 ? .noStream : .exactly(durable.version), terms, state)
            durable = state
            return nil
        } catch {
            state = durable
            guard let opener else { throw error }
            return Refusal(action: opener, error: error)
        }
    }
}

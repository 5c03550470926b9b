import LedgerDomain

// MARK: - StagedEvents

/// A registration's events decided but not yet appended, with the state before the first of them
/// and the append condition one of them needs (the email check of `AccountCreated`).
struct StagedEvents {
    /// The events, in order.
    private(set) var events: [LedgerEvent] = []
    /// The saga state before the first staged event; nil when nothing is staged.
    private(set) var before: RegistrationState?
    /// The condition to append them under.
    private(set) var condition: AppendCondition?

    /// Adds `event`; `state` is the state before it.
    mutating func add(_ event: LedgerEvent, condition: AppendCondition?, before state: RegistrationState) {
        if before == nil { before = state }
        events.append(event)
        if let condition { self.condition = condition }
    }

    /// The step whose outcome the first staged event records (nil for a `Failed` or a compensation,
    /// whose refusal cannot be recorded as yet another step failure).
    var firstStep: RegistrationStep? {
        switch events.first {
        case .accountCreated?: .account
        case .imageStored?: .image
        case .profileWritten?: .profile
        default: nil
        }
    }
}

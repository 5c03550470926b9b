// MARK: - RegistrationView

/// The registrations view: every registration's folded state, in start order.
public struct RegistrationView: Equatable, Sendable {
    /// States in start order.
    private(set) var states: [RegistrationState] = []
    /// Position in `states` by registration id.
    private var index: [UUIDBits: Int32] = [:]

    /// An empty view.
    public init() {}

    /// Applies one event (only registration streams count).
    public mutating func apply(_ event: ViewEvent) {
        guard event.category == .registration else { return }
        let at: Int
        if let found = index[event.stream] {
            at = Int(found)
        } else {
            at = states.count
            index[event.stream] = Int32(at)
            states.append(RegistrationState(id: event.stream))
        }
        states[at].evolve(event)
    }

    /// Applies one recorded event.
    public mutating func apply(_ event: RecordedEvent) { apply(ViewEvent(event)) }

    /// Restores a checkpointed state.
    mutating func restore(_ state: RegistrationState) {
        if let at = index[state.id] {
            states[Int(at)] = state
        } else {
            index[state.id] = Int32(states.count)
            states.append(state)
        }
    }

    /// Registrations in start order.
    public var rows: [RegistrationState] { states }

    /// Number of registrations.
    public var count: Int { states.count }

    /// The registration `id`, if the log has it.
    public func state(of id: String) -> RegistrationState? {
        UUIDBits(uuid: id).flatMap { index[$0] }.map { states[Int($0)] }
    }

    /// Checks the view's invariants; returns the violations.
    public func invariantViolations() -> [String] {
        var out: [String] = []
        for (at, state) in states.enumerated() {
            if index[state.id] != Int32(at) { out.append("registration \(state.registration) is not indexed") }
            if state.profileWritten && state.uidBits == nil { out.append("registration \(state.registration) wrote a profile without an account") }
            if state.imageBits != nil && state.uidBits == nil { out.append("registration \(state.registration) stored an image without an account") }
        }
        if index.count != states.count { out.append("index and registrations differ") }
        return out
    }
}

// MARK: - RegistrationView

/// The registrations view: every registration's folded state, in start order.
public struct RegistrationView: Equatable, Sendable {
    /// Registrations by id.
    public internal(set) var byID: [String: RegistrationState] = [:]
    /// Start order.
    public internal(set) var order: [String] = []

    /// An empty view.
    public init() {}

    /// Applies one event (only registration streams count).
    public mutating func apply(_ event: RecordedEvent) {
        guard let (category, id) = StreamName.parse(event.stream), category == .registration else { return }
        if byID[id] == nil {
            order.append(id)
            byID[id] = RegistrationState(registration: id)
        }
        byID[id]?.evolve(event)
    }

    /// Registrations in start order.
    public var rows: [RegistrationState] { order.compactMap { byID[$0] } }

    /// Checks the view's invariants; returns the violations.
    public func invariantViolations() -> [String] {
        var out: [String] = []
        for state in byID.values {
            if state.profileWritten && state.uid == nil { out.append("registration \(state.registration) wrote a profile without an account") }
            if state.imageName != nil && state.uid == nil { out.append("registration \(state.registration) stored an image without an account") }
        }
        if order.count != byID.count { out.append("order and registrations differ") }
        return out
    }
}

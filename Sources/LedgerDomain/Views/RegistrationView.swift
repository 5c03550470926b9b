// MARK: - RegistrationView

/// The registrations view: every registration's row, in start order.
public struct RegistrationView: Equatable, Sendable {
    /// Rows in start order.
    private(set) var states = ChunkedArray<RegistrationRow>()
    /// Position in `states` by registration id.
    private var index = PositionIndex()

    /// An empty view.
    public init() {}

    /// Applies one event (only registration streams count).
    public mutating func apply(_ event: ViewEvent) {
        guard event.category == .registration else { return }
        let at: Int
        if let found = position(of: event.stream) {
            at = Int(found)
        } else {
            at = append(RegistrationRow(id: event.stream))
        }
        states[at].evolve(event)
    }

    /// Applies one recorded event.
    public mutating func apply(_ event: RecordedEvent) { apply(ViewEvent(event)) }

    /// Restores a checkpointed row.
    mutating func restore(_ state: RegistrationRow) {
        if let at = position(of: state.id) {
            states[Int(at)] = state
        } else {
            append(state)
        }
    }

    /// Adds a registration; returns its position.
    @discardableResult
    private mutating func append(_ state: RegistrationRow) -> Int {
        let at = states.count
        states.append(state)
        let rows = states
        index.set(state.id, to: Int32(at)) { rows[Int($0)].id }
        return at
    }

    /// Hints where `apply` of an event of registration stream `id` will look (see `LedgerViews.prefetch`).
    func prefetch(stream id: UUIDBits, _ hint: (UnsafeRawPointer) -> Void) { index.prefetch(id, hint) }

    /// The position of registration `id`.
    private func position(of id: UUIDBits) -> Int32? { index.find(id) { states[Int($0)].id } }

    /// Registrations in start order.
    public var rows: [RegistrationRow] { Array(states) }

    /// Calls `body` with each registration, in start order, without copying the view into an array.
    public func forEachRow(_ body: (RegistrationRow) -> Void) {
        states.forEachInPlace { body($0.pointee) }
    }

    /// Each registration's outcome, in start order.
    public var outcomes: [RegistrationState.Outcome] {
        var out: [RegistrationState.Outcome] = []
        out.reserveCapacity(states.count)
        states.forEachInPlace { out.append($0.pointee.outcome) }  // in place: no copy of each row
        return out
    }

    /// Number of registrations.
    public var count: Int { states.count }

    /// The row of registration `id`, if the log has it.
    public func state(of id: String) -> RegistrationRow? {
        UUIDBits(uuid: id).flatMap(position(of:)).map { states[Int($0)] }
    }

    /// Checks the view's invariants; returns the violations.
    public func invariantViolations() -> [String] {
        var out: [String] = []
        for (at, state) in states.enumerated() {
            if position(of: state.id) != Int32(at) { out.append("registration \(state.registration) is not indexed") }
            if state.profileWritten && state.uidBits == nil { out.append("registration \(state.registration) wrote a profile without an account") }
            if state.imageBits != nil && state.uidBits == nil { out.append("registration \(state.registration) stored an image without an account") }
        }
        if index.count != states.count { out.append("index and registrations differ") }
        return out
    }
}

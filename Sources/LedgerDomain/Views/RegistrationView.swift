// MARK: - RegistrationView

/// The registrations view: every registration's row, in start order. Rows are kept packed (their
/// emails and failures' texts as bytes in one `TextArena`); reads spell them out as `RegistrationRow`s.
public struct RegistrationView: Equatable, Sendable {
    /// Rows in start order, packed.
    private var states = ChunkedArray<PackedRegistration>()
    /// The rows' emails and failures' texts.
    private var texts = TextArena()
    /// Position in `states` by registration id.
    private var index = PositionIndex()

    /// An empty view.
    public init() {}

    /// Applies one event (only registration streams count): the one fold, on the packed row in place.
    public mutating func apply(_ event: ViewEvent) {
        guard event.category == .registration else { return }
        let found = position(of: event.stream)
        var folding = PackedFolding(row: found.map { states[Int($0)] } ?? PackedRegistration(id: event.stream), texts: TextArena())
        swap(&folding.texts, &texts)  // moved, not copied: a shared arena would be copied on the first add
        folding.evolve(event)
        swap(&folding.texts, &texts)
        if let found {
            states[Int(found)] = folding.row
        } else {
            append(folding.row)
        }
    }

    /// Applies one recorded event.
    public mutating func apply(_ event: RecordedEvent) { apply(ViewEvent(event)) }

    /// Restores a checkpointed row.
    mutating func restore(_ state: RegistrationRow) {
        let packed = state.packed(into: &texts)
        if let at = position(of: state.id) {
            states[Int(at)] = packed
        } else {
            append(packed)
        }
    }

    /// Adds a registration's row.
    private mutating func append(_ packed: PackedRegistration) {
        let at = states.count
        states.append(packed)
        let rows = states
        index.set(packed.id, to: Int32(at)) { rows[Int($0)].id }
    }

    /// Hints where `apply` of an event of registration stream `id` reads, at `stage` (see `LedgerViews.prefetch`).
    func prefetch(stream id: UUIDBits, _ stage: PrefetchStage, _ hint: (UnsafeRawPointer) -> Void) {
        if let at = index.prefetch(id, stage, hint) { states.prefetch(Int(at), hint) }
    }

    /// The position of registration `id`.
    private func position(of id: UUIDBits) -> Int32? { index.find(id) { states[Int($0)].id } }

    /// Registrations in start order.
    public var rows: [RegistrationRow] {
        var out: [RegistrationRow] = []
        out.reserveCapacity(states.count)
        forEachRow { out.append($0) }
        return out
    }

    /// Registrations in start order, each spelled out as it is reached.
    var lazyRows: LazyMapSequence<ChunkedArray<PackedRegistration>, RegistrationRow> {
        let texts = self.texts
        return states.lazy.map { RegistrationRow($0, texts: texts) }
    }

    /// The registrations whose packed row passes `isIncluded`, in start order, each spelled out as it is reached.
    func lazyRows(where isIncluded: @escaping (PackedRegistration) -> Bool)
        -> LazyMapSequence<LazyFilterSequence<ChunkedArray<PackedRegistration>>, RegistrationRow> {
        let texts = self.texts
        return states.lazy.filter(isIncluded).map { RegistrationRow($0, texts: texts) }
    }

    /// Calls `body` with each registration, in start order, without copying the view into an array.
    public func forEachRow(_ body: (RegistrationRow) -> Void) {
        states.forEachInPlace { body(RegistrationRow($0.pointee, texts: texts)) }
    }

    /// Each registration's outcome, in start order.
    public var outcomes: [RegistrationState.Outcome] {
        var out: [RegistrationState.Outcome] = []
        out.reserveCapacity(states.count)
        states.forEachInPlace { out.append($0.pointee.outcome) }  // in place: no row spelled out
        return out
    }

    /// Number of registrations.
    public var count: Int { states.count }

    /// Bytes the rows' texts take (texts no row points at any more included).
    var textBytes: Int { texts.byteCount }

    /// The row of registration `id`, if the log has it.
    public func state(of id: String) -> RegistrationRow? {
        UUIDBits(uuid: id).flatMap(position(of:)).map { RegistrationRow(states[Int($0)], texts: texts) }
    }

    /// Checks the view's invariants; returns the violations.
    public func invariantViolations() -> [String] {
        var out: [String] = []
        for (at, state) in lazyRows.enumerated() {
            if position(of: state.id) != Int32(at) { out.append("registration \(state.registration) is not indexed") }
            if state.profileWritten && state.uidBits == nil { out.append("registration \(state.registration) wrote a profile without an account") }
            if state.imageBits != nil && state.uidBits == nil { out.append("registration \(state.registration) stored an image without an account") }
        }
        if index.count != states.count { out.append("index and registrations differ") }
        return out
    }
}

extension RegistrationView {
    /// Views are equal when their rows are, in order (the arenas may lay the same texts out differently).
    public static func == (lhs: RegistrationView, rhs: RegistrationView) -> Bool { lhs.rows == rhs.rows }
}

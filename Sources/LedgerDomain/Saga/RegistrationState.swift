// MARK: - RegistrationState

/// The saga's state of one registration, folded from its stream: what was created, what failed,
/// what was undone, and how many events the stream holds (the version its next append expects).
public struct RegistrationState: RegistrationFold, Equatable, Sendable {
    /// Where a registration stands.
    public enum Outcome: String, Sendable, CaseIterable {
        /// `ProfileWritten`.
        case completed
        /// `Failed` with nothing created.
        case rejected
        /// `Failed` and everything created undone.
        case compensated
        /// `Failed` with something not yet undone.
        case compensationPending = "compensation-pending"
        /// No terminal event yet.
        case inProgress = "in-progress"
    }

    /// The registration id (a lowercase UUID).
    public let registration: String
    /// What the events established.
    public var facts = RegistrationFacts()
    /// The failure, if any.
    public var failure: Failed?
    /// Events in the stream.
    public var version = 0

    /// The state before any event of `registration`.
    public init(registration: String) { self.registration = registration }

    /// Folds one event of the registration's stream.
    public mutating func evolve(_ event: LedgerEvent) { apply(ViewEvent.Fact(event)) }

    /// Folds one recorded event of the registration's stream.
    public mutating func evolve(_ event: RecordedEvent) { evolve(event.event) }
}

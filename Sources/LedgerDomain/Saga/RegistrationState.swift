// MARK: - RegistrationState

/// The saga's state of one registration, folded from its stream: what was created, what failed,
/// what was undone, and how many events the stream holds (the version its next append expects).
public struct RegistrationState: RegistrationFacts, Equatable, Sendable {
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
    /// Events in the stream.
    public var version = 0
    /// The email, once known.
    public var email: String?
    /// The account's bits, once created.
    public var uidBits: UUIDBits?
    /// True while the account exists.
    public var accountLive = false
    /// True when `AccountCreated` said an image step follows.
    public var withImage = false
    /// The stored image's bits, once stored.
    public var imageBits: UUIDBits?
    /// True while the image exists.
    public var imageLive = false
    /// True once the profile is written.
    public var profileWritten = false
    /// The failure, if any.
    public var failure: Failed?
    /// Compensation event types appended, in order.
    public var compensations: [EventType] = []

    /// The state before any event of `registration`.
    public init(registration: String) { self.registration = registration }

    /// Folds one event of the registration's stream.
    public mutating func evolve(_ event: LedgerEvent) { apply(ViewEvent.Fact(event)) }

    /// Folds one recorded event of the registration's stream.
    public mutating func evolve(_ event: RecordedEvent) { evolve(event.event) }
}

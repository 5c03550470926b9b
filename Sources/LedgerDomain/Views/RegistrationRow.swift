// MARK: - RegistrationRow

/// One row of the registrations view: a registration's facts (folded by the same rule as the
/// saga's `RegistrationState`) with the times of its first and last events, packed for a view
/// that holds one per registration: ids as 128-bit values, the rare failure out of line.
public struct RegistrationRow: RegistrationFacts, Equatable, Sendable {
    /// The registration id's bits.
    public let id: UUIDBits
    /// Time of the first event.
    public var startedAt: Timestamp?
    /// Time of the last event.
    public var lastAt: Timestamp?
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
    public var failure: Failed? {
        get { failureBox?.failure }
        set { failureBox = newValue.map(FailureBox.init) }
    }
    /// Compensation event types appended, in order.
    public var compensations: [EventType] = []
    /// Events in the stream.
    public var version: Int {
        get { Int(storedVersion) }
        set { storedVersion = Int32(clamping: newValue) }
    }
    /// Few registrations fail: the failure lives out of line so the others stay small.
    private var failureBox: FailureBox?
    private var storedVersion: Int32 = 0

    /// The row before any event of registration `id`.
    public init(id: UUIDBits) { self.id = id }

    /// The registration id.
    public var registration: String { id.uuidString }

    /// Folds one event of the registration's stream.
    public mutating func evolve(_ event: ViewEvent) {
        if startedAt == nil { startedAt = event.at }
        lastAt = event.at
        apply(event.fact)
    }
}

// MARK: - FailureBox

/// A registration's failure, out of line (immutable, so sharing it between copies is safe).
private final class FailureBox: Sendable {
    let failure: Failed
    init(_ failure: Failed) { self.failure = failure }
}

extension FailureBox: Equatable {
    static func == (lhs: FailureBox, rhs: FailureBox) -> Bool { lhs.failure == rhs.failure }
}

// MARK: - RegistrationState

/// One registration folded from its stream: what was created, what failed, what was undone.
/// Ids are kept as 128-bit values (the registrations view holds one of these per registration).
public struct RegistrationState: Equatable, Sendable {
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

    /// The registration id's bits.
    public private(set) var id: UUIDBits
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

    /// The state before any event of registration `id`.
    public init(id: UUIDBits) { self.id = id }

    /// The state before any event of `registration`, a lowercase UUID (ids are minted by the
    /// coordinator or read from checked stream names; anything else is a programming error).
    public init(registration: String) {
        guard let id = UUIDBits(uuid: registration) else { preconditionFailure("registration ids are lowercase UUIDs") }
        self.init(id: id)
    }

    /// The registration id.
    public var registration: String { id.uuidString }
    /// The account, once created.
    public var uid: String? { uidBits?.uuidString }
    /// The stored image, once stored.
    public var imageName: String? { imageBits?.uuidString }

    // MARK: - Fold

    /// Folds one event of the registration's stream.
    public mutating func evolve(_ event: ViewEvent) {
        version += 1
        if startedAt == nil { startedAt = event.at }
        lastAt = event.at
        switch event.fact {
        case .accountCreated(let uid, let email, let withImage):
            uidBits = uid; self.email = email; accountLive = true
            self.withImage = withImage ?? false
        case .imageStored(_, let image, _, _, _):
            imageBits = image; imageLive = true
        case .profileWritten:
            profileWritten = true
        case .failed(let e):
            if failure == nil { failure = e }
            if email == nil { email = e.email }
        case .imageDeleted:
            imageLive = false; compensations.append(.imageDeleted)
        case .accountDeleted:
            accountLive = false; compensations.append(.accountDeleted)
        default:
            break
        }
    }

    /// Folds one recorded event of the registration's stream.
    public mutating func evolve(_ event: RecordedEvent) { evolve(ViewEvent(event)) }

    // MARK: - Reads

    /// The outcome so far.
    public var outcome: Outcome {
        if profileWritten && failure == nil { return .completed }
        guard failure != nil else { return .inProgress }
        if uidBits == nil && imageBits == nil { return .rejected }
        return accountLive || imageLive ? .compensationPending : .compensated
    }

    /// The step that comes after what is recorded (used for `Failed(interrupted)`).
    public var nextStep: RegistrationStep {
        if uidBits == nil { return .account }
        if withImage && imageBits == nil { return .image }
        if !profileWritten { return .profile }
        return .session
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

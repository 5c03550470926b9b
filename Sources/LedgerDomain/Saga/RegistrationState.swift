// MARK: - RegistrationState

/// One registration folded from its stream: what was created, what failed, what was undone.
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

    /// The registration id.
    public var registration: String
    /// Time of the first event.
    public var startedAt: Timestamp?
    /// Time of the last event.
    public var lastAt: Timestamp?
    /// The email, once known.
    public var email: String?
    /// The account, once created.
    public var uid: String?
    /// True while the account exists.
    public var accountLive = false
    /// True when `AccountCreated` said an image step follows.
    public var withImage = false
    /// The stored image, once stored.
    public var imageName: String?
    /// True while the image exists.
    public var imageLive = false
    /// True once the profile is written.
    public var profileWritten = false
    /// The failure, if any.
    public var failure: Failed?
    /// Compensation event types appended, in order.
    public var compensations: [EventType] = []
    /// Events in the stream.
    public var version = 0

    /// The state before any event.
    public init(registration: String) { self.registration = registration }

    /// Folds one event of the registration's stream.
    public mutating func evolve(_ event: RecordedEvent) {
        version += 1
        if startedAt == nil { startedAt = event.at }
        lastAt = event.at
        switch event.event {
        case .accountCreated(let e):
            uid = e.uid; email = e.email; accountLive = true
            withImage = e.withImage ?? false
        case .imageStored(let e):
            imageName = e.imageName; imageLive = true
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

    /// The outcome so far.
    public var outcome: Outcome {
        if profileWritten && failure == nil { return .completed }
        guard failure != nil else { return .inProgress }
        if uid == nil && imageName == nil { return .rejected }
        return accountLive || imageLive ? .compensationPending : .compensated
    }

    /// The step that comes after what is recorded (used for `Failed(interrupted)`).
    public var nextStep: RegistrationStep {
        if uid == nil { return .account }
        if withImage && imageName == nil { return .image }
        if !profileWritten { return .profile }
        return .session
    }
}

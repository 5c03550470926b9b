// MARK: - RegistrationFacts

/// What one registration's events have established, apart from its failure and its event count,
/// which the saga's state and the registrations view's row each lay out their own way.
public struct RegistrationFacts: Equatable, Sendable {
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
    /// Compensation event types appended, in order.
    public var compensations: [EventType] = []

    /// The facts before any event.
    public init() {}
}

// MARK: - RegistrationFold

/// A registration folded from its stream: the saga's `RegistrationState` and the registrations
/// view's `RegistrationRow` both fold through `apply(_:)`, the one rule of what an event does to a
/// registration, and read its outcome the same way.
public protocol RegistrationFold {
    /// What the events established.
    var facts: RegistrationFacts { get set }
    /// The failure, if any.
    var failure: Failed? { get set }
    /// Events in the stream.
    var version: Int { get set }
}

extension RegistrationFold {
    /// Folds one event of the registration's stream.
    public mutating func apply(_ fact: ViewEvent.Fact) {
        version += 1
        switch fact {
        case .accountCreated(let uid, let email, let withImage):
            facts.uidBits = uid; facts.email = email; facts.accountLive = true
            facts.withImage = withImage ?? false
        case .imageStored(_, let image, _, _, _):
            facts.imageBits = image; facts.imageLive = true
        case .profileWritten:
            facts.profileWritten = true
        case .failed(let e):
            if failure == nil { failure = e }
            if facts.email == nil { facts.email = e.email }
        case .imageDeleted:
            facts.imageLive = false; facts.compensations.append(.imageDeleted)
        case .accountDeleted:
            facts.accountLive = false; facts.compensations.append(.accountDeleted)
        case .sessionStarted, .sessionEnded, .signInFailed, .accountDisabled, .accountEnabled, .emailVerificationRequested,
             .emailVerified, .passwordResetRequested, .passwordChanged, .emailChanged, .personalDataErased, .addressDataErased, .logMigrated:
            break
        }
    }

    /// The email, once known.
    public var email: String? { facts.email }
    /// The account's bits, once created.
    public var uidBits: UUIDBits? { facts.uidBits }
    /// The account, once created.
    public var uid: String? { facts.uidBits?.uuidString }
    /// True while the account exists.
    public var accountLive: Bool { facts.accountLive }
    /// True when `AccountCreated` said an image step follows.
    public var withImage: Bool { facts.withImage }
    /// The stored image's bits, once stored.
    public var imageBits: UUIDBits? { facts.imageBits }
    /// The stored image, once stored.
    public var imageName: String? { facts.imageBits?.uuidString }
    /// True while the image exists.
    public var imageLive: Bool { facts.imageLive }
    /// True once the profile is written.
    public var profileWritten: Bool { facts.profileWritten }
    /// Compensation event types appended, in order.
    public var compensations: [EventType] { facts.compensations }

    /// The outcome so far.
    public var outcome: RegistrationState.Outcome {
        if facts.profileWritten && failure == nil { return .completed }
        guard failure != nil else { return .inProgress }
        if facts.uidBits == nil && facts.imageBits == nil { return .rejected }
        return facts.accountLive || facts.imageLive ? .compensationPending : .compensated
    }

    /// The step that comes after what is recorded (used for `Failed(interrupted)`).
    public var nextStep: RegistrationStep {
        if facts.uidBits == nil { return .account }
        if facts.withImage && facts.imageBits == nil { return .image }
        if !facts.profileWritten { return .profile }
        return .session
    }
}

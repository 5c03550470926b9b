// MARK: - RegistrationFacts

/// What one registration's events have established. The saga's state (`RegistrationState`) and
/// the registrations view's row (`RegistrationRow`) keep these facts each in its own layout; both
/// fold them through `apply(_:)`, the one rule of what an event does to a registration.
public protocol RegistrationFacts {
    /// Events in the stream.
    var version: Int { get set }
    /// The email, once known.
    var email: String? { get set }
    /// The account's bits, once created.
    var uidBits: UUIDBits? { get set }
    /// True while the account exists.
    var accountLive: Bool { get set }
    /// True when `AccountCreated` said an image step follows.
    var withImage: Bool { get set }
    /// The stored image's bits, once stored.
    var imageBits: UUIDBits? { get set }
    /// True while the image exists.
    var imageLive: Bool { get set }
    /// True once the profile is written.
    var profileWritten: Bool { get set }
    /// The failure, if any.
    var failure: Failed? { get set }
    /// Compensation event types appended, in order.
    var compensations: [EventType] { get set }
}

extension RegistrationFacts {
    /// Folds one event of the registration's stream.
    public mutating func apply(_ fact: ViewEvent.Fact) {
        version += 1
        switch fact {
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
        case .sessionStarted, .sessionEnded, .signInFailed:
            break
        }
    }

    /// The account, once created.
    public var uid: String? { uidBits?.uuidString }
    /// The stored image, once stored.
    public var imageName: String? { imageBits?.uuidString }

    /// The outcome so far.
    public var outcome: RegistrationState.Outcome {
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

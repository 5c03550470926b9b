// MARK: - RegistrationFacts

/// What one registration's events have established, apart from its failure and its event count,
/// which the saga's state and the registrations view's row each lay out their own way.
public struct RegistrationFacts: Equatable, Sendable {
    /// The email, once known.
    public var email: String?
    /// Compensation event types appended, in order.
    public var compensations: [EventType] = []
    // A view holds one of these per registration: the two ids are kept without an optional's
    // padding (`.zero` while absent, told apart by `flags`) and the five facts in one byte.
    private var uidStorage = UUIDBits.zero
    private var imageStorage = UUIDBits.zero
    private var flags: UInt8 = 0

    /// The facts before any event.
    public init() {}

    /// The account's bits, once created.
    public var uidBits: UUIDBits? {
        get { flag(Self.hasUID) ? uidStorage : nil }
        set { uidStorage = newValue ?? .zero; set(Self.hasUID, newValue != nil) }
    }
    /// True while the account exists.
    public var accountLive: Bool {
        get { flag(Self.accountLiveBit) }
        set { set(Self.accountLiveBit, newValue) }
    }
    /// True when `AccountCreated` said an image step follows.
    public var withImage: Bool {
        get { flag(Self.withImageBit) }
        set { set(Self.withImageBit, newValue) }
    }
    /// The stored image's bits, once stored.
    public var imageBits: UUIDBits? {
        get { flag(Self.hasImage) ? imageStorage : nil }
        set { imageStorage = newValue ?? .zero; set(Self.hasImage, newValue != nil) }
    }
    /// True while the image exists.
    public var imageLive: Bool {
        get { flag(Self.imageLiveBit) }
        set { set(Self.imageLiveBit, newValue) }
    }
    /// True once the profile is written.
    public var profileWritten: Bool {
        get { flag(Self.profileWrittenBit) }
        set { set(Self.profileWrittenBit, newValue) }
    }

    private static let hasUID: UInt8 = 1, accountLiveBit: UInt8 = 2, withImageBit: UInt8 = 4
    private static let hasImage: UInt8 = 8, imageLiveBit: UInt8 = 16, profileWrittenBit: UInt8 = 32

    private func flag(_ bit: UInt8) -> Bool { flags & bit != 0 }
    private mutating func set(_ bit: UInt8, _ on: Bool) { flags = on ? flags | bit : flags & ~bit }
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

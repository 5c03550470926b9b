// MARK: - RegistrationFacts

/// What one registration's events have established, apart from its failure and its event count,
/// which the saga's state and the registrations view's row each lay out their own way.
public struct RegistrationFacts: Equatable, Sendable {
    /// The email, once known.
    public var email: String?
    /// Everything else: what a view keeps in its row while it keeps the email's bytes elsewhere.
    var core = Core()

    /// The facts other than the email. A view holds one per registration: the two ids are kept
    /// without an optional's padding (`.zero` while absent, told apart by `flags`) and the five
    /// facts in one byte.
    struct Core: Equatable, Sendable {
        var compensations: [EventType] = []
        private var uid = UUIDBits.zero
        private var image = UUIDBits.zero
        private var flags: UInt8 = 0

        var uidBits: UUIDBits? {
            get { flag(Self.hasUID) ? uid : nil }
            set { uid = newValue ?? .zero; set(Self.hasUID, newValue != nil) }
        }
        var accountLive: Bool {
            get { flag(Self.accountLiveBit) }
            set { set(Self.accountLiveBit, newValue) }
        }
        var withImage: Bool {
            get { flag(Self.withImageBit) }
            set { set(Self.withImageBit, newValue) }
        }
        var imageBits: UUIDBits? {
            get { flag(Self.hasImage) ? image : nil }
            set { image = newValue ?? .zero; set(Self.hasImage, newValue != nil) }
        }
        var imageLive: Bool {
            get { flag(Self.imageLiveBit) }
            set { set(Self.imageLiveBit, newValue) }
        }
        var profileWritten: Bool {
            get { flag(Self.profileWrittenBit) }
            set { set(Self.profileWrittenBit, newValue) }
        }

        private static let hasUID: UInt8 = 1, accountLiveBit: UInt8 = 2, withImageBit: UInt8 = 4
        private static let hasImage: UInt8 = 8, imageLiveBit: UInt8 = 16, profileWrittenBit: UInt8 = 32

        private func flag(_ bit: UInt8) -> Bool { flags & bit != 0 }
        private mutating func set(_ bit: UInt8, _ on: Bool) { flags = on ? flags | bit : flags & ~bit }

        /// The outcome of a registration with these facts that failed (`failed`) or not.
        func outcome(failed: Bool) -> RegistrationState.Outcome {
            if profileWritten && !failed { return .completed }
            guard failed else { return .inProgress }
            if uidBits == nil && imageBits == nil { return .rejected }
            return accountLive || imageLive ? .compensationPending : .compensated
        }
    }

    /// The facts before any event.
    public init() {}

    /// The facts of `core` with `email`.
    init(email: String?, core: Core) {
        self.email = email
        self.core = core
    }

    /// Compensation event types appended, in order.
    public var compensations: [EventType] {
        get { core.compensations }
        set { core.compensations = newValue }
    }
    /// The account's bits, once created.
    public var uidBits: UUIDBits? {
        get { core.uidBits }
        set { core.uidBits = newValue }
    }
    /// True while the account exists.
    public var accountLive: Bool {
        get { core.accountLive }
        set { core.accountLive = newValue }
    }
    /// True when `AccountCreated` said an image step follows.
    public var withImage: Bool {
        get { core.withImage }
        set { core.withImage = newValue }
    }
    /// The stored image's bits, once stored.
    public var imageBits: UUIDBits? {
        get { core.imageBits }
        set { core.imageBits = newValue }
    }
    /// True while the image exists.
    public var imageLive: Bool {
        get { core.imageLive }
        set { core.imageLive = newValue }
    }
    /// True once the profile is written.
    public var profileWritten: Bool {
        get { core.profileWritten }
        set { core.profileWritten = newValue }
    }
}

// MARK: - RegistrationFolding

/// What the one fold of a registration reads and writes, however its holder lays the facts out:
/// `RegistrationState` and `RegistrationRow` keep strings (through `RegistrationFold`), the
/// registrations view's packed rows keep their texts in an arena.
protocol RegistrationFolding {
    /// The facts other than the email.
    var core: RegistrationFacts.Core { get set }
    /// True once an email is known.
    var hasEmail: Bool { get }
    /// Keeps `email` as the registration's email.
    mutating func takeEmail(_ email: String?)
    /// True once a failure is recorded.
    var hasFailure: Bool { get }
    /// Keeps `failure` as the registration's failure.
    mutating func takeFailure(_ failure: Failed)
    /// Events in the stream.
    var version: Int { get set }
}

extension RegistrationFolding {
    /// Folds one event of the registration's stream: the one rule of what an event does to a registration.
    mutating func fold(_ fact: ViewEvent.Fact) {
        version += 1
        switch fact {
        case .accountCreated(let uid, let email, let withImage):
            core.uidBits = uid; takeEmail(email); core.accountLive = true
            core.withImage = withImage ?? false
        case .imageStored(_, let image, _, _, _):
            core.imageBits = image; core.imageLive = true
        case .profileWritten:
            core.profileWritten = true
        case .failed(let e):
            if !hasFailure { takeFailure(e) }
            if !hasEmail { takeEmail(e.email) }
        case .imageDeleted:
            core.imageLive = false; core.compensations.append(.imageDeleted)
        case .accountDeleted:
            core.accountLive = false; core.compensations.append(.accountDeleted)
        case .sessionStarted, .sessionEnded, .signInFailed, .accountDisabled, .accountEnabled, .emailVerificationRequested,
             .emailVerified, .passwordResetRequested, .passwordChanged, .emailChanged, .personalDataErased, .addressDataErased, .logMigrated:
            break
        }
    }

    /// The outcome so far.
    var outcome: RegistrationState.Outcome { core.outcome(failed: hasFailure) }
}

/// A `RegistrationFold` seen through the fold's requirements.
private struct PlainFolding<Base: RegistrationFold>: RegistrationFolding {
    var base: Base
    var core: RegistrationFacts.Core {
        get { base.facts.core }
        set { base.facts.core = newValue }
    }
    var hasEmail: Bool { base.facts.email != nil }
    mutating func takeEmail(_ email: String?) { base.facts.email = email }
    var hasFailure: Bool { base.failure != nil }
    mutating func takeFailure(_ failure: Failed) { base.failure = failure }
    var version: Int {
        get { base.version }
        set { base.version = newValue }
    }
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
    /// Folds one event of the registration's stream (`RegistrationFolding.fold`, the one rule).
    public mutating func apply(_ fact: ViewEvent.Fact) {
        var folding = PlainFolding(base: self)
        folding.fold(fact)
        self = folding.base
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
    public var outcome: RegistrationState.Outcome { facts.core.outcome(failed: failure != nil) }

    /// The step that comes after what is recorded (used for `Failed(interrupted)`).
    public var nextStep: RegistrationStep {
        if facts.uidBits == nil { return .account }
        if facts.withImage && facts.imageBits == nil { return .image }
        if !facts.profileWritten { return .profile }
        return .session
    }
}

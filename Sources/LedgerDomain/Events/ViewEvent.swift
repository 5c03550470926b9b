// MARK: - ViewEvent

/// One event as the views fold it: ids as 128-bit values, digests as 32 bytes, times as milliseconds,
/// and only the members a view keeps (no password hash, no envelope). The replay decodes canonical
/// lines straight into this; any other event is converted with `init(_:)`, so both fold the same way.
public struct ViewEvent: Equatable, Sendable {
    /// The line's seq.
    public var seq: Int
    /// The line's time.
    public var at: Timestamp
    /// The stream's category.
    public var category: StreamCategory
    /// The stream's id (the registration, session, sign-in, account or migration id).
    public var stream: UUIDBits
    /// What happened.
    public var fact: Fact

    /// An event from its parts.
    public init(seq: Int, at: Timestamp, category: StreamCategory, stream: UUIDBits, fact: Fact) {
        self.seq = seq; self.at = at; self.category = category; self.stream = stream; self.fact = fact
    }

    /// The payload members the views keep, per event type.
    public enum Fact: Equatable, Sendable {
        /// `AccountCreated`.
        case accountCreated(uid: UUIDBits, email: String, withImage: Bool?)
        /// `ImageStored`.
        case imageStored(uid: UUIDBits, image: UUIDBits, contentType: ImageContentType, bytes: Int, sha256: Digest32)
        /// `ProfileWritten`.
        case profileWritten(uid: UUIDBits, userName: String, profileImage: UUIDBits?, createdAt: Timestamp)
        /// `Failed` (rare: kept whole).
        case failed(Failed)
        /// `ImageDeleted`.
        case imageDeleted(image: UUIDBits)
        /// `AccountDeleted`.
        case accountDeleted(uid: UUIDBits, reason: AccountDeletedReason = .compensation, keepsPersonalData: Bool = false)
        /// `SessionStarted` (the token hash is checked, not kept: no view shows or uses it).
        case sessionStarted(session: UUIDBits, uid: UUIDBits, expiresAt: Timestamp)
        /// `SessionEnded` (its account and reason are kept only for a revocation, which is rare).
        case sessionEnded(session: UUIDBits, revocation: Revocation? = nil)
        /// `SignInFailed`.
        case signInFailed(email: String, reason: SignInFailure)
        /// `AccountDisabled` (rare: the operator's reason is kept for the audit).
        case accountDisabled(uid: UUIDBits, reason: String = "")
        /// `AccountEnabled`.
        case accountEnabled(uid: UUIDBits)
        /// `EmailVerificationRequested` (the token is redeemed from the account's stream).
        case emailVerificationRequested(uid: UUIDBits)
        /// `EmailVerified`.
        case emailVerified(uid: UUIDBits, email: String)
        /// `PasswordResetRequested` (the token is redeemed from the account's stream).
        case passwordResetRequested(uid: UUIDBits)
        /// `PasswordChanged` (the views keep no password hash).
        case passwordChanged(uid: UUIDBits, reason: PasswordChangeReason)
        /// `EmailChanged`.
        case emailChanged(uid: UUIDBits, email: String, previousEmail: String)
        /// `PersonalDataErased`.
        case personalDataErased(uid: UUIDBits, reason: ErasureReason)
        /// `AddressDataErased`.
        case addressDataErased(subject: SubjectID)
        /// `LogMigrated` (no view keeps anything of it).
        case logMigrated
    }

    /// A session ended by something other than its owner's sign-out (`SessionEndReason.revocations`).
    public struct Revocation: Equatable, Sendable {
        /// The session's account.
        public var uid: UUIDBits
        /// The `SessionEnded` reason.
        public var reason: String

        /// A revocation from its members.
        public init(uid: UUIDBits, reason: String) { self.uid = uid; self.reason = reason }
    }
}

// MARK: - From a recorded event

extension ViewEvent {
    /// The fold input of a recorded (decoded and checked) event: its payload's `viewFact`.
    public init(_ recorded: RecordedEvent) {
        let (category, id) = StreamName.parse(recorded.stream) ?? (.registration, "")
        self.init(seq: recorded.seq, at: recorded.at, category: category, stream: UUIDBits(checked: id), fact: Fact(recorded.event))
    }
}

extension ViewEvent.Fact {
    /// The members the views keep of `event`: its payload's `viewFact`.
    public init(_ event: LedgerEvent) { self = event.payload.viewFact }
}

extension UUIDBits {
    /// The bits of a UUID the decoders already checked (lowercase); zero bits for anything else.
    init(checked text: String) { self = UUIDBits(uuid: text) ?? .zero }
}

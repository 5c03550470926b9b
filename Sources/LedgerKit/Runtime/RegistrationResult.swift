import LedgerDomain

// MARK: - RegistrationResult

/// What a registration ended as, for the CLI to print.
public struct RegistrationResult: Equatable, Sendable {
    /// The registration id.
    public var registration: String
    /// The outcome.
    public var outcome: RegistrationState.Outcome
    /// The account (when completed).
    public var uid: String?
    /// The profile image (nil for the default image).
    public var profileImageName: String?
    /// The session started for the new user, if any.
    public var sessionId: String?
    /// The session token, shown once (nil when replayed or when no session could start).
    public var token: String?
    /// For failures: the step, reason and message.
    public var failure: Failed?
    /// True when an earlier attempt with the same idempotency key answered.
    public var replayed = false
}

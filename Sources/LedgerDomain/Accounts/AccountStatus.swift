// MARK: - AccountStatus

/// Where an account is in its life. The raw values are the users view's `status` member.
public enum AccountStatus: String, Sendable, CaseIterable {
    /// Account created, profile not yet written.
    case pending
    /// Profile written.
    case active
    /// Account deleted (compensation).
    case deleted
    /// Disabled by an operator: it keeps its email and may not sign in.
    case disabled

    /// True when an account in this status holds its email: an email has at most one such account.
    public var holdsEmail: Bool { self != .deleted }

    /// True when an account in this status may sign in and own sessions.
    public var maySignIn: Bool { self == .active }

    /// The true reason a sign-in of the email an account in this status holds is refused before any
    /// password is checked; nil when its password may be checked. A pending account is not yet one a
    /// person can sign in to, so it answers as an unknown email does.
    public var signInRefusal: SignInFailure? {
        switch self {
        case .active: nil
        case .disabled: .disabled
        case .pending, .deleted: .unknownEmail
        }
    }
}

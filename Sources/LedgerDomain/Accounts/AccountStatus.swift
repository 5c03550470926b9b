// MARK: - AccountStatus

/// Where an account is in its life. The raw values are the users view's `status` member.
public enum AccountStatus: String, Sendable, CaseIterable {
    /// Account created, profile not yet written.
    case pending
    /// Profile written.
    case active
    /// Account deleted (compensation).
    case deleted

    /// True when an account in this status holds its email: an email has at most one such account.
    public var holdsEmail: Bool { self != .deleted }

    /// True when an account in this status may sign in and own sessions.
    public var maySignIn: Bool { self == .active }
}

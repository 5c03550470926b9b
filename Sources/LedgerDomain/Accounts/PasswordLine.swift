// MARK: - PasswordLine

extension LedgerEvent {
    /// The account and password hash this event records when it is a password line, nil otherwise:
    /// an `AccountCreated` (the account's first password) or a `PasswordChanged`. An account's last
    /// password line holds the hash its sign-ins check (the account fold's `recordPassword` follows
    /// the same lines); every reader finds the password here, whether from an index or the log.
    public var passwordLine: (uid: String, passwordHash: String)? {
        switch self {
        case .accountCreated(let created): (created.uid, created.passwordHash)
        case .passwordChanged(let changed): (changed.uid, changed.passwordHash)
        default: nil
        }
    }
}

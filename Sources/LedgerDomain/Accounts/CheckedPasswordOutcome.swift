// MARK: - CheckedPasswordOutcome

/// Which events only a command that checked the account's password appends: the owner's
/// `change-password` (`PasswordChanged`, reason `change`), `change-email` (`EmailChanged`) and
/// `delete --password-stdin` (`AccountDeleted`, reason `user-request`). A pending password check of
/// an account command is settled by the log when the event its account stream gained right after
/// the check began is one of these (every later checked command counts a leftover first, so that
/// event is the check's own outcome); any other event there (a reset requested by anyone, an
/// operator's disable) settles nothing, and the check counts as a wrong password.
public enum CheckedPasswordOutcome {
    /// True when `events`, the account stream's events from where a check began, start with the
    /// outcome of a command that checked its account's password (a deletion's `ImageDeleted`, in the
    /// stream before its `AccountDeleted`, is passed over).
    public static func startsWithOutcome(_ events: some Sequence<LedgerEvent>) -> Bool {
        for event in events {
            if case .imageDeleted(let deleted) = event, deleted.reason == .accountDeleted { continue }
            return isOutcome(event)
        }
        return false
    }

    /// True when `event` is the outcome of a command that checked its account's password.
    public static func isOutcome(_ event: LedgerEvent) -> Bool {
        switch event {
        case .passwordChanged(let changed): changed.reason == .change
        case .emailChanged: true
        case .accountDeleted(let deleted): deleted.reason == .userRequest
        default: false
        }
    }
}

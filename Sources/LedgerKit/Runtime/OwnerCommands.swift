import LedgerDomain

// MARK: - OwnerCommands

/// The account commands an account's owner proves with the password (change the password, change
/// the email, delete the account): the password is checked as a sign-in checks it (a wrong one is a
/// refused sign-in, counted for the lockout), then, still holding the email's sign-in lock, the
/// command is decided from the account's standing and appended. The command line and the library
/// both run them here, so who the password proves, and what an unknown account is told, are said once.
public struct OwnerCommands {
    let sessions: SessionService
    let accounts: AccountService

    /// The commands over a session service (the password check and its lock) and an account
    /// service (the decision and its append) of one store.
    public init(sessions: SessionService, accounts: AccountService) {
        self.sessions = sessions; self.accounts = accounts
    }

    /// Checks `password` for `email`, then runs the command `decide` makes of the standing of the
    /// account `uid` (default: the account the password opened). Throws `AuthError(.signInRefused)`
    /// (`SessionService.refusal`) when the sign-in is refused, or when the password opened another
    /// account than `uid` (the account moved away and another took the email meanwhile: the password
    /// proves nothing about `uid`). The pending-check marker is cleared once the outcome is known
    /// (appended, or refused by the account's state): the password was right.
    public func run(email: String, password: String, uid: String? = nil,
                    _ decide: (AccountStanding) throws -> AccountAction) throws -> AccountService.Outcome {
        try sessions.withCheckedPassword(email: email, password: password) { account, lock in
            if let uid, uid != account.uid {
                try? lock.clearPendingCheck()
                throw AuthError(.signInRefused, SessionService.refusal)
            }
            do {
                let outcome = try accounts.runHoldingLock(decide, uid: uid ?? account.uid)
                try? lock.clearPendingCheck()
                return outcome
            } catch let refusal as AccountRefusal {
                try? lock.clearPendingCheck()  // a refusal is no wrong password
                throw refusal
            }
        }
    }

    /// `PasswordChanged` to `passwordHash` (hashed by the caller, outside the lock: the slow part),
    /// and every active session ends, once `currentPassword` is checked for `email`.
    public func changePassword(email: String, currentPassword: String, passwordHash: String) throws -> AccountService.Outcome {
        try run(email: email, password: currentPassword) { _ in .changePassword(passwordHash: passwordHash) }
    }

    /// `EmailChanged` to `newEmail` (already normalized and checked by `EmailRule`), under sign-up's
    /// uniqueness rule, once `password` is checked for `email`.
    public func changeEmail(email: String, password: String, newEmail: String) throws -> AccountService.Outcome {
        try run(email: email, password: password) { _ in .changeEmail(newEmail: newEmail) }
    }

    /// Deletes the account `key` names (a uid or an email) at its owner's request, once `password` is
    /// checked for its email; its personal data is erased unless `keepPersonalData`. No enumeration: a
    /// key that names no account is checked as a sign-in checks an unknown email (the same hashing
    /// work, `SignInFailed` unknown-email in the log, the same refusal), and since the uid "" matches
    /// no account, even an account made meanwhile under that key is refused.
    public func delete(account key: String, password: String, keepPersonalData: Bool) throws -> AccountService.Outcome {
        let named: (email: String, uid: String)
        do {
            let row = try accounts.account(named: key)
            named = (row.email, row.uid)
        } catch let error as AuthError where error.code == .noAccount {
            named = (key, "")
        }
        return try run(email: named.email, password: password, uid: named.uid) { _ in
            .delete(reason: .userRequest, keepPersonalData: keepPersonalData)
        }
    }
}

import LedgerDomain
import LedgerKit

// MARK: - AccountCommand: commands an account's owner proves with the password

extension AccountCommand {
    /// Checks `password` for `email` as `login` does (a wrong one is a refused sign-in, counted for the
    /// lockout), then, still holding the email's sign-in lock, runs the command `decide` makes of the
    /// standing of the account `uid` (default: the account the password opened; any other is refused as a
    /// sign-in is). Returns nil, having printed `login`'s refusal, when the sign-in is refused. The pending-check marker is cleared once
    /// the outcome is known (appended, or refused by the account's state): the password was right.
    static func withPassword(email: String, password: String, uid: String? = nil, _ invocation: Invocation, _ context: Context,
                             decide: (AccountStanding) throws -> AccountAction) throws -> AccountService.Outcome? {
        let sessions = try Services.sessions(invocation, context)
        let accounts = try service(invocation, context)
        do {
            return try sessions.withCheckedPassword(email: email, password: password) { account, lock in
                // The password opened the email's account now: when that is not `uid` (it moved away and
                // another took the email meanwhile), the password proves nothing about `uid`.
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
        } catch let error as AuthError where error.code == .signInRefused {
            _ = LoginCommand.refused(error, invocation, context)
            return nil
        }
    }
}

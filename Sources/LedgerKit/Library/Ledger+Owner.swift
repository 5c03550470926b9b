import LedgerDomain

// MARK: - Ledger, what an account's owner proves with the password

extension Ledger {
    /// Sets a new password once `currentPassword` is checked for `email` as a sign-in checks it (a
    /// wrong one is `signInRefused`, counted for the lockout); every active session ends.
    /// `invalidInput` when the new password breaks the sign-up rule.
    public func changePassword(email: String, currentPassword: String, newPassword: String) async throws(LedgerError) -> AccountChange {
        if let problem = PasswordRule.problem(newPassword) { throw LedgerError(.invalidInput, "the new password: \(problem.message)") }
        let cost = configuration.hashCost
        return try await owner { commands in
            let hash = try PasswordHasher(cost: cost).hash(newPassword, random: SecureRandom())  // the slow part, outside the lock
            return Ledger.AccountChange(try commands.changePassword(email: email, currentPassword: currentPassword, passwordHash: hash))
        }
    }

    /// Moves the account to `newEmail` (normalized as sign-up normalizes it; unverified until verified
    /// again) once `password` is checked for `email`; `emailTaken` while a live account holds it.
    public func changeEmail(email: String, password: String, newEmail: String) async throws(LedgerError) -> AccountChange {
        let normalized: String
        switch Input.email(newEmail) {
        case .success(let email): normalized = email
        case .failure(let error): throw LedgerError(.invalidInput, "the new email: \(error.message)")
        }
        return try await owner { Ledger.AccountChange(try $0.changeEmail(email: email, password: password, newEmail: normalized)) }
    }

    /// Deletes the account `account` (a uid or an email) at its owner's request, once `password` is
    /// checked for its email; an unknown account is refused as a wrong password is (`signInRefused`),
    /// so the call tells no one which accounts exist. Erases its personal data unless `keepPersonalData`.
    public func delete(account: String, password: String, keepPersonalData: Bool = false) async throws(LedgerError) -> AccountChange {
        let configuration = configuration
        return try await owner { commands in
            Ledger.AccountChange(try commands.delete(account: account, password: password, keepPersonalData: keepPersonalData), removing: configuration)
        }
    }

    /// Runs an owner's command on the call's stores (its refusals read by `LedgerError.init`).
    private func owner(_ body: @escaping @Sendable (OwnerCommands) throws -> AccountChange) async throws(LedgerError) -> AccountChange {
        let configuration = configuration
        return try await perform { call in
            let sessions = Self.sessions(call, configuration)
            return try body(OwnerCommands(sessions: sessions, accounts: Self.accounts(call, configuration)))
        }
    }
}

import LedgerDomain

// MARK: - Ledger, the account's life after sign-up

extension Ledger {
    /// What an account command did.
    public struct AccountChange: Sendable, Equatable {
        /// The account.
        public let uid: String
        /// Its status afterwards: `active`, `disabled` or `deleted`.
        public let status: String
        /// The sessions the command ended, in the order they started.
        public let endedSessions: [String]
        /// The number of events appended (0 when there was nothing to do).
        public let appended: Int
    }

    /// A verification or reset token, for the app to send its own way (the command line mails it).
    public struct IssuedToken: Sendable {
        /// The account it is for.
        public let uid: String
        /// The email it must be sent to.
        public let email: String
        /// The token in clear, for that email's owner only: never log or store it.
        public let token: String
    }

    /// Disables the account `account` (a uid or an email) and ends its sessions; `reason` is kept
    /// with the event (personal data: encrypted under the account's key).
    public func disable(account: String, reason: String = "") async throws(LedgerError) -> AccountChange {
        try await change(account) { _ in .disable(reason: reason) }
    }

    /// Enables a disabled account again.
    public func enable(account: String) async throws(LedgerError) -> AccountChange {
        try await change(account) { _ in .enable }
    }

    /// Ends every active session of the account.
    public func signOutEverywhere(account: String) async throws(LedgerError) -> AccountChange {
        try await change(account) { _ in .signOutEverywhere }
    }

    /// Deletes the account (an operator's deletion): ends its sessions, removes its profile image and,
    /// unless `keepPersonalData` (a legal hold), erases its personal data with its key.
    public func delete(account: String, keepPersonalData: Bool = false) async throws(LedgerError) -> AccountChange {
        let directory = configuration.directory
        return try await perform { call in
            let outcome = try Self.run(call, { _ in .delete(reason: .operator, keepPersonalData: keepPersonalData) }, on: account)
            _ = AccountService.removeImage(deletedBy: outcome, from: FileBlobStore(directory: directory))  // else `ledger recover` removes it
            return AccountChange(outcome)
        }
    }

    /// Erases the personal data of an account deleted earlier (`accountLive` while it is not deleted).
    public func erase(account: String) async throws(LedgerError) -> AccountChange {
        try await change(account) { _ in .erase }
    }

    /// Issues a verification token for the account of `email`, for the app to send; nil (nothing
    /// appended) when no account may get one: answer the user alike either way.
    public func requestVerification(email: String) async throws(LedgerError) -> IssuedToken? {
        try await issue(.verification, email: email)
    }

    /// Issues a password-reset token for the account of `email`; nil as for `requestVerification`.
    public func requestPasswordReset(email: String) async throws(LedgerError) -> IssuedToken? {
        try await issue(.reset, email: email)
    }

    /// Marks the email of the token's account verified (`tokenRefused` for any token that cannot be redeemed).
    public func verifyEmail(token: String) async throws(LedgerError) -> AccountChange {
        try await perform { call in
            AccountChange(try Self.service(call) { try $0.redeem(.verification, token: token, .verifyEmail) })
        }
    }

    /// Sets a new password with a reset token: ends the account's sessions and its lockout.
    public func resetPassword(token: String, newPassword: String) async throws(LedgerError) -> AccountChange {
        let cost = configuration.hashCost
        if let problem = PasswordRule.problem(newPassword) { throw LedgerError(.invalidInput, problem.message) }
        return try await perform { call in
            let hash = try PasswordHasher(cost: cost).hash(newPassword, random: SecureRandom())
            return AccountChange(try Self.service(call) { try $0.redeem(.reset, token: token, .resetPassword(passwordHash: hash)) })
        }
    }

    // MARK: - The shell

    private func change(_ account: String, _ decide: @escaping @Sendable (AccountStanding) throws -> AccountAction) async throws(LedgerError) -> AccountChange {
        try await perform { call in AccountChange(try Self.run(call, decide, on: account)) }
    }

    private func issue(_ kind: AccountTokens.Kind, email: String) async throws(LedgerError) -> IssuedToken? {
        try await perform { call in
            try Self.service(call) { service in
                try service.issue(kind, email: email, random: SecureRandom())
                    .map { IssuedToken(uid: $0.outcome.uid, email: $0.outcome.email, token: $0.token.value) }
            }
        }
    }

    private static func run(_ call: LedgerStores.Call, _ decide: (AccountStanding) throws -> AccountAction,
                            on account: String) throws -> AccountService.Outcome {
        try service(call) { try $0.run(account: account, decide) }
    }

    /// Runs `body` with the call's account service (its refusals read by `LedgerError.init`).
    private static func service<T>(_ call: LedgerStores.Call, _ body: (AccountService) throws -> T) throws -> T {
        try body(AccountService(store: call.store, signInLocks: call.signInLocks, clock: SystemClock()))
    }
}

extension Ledger.AccountChange {
    /// What an account service's outcome says.
    init(_ outcome: AccountService.Outcome) {
        self.init(uid: outcome.uid, status: outcome.status.rawValue, endedSessions: outcome.endedSessions, appended: outcome.appended.count)
    }
}

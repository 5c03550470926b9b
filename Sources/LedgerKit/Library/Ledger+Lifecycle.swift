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
        /// The account's email afterwards; nil once its personal data is erased.
        public let email: String?
        /// After `changeEmail`: the email the account had before.
        public let previousEmail: String?
        /// True when the change erased the account's personal data (its key destroyed).
        public let erased: Bool
        /// After a deletion: what became of the profile image's file (`.none` for any other change).
        public let imageRemoval: AccountService.ImageRemoval
    }

    /// A verification or reset token, for the app to send its own way (the command line mails it).
    public struct IssuedToken: Sendable {
        /// The account it is for.
        public let uid: String
        /// The email it must be sent to.
        public let email: String
        /// The token in clear, for that email's owner only: never log or store it.
        public let token: String
        /// When it expires (RFC 3339).
        public let expiresAt: String?
    }

    /// What an erasure of subjects outside live accounts did.
    public struct Erasure: Sendable, Equatable {
        /// The subjects whose keys were destroyed (`address-…`, an account's uid), nothing about them else.
        public let subjects: [String]
        /// The number of events appended.
        public let appended: Int
    }

    /// Disables the account `account` (a uid or an email) and ends its sessions; `reason` is kept
    /// with the event (personal data: encrypted under the account's key).
    public func disable(account: String, reason: String = "") async throws(LedgerError) -> AccountChange {
        try await change(account, .disable(reason: reason))
    }

    /// Enables a disabled account again.
    public func enable(account: String) async throws(LedgerError) -> AccountChange {
        try await change(account, .enable)
    }

    /// Ends every active session of the account.
    public func signOutEverywhere(account: String) async throws(LedgerError) -> AccountChange {
        try await change(account, .signOutEverywhere)
    }

    /// Deletes the account (an operator's deletion): ends its sessions, removes its profile image and,
    /// unless `keepPersonalData` (a legal hold), erases its personal data with its key.
    public func delete(account: String, keepPersonalData: Bool = false) async throws(LedgerError) -> AccountChange {
        let configuration = configuration
        return try await perform { call in
            let outcome = try Self.accounts(call, configuration).run(.delete(reason: .operator, keepPersonalData: keepPersonalData), account: account)
            return AccountChange(outcome, removing: configuration)
        }
    }

    /// Erases the personal data of an account deleted earlier (`accountLive` while it is not deleted).
    public func erase(account: String) async throws(LedgerError) -> AccountChange {
        try await change(account, .erase)
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
        let configuration = configuration
        return try await perform { call in
            AccountChange(try Self.accounts(call, configuration).redeem(.verification, token: token, .verifyEmail))
        }
    }

    /// Sets a new password with a reset token: ends the account's sessions and its lockout.
    public func resetPassword(token: String, newPassword: String) async throws(LedgerError) -> AccountChange {
        let configuration = configuration
        if let problem = PasswordRule.problem(newPassword) { throw LedgerError(.invalidInput, problem.message) }
        return try await perform { call in
            let hash = try PasswordHasher(cost: configuration.hashCost).hash(newPassword, random: SecureRandom())
            return AccountChange(try Self.accounts(call, configuration).redeem(.reset, token: token, .resetPassword(passwordHash: hash)))
        }
    }

    /// Erases what the ledger holds about `email` outside live accounts (refused sign-ins, rejected
    /// registrations, an address an account moved away from); `accountLive` while a live account holds it.
    public func erase(email: String) async throws(LedgerError) -> Erasure {
        let normalized = EmailRule.normalized(email)
        // An erasure is permanent: an empty or partial address is never taken for one.
        guard !normalized.isEmpty, normalized.contains("@") else { throw LedgerError(.invalidInput, "an erasure needs an address (local@domain)") }
        return try await erasing { try $0.erase(email: normalized) }
    }

    /// Erases the personal data of the subjects without an account older than `retentionDays` days.
    public func eraseExpired(retentionDays: Int) async throws(LedgerError) -> Erasure {
        try await erasing { try $0.eraseExpired(olderThan: retentionDays) }
    }

    private func erasing(_ body: @escaping @Sendable (ErasureService) throws -> ErasureService.Outcome) async throws(LedgerError) -> Erasure {
        try await perform { call in
            let outcome = try body(ErasureService(store: call.store, signInLocks: call.signInLocks, clock: SystemClock()))
            return Erasure(subjects: outcome.subjects.map(\.text), appended: outcome.appended.count)
        }
    }

    // MARK: - The shell

    private func change(_ account: String, _ action: AccountAction) async throws(LedgerError) -> AccountChange {
        let configuration = configuration
        return try await perform { call in AccountChange(try Self.accounts(call, configuration).run(action, account: account)) }
    }

    private func issue(_ kind: AccountTokens.Kind, email: String) async throws(LedgerError) -> IssuedToken? {
        let configuration = configuration
        return try await perform { call in
            try Self.accounts(call, configuration).issue(kind, email: email, random: SecureRandom()).map { issued in
                let expires = issued.outcome.appended.first.flatMap { event -> Timestamp? in
                    switch event.event {
                    case .emailVerificationRequested(let e): e.expiresAt
                    case .passwordResetRequested(let e): e.expiresAt
                    default: nil
                    }
                }
                return IssuedToken(uid: issued.outcome.uid, email: issued.outcome.email, token: issued.token.value, expiresAt: expires?.rfc3339)
            }
        }
    }

    /// The account service of one call, on the configuration's failpoints (its refusals read by `LedgerError.init`).
    static func accounts(_ call: LedgerStores.Call, _ configuration: Configuration) -> AccountService {
        let service = AccountService(store: call.store, signInLocks: call.signInLocks, clock: SystemClock(), failpoints: configuration.failpoints)
        service.beforeCrash = configuration.beforeCrash
        return service
    }
}

extension Ledger.AccountChange {
    /// What an account service's outcome says (`imageRemoval` as given).
    init(_ outcome: AccountService.Outcome, imageRemoval: AccountService.ImageRemoval = .none) {
        let previous = outcome.appended.lazy.compactMap { recorded -> String? in
            if case .emailChanged(let changed) = recorded.event { changed.previousEmail } else { nil }
        }.first
        self.init(uid: outcome.uid, status: outcome.status.rawValue, endedSessions: outcome.endedSessions, appended: outcome.appended.count,
                  email: outcome.email.isEmpty ? nil : outcome.email, previousEmail: previous,
                  erased: outcome.appended.contains { $0.event.erasedSubject != nil }, imageRemoval: imageRemoval)
    }

    /// A deletion's outcome, once its profile image's file is removed (when it cannot be, `ledger recover` removes it).
    init(_ outcome: AccountService.Outcome, removing configuration: Ledger.Configuration) {
        self.init(outcome, imageRemoval: AccountService.removeImage(deletedBy: outcome, from: FileBlobStore(directory: configuration.directory)))
    }
}

import LedgerDomain

// MARK: - Ledger, sign-up and sign-in

extension Ledger {
    /// A completed registration: the new account and its first session (the token shown once).
    public struct Registration: Sendable, Equatable {
        /// The registration's id (its stream).
        public let registration: String
        /// The new account's uid.
        public let uid: String
        /// The first session's id, and its token in clear for the new user only.
        public let sessionId: String?, token: String?
    }

    /// A started session.
    public struct Session: Sendable, Equatable {
        /// The session id.
        public let sessionId: String
        /// The account.
        public let uid: String
        /// The token in clear, for its owner only: never log or store it.
        public let token: String
        /// When it expires (RFC 3339).
        public let expiresAt: String
    }

    /// Signs a user up (account, image, profile, first session), compensating a partial sign-up;
    /// `invalidInput` or `emailTaken` when refused, with nothing left behind.
    public func register(email: String, password: String, userName: String, image: [UInt8]? = nil) async throws(LedgerError) -> Registration {
        let result = try await register(RegistrationInput(email: email, userName: userName, password: password, image: image))
        guard result.outcome == .completed, let uid = result.uid else {
            let code = result.failure?.reason ?? result.outcome.rawValue
            throw LedgerError(code == "email-already-in-use" ? .emailTaken : .invalidInput,
                              "registration \(result.registration) \(result.outcome.rawValue): \(code)")
        }
        return Registration(registration: result.registration, uid: uid, sessionId: result.sessionId, token: result.token)
    }

    /// Runs a sign-up as typed (the command line's `ledger register`) to its end and returns its
    /// outcome, completed or not: a refused input is a `rejected` result, a failed step a
    /// `compensated` one. With `idempotencyKey`, a repeat with the same input returns the first
    /// outcome and appends nothing; a key first used with another input is `invalidInput` (its
    /// `cause` a `RegistrationError`).
    public func register(_ input: RegistrationInput, idempotencyKey: String? = nil) async throws(LedgerError) -> RegistrationResult {
        let configuration = configuration
        return try await perform { call in
            let coordinator = RegistrationCoordinator(
                store: call.store, blobs: FileBlobStore(directory: configuration.directory), directory: configuration.directory,
                clock: SystemClock(), random: SecureRandom(), hasher: PasswordHasher(cost: configuration.hashCost),
                failpoints: configuration.failpoints, locks: call.registrationLocks)
            coordinator.beforeCrash = configuration.beforeCrash
            return try coordinator.register(input, idempotencyKey: idempotencyKey)
        }
    }

    /// Signs in with an email and password: a new session, or `signInRefused` (one answer for a
    /// wrong email, a wrong password and a locked account).
    public func signIn(email: String, password: String) async throws(LedgerError) -> Session {
        let configuration = configuration
        return try await perform { call in
            let service = Self.sessions(call, configuration)
            let started = try service.login(email: email, password: password)
            return Session(sessionId: started.sessionId, uid: started.uid, token: started.token, expiresAt: started.expiresAt.rfc3339)
        }
    }

    /// Ends a session (`noSuchSession` when there is none or it already ended).
    public func signOut(sessionId: String) async throws(LedgerError) {
        let configuration = configuration
        try await perform { call in _ = try Self.sessions(call, configuration).logout(sessionId: Identifiers.typed(sessionId)) }
    }

    /// The session service of one call, on the configuration's hash cost and failpoints.
    static func sessions(_ call: LedgerStores.Call, _ configuration: Configuration) -> SessionService {
        let service = SessionService(store: call.store, signInLocks: call.signInLocks, clock: SystemClock(), random: SecureRandom(),
                                     hasher: PasswordHasher(cost: configuration.hashCost), failpoints: configuration.failpoints)
        service.beforeCrash = configuration.beforeCrash
        return service
    }
}

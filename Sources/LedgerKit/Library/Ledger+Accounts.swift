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
        let cost = configuration.hashCost, directory = configuration.directory
        return try await perform { call in
            let coordinator = RegistrationCoordinator(
                store: call.store, blobs: FileBlobStore(directory: directory), directory: directory, clock: SystemClock(),
                random: SecureRandom(), hasher: PasswordHasher(cost: cost), failpoints: Failpoints(),
                locks: call.registrationLocks)
            let result: RegistrationResult
            do {
                result = try coordinator.register(RegistrationInput(email: email, userName: userName, password: password, image: image),
                                                  idempotencyKey: nil)
            } catch let error as RegistrationError {
                throw LedgerError(.invalidInput, error.message)
            }
            guard result.outcome == .completed, let uid = result.uid else {
                let code = result.failure?.reason ?? result.outcome.rawValue
                throw LedgerError(code == "email-already-in-use" ? .emailTaken : .invalidInput,
                                  "registration \(result.registration) \(result.outcome.rawValue): \(code)")
            }
            return Registration(registration: result.registration, uid: uid, sessionId: result.sessionId, token: result.token)
        }
    }

    /// Signs in with an email and password: a new session, or `signInRefused` (one answer for a
    /// wrong email, a wrong password and a locked account).
    public func signIn(email: String, password: String) async throws(LedgerError) -> Session {
        let cost = configuration.hashCost
        return try await perform { call in
            let service = SessionService(store: call.store, signInLocks: call.signInLocks, clock: SystemClock(),
                                         random: SecureRandom(), hasher: PasswordHasher(cost: cost))
            let started = try service.login(email: email, password: password)
            return Session(sessionId: started.sessionId, uid: started.uid, token: started.token, expiresAt: started.expiresAt.rfc3339)
        }
    }

    /// Ends a session (`noSuchSession` when there is none or it already ended).
    public func signOut(sessionId: String) async throws(LedgerError) {
        try await perform { call in
            let service = SessionService(store: call.store, signInLocks: call.signInLocks, clock: SystemClock(),
                                         random: SecureRandom(), hasher: PasswordHasher())
            _ = try service.logout(sessionId: sessionId)
        }
    }
}

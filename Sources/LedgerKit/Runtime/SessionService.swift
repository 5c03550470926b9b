import LedgerDomain

// MARK: - SessionService

/// Sign-in, sign-out and session starts. Refusals look the same for an unknown email and a
/// wrong password (same message, same status, one yescrypt computation either way).
public final class SessionService {
    let store: any EventStore
    let clock: any Clock
    let random: any RandomSource
    let hasher: PasswordHasher
    let failpoints: Failpoints
    /// How long a session lasts (default 30 days).
    public var lifetime: Int64 = 30 * 24 * 3600 * 1000
    /// The lockout rule.
    public var policy = SignInPolicy()
    /// Called before a failpoint kills the process.
    public var beforeCrash: () -> Void = {}

    /// A session service over `store`.
    public init(store: any EventStore, clock: any Clock, random: any RandomSource, hasher: PasswordHasher, failpoints: Failpoints = Failpoints()) {
        self.store = store; self.clock = clock; self.random = random; self.hasher = hasher; self.failpoints = failpoints
    }

    /// A started session: the id, the token (shown once) and its expiry.
    public struct Started: Equatable, Sendable {
        /// The session id.
        public var sessionId: String
        /// The user.
        public var uid: String
        /// The token in clear, for its owner only.
        public var token: String
        /// When it expires.
        public var expiresAt: Timestamp
    }

    /// The one message every refused sign-in gets.
    public static let refusal = "sign-in refused: wrong email or password, or the account is locked; try again later"

    /// Starts a session for `uid`: appends `SessionStarted` with the token's hash.
    public func start(uid: String) throws -> Started {
        try failpoints.beforeAppending(.sessionStarted)
        let (part, started) = newSession(uid: uid)
        _ = try store.append([part], condition: nil)
        failpoints.afterAppending(.sessionStarted, flush: beforeCrash)
        return started
    }

    /// A new session for `uid`, not yet appended: the append that starts it (`SessionStarted` with
    /// the token's hash, in a new stream) and what its owner gets once that is durable.
    public func newSession(uid: String) -> (part: StreamAppend, started: Started) {
        let sessionId = Identifiers.uuid(fromRandom: random.bytes(16))
        let token = SessionToken(random: random)
        let expiresAt = clock.now().adding(milliseconds: lifetime)
        let event = SessionStarted(sessionId: sessionId, uid: uid, tokenHash: token.hash, expiresAt: expiresAt)
        return (StreamAppend([.sessionStarted(event)], to: StreamCategory.session.stream(sessionId), expected: .noStream),
                Started(sessionId: sessionId, uid: uid, token: token.value, expiresAt: expiresAt))
    }

    /// Signs in: a session, or `AuthError(.signInRefused)` after appending `SignInFailed` with the true reason.
    public func login(email rawEmail: String, password: String) throws -> Started {
        let email = rawEmail.lowercasedASCII
        let record = try signInRecord(email: email)
        let matches: Bool
        if let account = record.account {
            matches = hasher.verify(password, against: account.passwordHash)
        } else {
            _ = try? hasher.hash(password, random: random)  // the same work as a verification
            matches = false
        }
        let reason: SignInFailure?
        if record.account == nil {
            reason = .unknownEmail
        } else if policy.lockedUntil(recent: record.recentFailures, at: clock.now()) != nil {
            reason = .locked
        } else {
            reason = matches ? nil : .wrongPassword
        }
        if let reason {
            let attempt = Identifiers.uuid(fromRandom: random.bytes(16))
            _ = try store.append([.signInFailed(SignInFailed(email: email, reason: reason))],
                                 to: StreamCategory.signin.stream(attempt), expected: .noStream)
            throw AuthError(.signInRefused, Self.refusal)
        }
        return try start(uid: record.account!.uid)
    }

    /// What the sign-in of `email` needs: from the store's index when it has one (and the policy
    /// counts no more failures than a record keeps), else folded from the whole log — only the users
    /// and sign-in views, and only this email's accounts built whole, for their password hashes.
    public func signInRecord(email: String) throws -> SignInRecord {
        if policy.maxFailures <= SignInRecord.keptFailures, let record = try store.signInRecord(email: email) { return record }
        var views = LedgerViews()
        views.signIns = SignInView(policy: policy)
        views.narrow(to: [.users, .signIns])
        var hashes: [String: String] = [:]
        let accounts = try store.scanViews(wanted: { event in
            if case .accountCreated(_, let created, _) = event.fact { return created == email }
            return false
        }, visit: { event, hash in views.apply(event, hash: hash) })
        for event in accounts {
            if case .accountCreated(let created) = event.event { hashes[created.uid] = created.passwordHash }
        }
        let key = views.emailKey(email)
        let account = AccountFold.signInAccount(of: key, in: views).flatMap { uid in
            hashes[uid.uuidString].map { SignInRecord.Account(uid: uid.uuidString, passwordHash: $0) }
        }
        return SignInRecord(account: account, recentFailures: views.recentFailures(of: key))
    }

    /// Ends an active session with reason `logout`.
    public func logout(sessionId: String) throws -> SessionRow {
        let stream = StreamCategory.session.stream(sessionId)
        var views = SessionView()
        let events = Identifiers.isLowercaseUUID(sessionId) ? try store.readStreamForAppend(stream) : []
        events.forEach { views.apply($0) }
        guard let row = views.row(sessionId: sessionId), row.status(at: clock.now()) == .active else {
            throw AuthError(.noSession, "no active session \(sessionId)")
        }
        _ = try store.append([.sessionEnded(SessionEnded(sessionId: sessionId, uid: row.uid, reason: "logout"))],
                             to: stream, expected: .exactly(events.count))
        return row
    }
}

import LedgerDomain

// MARK: - SessionService

/// Sign-in, sign-out and session starts. Refusals look the same for an unknown email, a wrong
/// password, a locked and a disabled account (same message, same status, one yescrypt computation each).
public final class SessionService {
    let store: any LedgerStore
    let clock: any Clock
    let random: any RandomSource
    let hasher: PasswordHasher
    let failpoints: Failpoints
    let signInLocks: any SignInLocks
    /// How long a session lasts unless set otherwise: 30 days.
    public static let defaultLifetime: Int64 = 30 * 24 * 3600 * 1000
    /// How long a session lasts.
    public var lifetime = SessionService.defaultLifetime
    /// The lockout rule.
    public var policy = SignInPolicy()
    /// Called before a failpoint kills the process.
    public var beforeCrash: () -> Void = {}

    /// A session service over `store`, whose sign-ins of one email take turns through `signInLocks`
    /// (the store's own: lock files for the file log, advisory locks for PostgreSQL).
    public init(store: any LedgerStore, signInLocks: any SignInLocks, clock: any Clock, random: any RandomSource, hasher: PasswordHasher,
                failpoints: Failpoints = Failpoints()) {
        self.store = store; self.signInLocks = signInLocks; self.clock = clock; self.random = random; self.hasher = hasher
        self.failpoints = failpoints
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
    public func start(uid: String) throws -> Started { try start(newSession(uid: uid)) }

    /// Appends a session made by `newSession` and returns what its owner gets.
    private func start(_ session: (part: StreamAppend, started: Started)) throws -> Started {
        try failpoints.beforeAppending(.sessionStarted)
        try failpoints.append([session.part], to: store, condition: nil, flush: beforeCrash)
        failpoints.afterAppending(.sessionStarted, flush: beforeCrash)
        return session.started
    }

    /// A new session for `uid`, not yet appended: the append that starts it (`SessionStarted` with
    /// the token's hash, in a new stream) and what its owner gets once that is durable.
    public func newSession(uid: String) -> (part: StreamAppend, started: Started) {
        Self.newSession(uid: uid, clock: clock, random: random, lifetime: lifetime)
    }

    /// A new session for `uid` lasting `lifetime`, not yet appended (see `newSession(uid:)`).
    public static func newSession(uid: String, clock: any Clock, random: any RandomSource,
                                  lifetime: Int64 = defaultLifetime) -> (part: StreamAppend, started: Started) {
        let sessionId = Identifiers.uuid(fromRandom: random.bytes(16))
        let token = SessionToken(random: random)
        let expiresAt = clock.now().adding(milliseconds: lifetime)
        let event = SessionStarted(sessionId: sessionId, uid: uid, tokenHash: token.hash, expiresAt: expiresAt)
        return (StreamAppend([.sessionStarted(event)], to: StreamCategory.session.stream(sessionId), expected: .noStream),
                Started(sessionId: sessionId, uid: uid, token: token.value, expiresAt: expiresAt))
    }

    /// Signs in: a session, or `AuthError(.signInRefused)` after appending `SignInFailed` with the
    /// true reason (see `withCheckedPassword`).
    public func login(email rawEmail: String, password: String) throws -> Started {
        var session: (part: StreamAppend, started: Started)?
        return try withCheckedPassword(email: rawEmail, password: password, announcing: { uid in
            session = self.newSession(uid: uid)
            return session!.started.sessionId
        }, then: { _, lock in
            let started = try self.start(session!)
            try? lock.clearPendingCheck()  // a marker left over is not counted again: its session exists
            return started
        })
    }

    /// Checks `password` for `email` as a sign-in does, then runs `body` while still holding the
    /// email's sign-in lock; or throws `AuthError(.signInRefused)` after appending `SignInFailed`
    /// with the true reason. `login` starts a session in `body`; an account command (change the
    /// password or the email, delete the account) appends its own events there.
    ///
    /// The email's sign-in lock is held from reading its record to appending the outcome, so the
    /// next attempt decides from this one's: the policy's count of password checks holds however many
    /// attempts run at once. `AccountFold.signInDecision` decides from the record whether the password
    /// is checked; an unknown email, a disabled and a locked account get the same yescrypt work
    /// instead, and the same refusal (a disabled account's refusal is no wrong password: it does not
    /// count towards the lockout).
    /// Every password check is counted whatever becomes of the process: it is announced durably on
    /// the lock (`notePendingCheck`) before it runs, and a check left behind without an outcome is
    /// counted as a wrong password by the next sign-in of the email, before it reads the record,
    /// unless the session `announcing` names exists by then. `announcing` gets the account's uid and
    /// names that session (`login`'s new one; any other caller a fresh id, so a check it leaves
    /// behind always counts). `body` clears the marker once its outcome is durable; when it throws,
    /// the marker stays and the check is counted as a wrong password. When the announcement cannot
    /// be written the password is not checked (the error is thrown).
    public func withCheckedPassword<T>(email rawEmail: String, password: String,
                                       announcing session: ((_ uid: String) -> String)? = nil,
                                       then body: (SignInRecord.Account, any HeldSignInLock) throws -> T) throws -> T {
        let email = EmailRule.normalized(rawEmail)
        let lock = try signInLocks.acquire(email: email)
        defer { lock.release() }
        if let leftover = lock.leftover {
            try countInterrupted(leftover, email: email)
            try lock.clearPendingCheck()
        }
        let record = try signInRecord(email: email)
        var reason = AccountFold.signInDecision(liveStatus: record.liveStatus, recentFailures: record.recentFailures,
                                                policy: policy, at: clock.now())
        let attempt: String
        if reason == nil, let account = record.account {
            // A live account's password line always holds a hash: read as empty, its key is gone
            // without an erasure (keys lost). That is damage, not a wrong password: nothing is
            // checked or counted, and the lockout never counts the right password.
            guard !ErasedText.isErased(account.passwordHash) else {
                try store.checkKeyStore()  // one that is not a key store is said as such
                throw StoreError(.damaged, "the password line of account \(account.uid) cannot be read: its key is missing from the key store; run `ledger verify`",
                                 reason: "missing-key")
            }
            // An account command's outcome goes to the account's stream: its version now lets the
            // next holder tell from the log whether the outcome was appended.
            let version = session == nil ? AccountVersion(uid: account.uid, version: try store.streamVersion(StreamCategory.account.stream(account.uid))) : nil
            let check = PendingCheck(attempt: Identifiers.uuid(fromRandom: random.bytes(16)),
                                     sessionId: session?(account.uid) ?? Identifiers.uuid(fromRandom: random.bytes(16)), account: version)
            do {
                try lock.notePendingCheck(check)
            } catch let error as StoreError {
                throw StoreError(error.code, "the password was not checked: \(error.message)", reason: error.reason)
            }
            if hasher.verify(password, against: account.passwordHash) { return try body(account, lock) }
            (reason, attempt) = (.wrongPassword, check.attempt)
        } else {
            _ = try? hasher.hash(PasswordRule.isCheckable(password) ? password : "", random: random)  // the same work as a verification
            attempt = Identifiers.uuid(fromRandom: random.bytes(16))
        }
        let failure = reason ?? .unknownEmail  // a record that lets the password be checked names its account
        try failpoints.beforeAppending(.signInFailed)
        let refused = StreamAppend([.signInFailed(SignInFailed(email: email, reason: failure))], to: StreamCategory.signin.stream(attempt),
                                   expected: .noStream)
        try failpoints.append([refused], to: store, condition: nil, flush: beforeCrash)
        failpoints.afterAppending(.signInFailed, flush: beforeCrash)
        if failure == .wrongPassword { try? lock.clearPendingCheck() }  // a marker left over is not counted again: its stream exists
        throw AuthError(.signInRefused, Self.refusal)
    }

    /// Counts a password check whose outcome never reached the log as a wrong password: appends
    /// `SignInFailed(wrong-password)` to the stream its failure would have gone to, unless it started
    /// its session or that stream already holds its failure (a holder that died after the outcome).
    func countInterrupted(_ check: PendingCheck, email: String) throws {
        guard try store.streamVersion(StreamCategory.session.stream(check.sessionId)) == 0 else { return }
        // An account command's outcome: the event its account stream gained right after the check
        // began, read from the verified log (rare: only a leftover comes here), and of a kind only a
        // checked password appends — a reset requested meanwhile by anyone settles nothing.
        if let account = check.account {
            let stream = try store.readStream(StreamCategory.account.stream(account.uid))
            if stream.count > account.version, CheckedPasswordOutcome.startsWithOutcome(stream[account.version...].lazy.map(\.event)) { return }
        }
        do {
            _ = try store.append([.signInFailed(SignInFailed(email: email, reason: .wrongPassword))],
                                 to: StreamCategory.signin.stream(check.attempt), expected: .noStream)
        } catch let error as StoreError where error.code == .wrongExpectedVersion {
            return  // already counted
        }
    }

    /// What the sign-in of `email` needs: from the store's index when it has one (and the policy
    /// counts no more failures than a record keeps), else folded from the whole log — only the users
    /// and sign-in views, and only the password lines built whole (the `AccountCreated` lines of this
    /// email and every `PasswordChanged`: an account's last one holds its password hash).
    public func signInRecord(email: String) throws -> SignInRecord {
        if policy.maxFailures <= SignInRecord.keptFailures, let record = try store.signInRecord(email: email) { return record }
        var views = LedgerViews()
        views.signIns = SignInView(policy: policy)
        views.narrow(to: [.users, .signIns])
        let lines = try store.scanViews(wanted: { event in
            switch event.fact {
            case .accountCreated(_, let created, _): return created == email
            // Every one: the email's account may have been created with another email and moved to
            // this one later, and which account that is is known only at the end.
            case .passwordChanged: return true
            default: return false
            }
        }, visit: { event, hash in views.apply(event, hash: hash) })
        var hashes: [String: String] = [:]  // in log order: the last line of each account wins
        for case let (uid, hash)? in lines.lazy.map(\.event.passwordLine) { hashes[uid] = hash }
        let key = views.emailKey(email)
        if let uid = AccountFold.signInAccount(of: key, in: views), hashes[uid.uuidString] == nil,
           let row = views.users.row(uid: uid.uuidString) {
            // An account that moved to `email` was created with another: its registration holds the hash.
            for event in try store.readIndexedStream(StreamCategory.registration.stream(row.registration)) {
                if case .accountCreated = event.event, let line = event.event.passwordLine, line.uid == row.uid { hashes[line.uid] = line.passwordHash }
            }
        }
        let account = AccountFold.signInAccount(of: key, in: views).flatMap { uid in
            hashes[uid.uuidString].map { SignInRecord.Account(uid: uid.uuidString, passwordHash: $0) }
        }
        return SignInRecord(liveStatus: AccountFold.liveStatus(of: key, in: views), account: account,
                            recentFailures: views.recentFailures(of: key))
    }

    /// Ends an active session with reason `logout`.
    public func logout(sessionId: String) throws -> SessionRow {
        let stream = StreamCategory.session.stream(sessionId)
        var views = SessionView()
        let events = Identifiers.isLowercaseUUID(sessionId) ? try store.readIndexedStream(stream) : []
        events.forEach { views.apply($0) }
        guard let row = views.row(sessionId: sessionId), row.status(at: clock.now()) == .active else {
            throw AuthError(.noSession, "no active session \(sessionId)")
        }
        try failpoints.beforeAppending(.sessionEnded)
        let ended = StreamAppend([.sessionEnded(SessionEnded(sessionId: sessionId, uid: row.uid, reason: "logout"))], to: stream,
                                 expected: .exactly(events.count))
        try failpoints.append([ended], to: store, condition: nil, flush: beforeCrash)
        failpoints.afterAppending(.sessionEnded, flush: beforeCrash)
        return row
    }
}

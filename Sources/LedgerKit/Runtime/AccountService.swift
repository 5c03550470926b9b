import LedgerDomain

// MARK: - AccountService

/// The account commands after sign-up (disable, enable, sign out everywhere): the shell of
/// `AccountFold.decide`. Each holds the account's email's sign-in lock from reading the account to
/// appending what was decided, so a sign-in of that email runs wholly before (its session is then
/// seen, and ended) or wholly after (it then reads the new status): once a disable returns, no
/// session of the account is active. Every decision is taken from a fold of the whole verified log,
/// never from a checkpoint or the writers' index (`currentViews`). The decided events are one append, each part with its expected
/// version: the account's stream as read, and each ended session's stream holding only its start.
public final class AccountService {
    let store: any LedgerStore
    let signInLocks: any SignInLocks
    let clock: any Clock
    let failpoints: Failpoints
    /// Called before a failpoint kills the process (the CLI flushes its output).
    public var beforeCrash: () -> Void = {}

    /// A service over `store`, taking the sign-in locks of `signInLocks` (the store's own); `failpoints`
    /// (drills) may fail, cut or crash its appends.
    public init(store: any LedgerStore, signInLocks: any SignInLocks, clock: any Clock, failpoints: Failpoints = Failpoints()) {
        self.store = store; self.signInLocks = signInLocks; self.clock = clock; self.failpoints = failpoints
    }

    /// What a command did.
    public struct Outcome: Equatable, Sendable {
        /// The account.
        public var uid: String
        /// Its email.
        public var email: String
        /// Its status afterwards.
        public var status: AccountStatus
        /// The sessions it ended, in the order they started.
        public var endedSessions: [String]
        /// The events appended (none when there was nothing to do).
        public var appended: [RecordedEvent]
        /// True when another account, live, holds the email the account held last (an account
        /// deleted before, whose email was taken since): the lock of that email is that account's.
        var emailHeldByAnother = false
    }

    /// Runs `command` on the account `key` names (a uid, or an email: its live account, else the
    /// last created with it). Throws `AuthError(.noAccount)` when there is none, an `AccountRefusal`
    /// when its state does not allow the command (or `email-already-in-use` when the email it claims
    /// is taken: `AppendCondition.uniqueEmails` decides that under the store's append lock), and `StoreError(.wrongExpectedVersion)` when a
    /// writer that takes no sign-in lock changed one of its streams meanwhile (nothing is appended).
    public func run(_ command: AccountAction, account key: String) throws -> Outcome {
        try run(account: key) { _ in command }
    }

    /// Runs the command `decide` makes of the account's standing on the account `key` names, holding
    /// its email's sign-in lock (see `run(_:account:)` and `runHoldingLock(_:uid:)`).
    /// When the account moved to another email before the lock was taken, the lock is taken again
    /// for that email: the lock held while deciding is always the one its sign-ins take.
    public func run(account key: String, _ decide: (AccountStanding) throws -> AccountAction) throws -> Outcome {
        let named = try account(named: key)
        var email = named.email
        while true {
            let lock = try signInLocks.acquire(email: email)
            defer { lock.release() }  // a leftover check stays for the next sign-in to count
            do {
                let outcome = try runHoldingLock({ standing in
                    if standing.email != email { throw EmailMoved(email: standing.email) }
                    return try decide(standing)
                }, uid: named.uid)
                // Erased: a check left in the lock's file is dropped, so the file goes on release
                // (unless the email is another live account's now: the check is that account's).
                if outcome.appended.contains(where: { $0.event.erasedSubject != nil }), !outcome.emailHeldByAnother {
                    try lock.clearPendingCheck()
                }
                return outcome
            } catch let moved as EmailMoved {
                email = moved.email
            }
        }
    }

    /// The account's email changed between naming the account and taking that email's lock.
    private struct EmailMoved: Error { let email: String }

    /// The account `key` names: the one with that uid, else the live account of that email, else the
    /// last created with it. Throws `AuthError(.noAccount)` when there is none.
    public func account(named key: String) throws -> UserRow {
        guard let named = try currentViews().users.row(uidOrEmail: key) else {
            throw AuthError(.noAccount, "no account with uid or email \"\(key)\"")
        }
        return named
    }

    /// Runs the command `decide` makes of the account's standing on the account `uid`, whose email's
    /// sign-in lock the caller holds (`SessionService.withCheckedPassword` does, after checking its
    /// password). `decide` may throw an `AccountRefusal` of its own.
    public func runHoldingLock(_ decide: (AccountStanding) throws -> AccountAction, uid key: String) throws -> Outcome {
        let stream = StreamCategory.account.stream(key)
        let version = try store.streamVersion(stream)  // before the views: a later change fails the append
        let views = try currentViews()
        guard let row = views.users.row(uid: key), let uid = UUIDBits(uuid: key) else {
            throw AuthError(.noAccount, "no account with uid or email \"\(key)\"")
        }
        let now = clock.now()
        let active = views.sessions.rows(uid: uid).filter { $0.status(at: now) == .active }.map(\.sessionId)
        var standing = AccountStanding(uid: row.uid, status: row.status, activeSessions: active, email: row.email,
                                       emailVerified: row.emailVerified, profileImage: row.profileImageName)
        standing.sealed = store.dataVersion >= 2
        let events = try AccountFold.decide(try decide(standing), standing).get()
        var parts: [StreamAppend] = []
        var accountEvents: [LedgerEvent] = [], ended: [String] = []
        for event in events {
            if case .sessionEnded(let end) = event {
                // An active session's stream holds its start alone.
                parts.append(StreamAppend([event], to: StreamCategory.session.stream(end.sessionId), expected: .exactly(1)))
                ended.append(end.sessionId)
            } else {
                accountEvents.append(event)
            }
        }
        if !accountEvents.isEmpty {
            parts.insert(StreamAppend(accountEvents, to: stream, expected: version == 0 ? .noStream : .exactly(version)), at: 0)
        }
        let appended: [RecordedEvent]
        // An erasure is noted before its event is appended, and its key destroyed once the event is durable.
        let erasing = events.compactMap(\.erasedSubject)
        // The emails the account held, read while its key still opens them: their lock files go with it.
        var heldEmails: [String] = []
        if !erasing.isEmpty {
            for recorded in try store.readStream(stream) {
                if case .emailChanged(let changed) = recorded.event { heldEmails += [changed.email, changed.previousEmail] }
            }
        }
        do {
            for part in parts { for event in part.events { try failpoints.beforeAppending(event.type) } }  // any of the batch's types
            // An email change claims its email.
            appended = parts.isEmpty ? [] : try failpoints.append(parts, to: store, condition: .uniqueEmails, flush: beforeCrash)
            for part in parts { for event in part.events { failpoints.afterAppending(event.type, flush: beforeCrash) } }
        } catch let error as StoreError where error.condition == .emailTaken {
            throw AccountRefusal(code: .emailTaken, message: error.message)
        }
        if !erasing.isEmpty {
            try store.destroyKeys(of: erasing)
            // The caller holds row.email's; an email the account moved away from that a live account
            // holds now keeps its lock (that account's, with any check left in it).
            try signInLocks.forget(emails: heldEmails.filter { $0 != row.email && !views.holdsLiveAccount(email: $0) })
        }
        var after = views.users
        for event in appended { after.apply(ViewEvent(event)) }
        // An erased account's email is forgotten: the outcome does not carry it either.
        return Outcome(uid: row.uid, email: erasing.isEmpty ? row.email : "", status: after.row(uid: row.uid)?.status ?? row.status,
                       endedSessions: ended, appended: appended,
                       emailHeldByAnother: views.users.live(email: row.email).map { $0.uid != row.uid } ?? false)
    }

    /// The users and sessions views up to the head, folded from the whole verified log: what these
    /// commands decide (which account an email names, its status, its image, its active sessions) is
    /// irreversible or must be complete, so it never rests on a cache's word (a re-sealed checkpoint
    /// can swap emails, lend an image or hide a session). About a second per million events.
    private func currentViews() throws -> LedgerViews {
        try store.currentViews(now: clock.now(), usingCheckpoint: false)
    }
}

// MARK: - AccountFoldState

/// What one account is to the fold: its status and the email it was last created with.
public struct AccountFacts<EmailKey: Equatable>: Equatable {
    /// Its status.
    public var status: AccountStatus
    /// The key of the email it was last created with or changed to.
    public var email: EmailKey

    /// Facts from their parts.
    public init(status: AccountStatus, email: EmailKey) { self.status = status; self.email = email }
}

/// The state the account fold reads and writes. Each view, index and store keeps it its own way
/// (rows, a mapped table, SQL rows) and implements these few operations; `AccountFold` alone decides
/// what an event changes and what the state means.
public protocol AccountFoldState {
    /// How this storage keys an email (the text itself, a digest, a row reference).
    associatedtype EmailKey: Equatable

    /// The key of `email` (normalized).
    func emailKey(_ email: String) -> EmailKey
    /// The account `uid`, nil when it was never created.
    func account(_ uid: UUIDBits) -> AccountFacts<EmailKey>?
    /// `account(uid)?.status`, for a storage that reads it without the email (the fold asks it of
    /// most events; a default gives `account`'s).
    func status(of uid: UUIDBits) -> AccountStatus?
    /// The account last created with `email` or moved to it, deleted or not.
    func lastAccount(of email: EmailKey) -> UUIDBits?
    /// Records that `event` created the account `uid` with `email`, in `status`: it is now the email's
    /// last account and the account's email. The storage keeps what else it needs of `event`.
    mutating func recordCreation(of uid: UUIDBits, email: EmailKey, status: AccountStatus, by event: ViewEvent)
    /// Sets the status of the existing account `uid`.
    mutating func setStatus(_ status: AccountStatus, of uid: UUIDBits)
    /// Records that `event` (a `PasswordChanged`) set the password of the existing account `uid`:
    /// its line, not the account's `AccountCreated`, now holds the hash a sign-in checks. The storage
    /// keeps what it needs to find that line.
    mutating func recordPassword(of uid: UUIDBits, by event: ViewEvent)
    /// Records that `event` (an `EmailChanged`) moved the existing account `uid` to `email`: it is
    /// now the email's last account and the account's email (its old email is then held by no one).
    mutating func recordEmailChange(of uid: UUIDBits, to email: EmailKey, by event: ViewEvent)

    /// False when the storage keeps no wrong passwords at all (`mayHaveFailures` is then false for
    /// every email, and the fold need not read an account's email to ask it); a default gives true.
    var keepsFailures: Bool { get }
    /// True when `email` may have consecutive wrong passwords (false only when it has none).
    func mayHaveFailures(_ email: EmailKey) -> Bool
    /// The times of `email`'s consecutive wrong passwords, oldest first: at least the last
    /// `SignInPolicy.maxFailures` of them.
    func recentFailures(of email: EmailKey) -> [Timestamp]
    /// Adds a wrong password of `email` at `time`.
    mutating func appendFailure(of email: EmailKey, at time: Timestamp, by event: ViewEvent)
    /// Forgets `email`'s consecutive wrong passwords.
    mutating func clearFailures(of email: EmailKey)
}

extension AccountFoldState {
    /// `account(uid)?.status`.
    public func status(of uid: UUIDBits) -> AccountStatus? { account(uid)?.status }
    /// True: the storage may keep wrong passwords.
    public var keepsFailures: Bool { true }
}

// MARK: - AccountFold

/// The account rules, decided once: how each event changes accounts and sign-in failures, which
/// account is live for an email, and which may sign in. The users and sign-in views, the writers'
/// index and the PostgreSQL account table all run these functions over their own storage.
public enum AccountFold {
    /// Applies `event` to `state`; returns the rule it breaks, if any (the event is applied anyway:
    /// the log is what happened).
    /// - An account is created pending, becomes the email's account and starts with no failures; a
    ///   profile activates a pending account; a deletion deletes it; a disable disables an active
    ///   account and an enable makes a disabled one active again.
    /// - An email change moves an account that holds its email to the new one, which becomes the
    ///   new email's account with no failures; the old email is then free.
    /// - A password change makes its line the one holding the account's password hash; a reset
    ///   also clears the failures of the account's email (the lockout ends).
    /// - A wrong password adds a failure to its email; a session start clears the failures of the
    ///   email its account holds.
    @discardableResult
    public static func evolve<State: AccountFoldState>(_ state: inout State, _ event: ViewEvent, policy: SignInPolicy) -> RuleBreak? {
        evolve(&state, event, checking: policy)
    }

    /// Applies `event` to `state`, as `evolve(_:_:policy:)` does, without asking which rule it breaks:
    /// what the state becomes never depends on the lockout policy (only the rules an event breaks
    /// do), so the stores and indexes that keep the fold's state are given none.
    public static func evolve<State: AccountFoldState>(_ state: inout State, _ event: ViewEvent) {
        _ = evolve(&state, event, checking: nil)
    }

    /// The fold; with `policy`, also the rule `event` breaks.
    private static func evolve<State: AccountFoldState>(_ state: inout State, _ event: ViewEvent, checking policy: SignInPolicy?) -> RuleBreak? {
        switch event.fact {
        case .accountCreated(let uid, let email, _):
            let key = state.emailKey(email)
            // An erased email (its key destroyed) can no longer be compared with another: it claims
            // nothing a rule could be checked against (every erased email reads alike).
            let holder = ErasedText.isErased(email) ? nil : liveAccount(of: key, in: state)
            state.recordCreation(of: uid, email: key, status: .pending, by: event)
            if state.mayHaveFailures(key) { state.clearFailures(of: key) }
            guard let holder, holder != uid else { return nil }
            return RuleBreak(kind: .duplicateLiveAccount, seq: event.seq, uid: uid)
        case .profileWritten(let uid, _, _, _):
            if state.status(of: uid) == .pending { state.setStatus(.active, of: uid) }
            return nil
        case .accountDeleted(let uid, _, _):
            if let status = state.status(of: uid), status != .deleted { state.setStatus(.deleted, of: uid) }
            return nil
        case .accountDisabled(let uid, _):
            if state.status(of: uid) == .active { state.setStatus(.disabled, of: uid) }
            return nil
        case .accountEnabled(let uid):
            if state.status(of: uid) == .disabled { state.setStatus(.active, of: uid) }
            return nil
        case .passwordChanged(let uid, let reason):
            guard let account = state.account(uid), account.status.holdsEmail else { return nil }
            state.recordPassword(of: uid, by: event)
            if reason == .reset, state.mayHaveFailures(account.email) { state.clearFailures(of: account.email) }
            return nil
        case .emailChanged(let uid, let email, _):
            guard let account = state.account(uid), account.status.holdsEmail else { return nil }
            let key = state.emailKey(email)
            guard key != account.email else { return nil }
            let holder = ErasedText.isErased(email) ? nil : liveAccount(of: key, in: state)
            state.recordEmailChange(of: uid, to: key, by: event)
            if state.mayHaveFailures(key) { state.clearFailures(of: key) }
            guard let holder, holder != uid else { return nil }
            return RuleBreak(kind: .duplicateLiveAccount, seq: event.seq, uid: uid)
        case .signInFailed(let email, let reason):
            guard reason == .wrongPassword else { return nil }
            let key = state.emailKey(email)
            // Every erased email reads alike: the failures of different people meet under it, so no
            // rule is checked against them (the state keeps them as before: the caches hold it).
            let checked = ErasedText.isErased(email) ? nil : policy
            let locked = checked.map { lockedUntil(key, in: state, policy: $0, at: event.at) != nil } ?? false
            state.appendFailure(of: key, at: event.at, by: event)
            guard locked else { return nil }
            return RuleBreak(kind: .passwordCheckedWhileLocked, seq: event.seq, uid: liveAccount(of: key, in: state) ?? .zero)
        case .sessionStarted(_, let uid, _):
            guard let status = state.status(of: uid) else {
                return RuleBreak(kind: .sessionWithoutAccount, seq: event.seq, uid: uid)
            }
            var broken: RuleBreak?
            if !status.maySignIn { broken = RuleBreak(kind: .sessionWithoutAccount, seq: event.seq, uid: uid) }
            // The email only where failures may be kept: most sessions start where none are.
            guard state.keepsFailures, let email = state.account(uid)?.email, state.mayHaveFailures(email) else { return broken }
            if broken == nil, let policy, email != state.emailKey(ErasedText.erased),
               policy.lockedUntil(recent: state.recentFailures(of: email), at: event.at) != nil {
                broken = RuleBreak(kind: .signinWhileLocked, seq: event.seq, uid: uid)
            }
            state.clearFailures(of: email)
            return broken
        default:
            return nil
        }
    }

    /// What `evolve` reads of the state for `event`: the email it names and the account it creates
    /// or changes. A storage that loads its rows on demand (the PostgreSQL tables) loads these first.
    /// An event's fact is enough: an append asks before its lines have a seq.
    public static func keys(of fact: ViewEvent.Fact) -> (email: String?, account: UUIDBits?, creates: Bool) {
        switch fact {
        case .accountCreated(let uid, let email, _): (email, uid, true)
        case .signInFailed(let email, _): (email, nil, false)
        case .emailChanged(let uid, let email, _): (email, uid, false)
        case .profileWritten(let uid, _, _, _), .accountDeleted(let uid, _, _), .sessionStarted(_, let uid, _),
             .accountDisabled(let uid, _), .accountEnabled(let uid), .passwordChanged(let uid, _): (nil, uid, false)
        default: (nil, nil, false)
        }
    }

    /// The live account of `email`: the last account created with it, when it still holds it (not
    /// deleted, and not created again since with another email). One live account per email.
    public static func liveAccount<State: AccountFoldState>(of email: State.EmailKey, in state: State) -> UUIDBits? {
        guard let uid = state.lastAccount(of: email), let account = state.account(uid),
              account.status.holdsEmail, account.email == email else { return nil }
        return uid
    }

    /// The account that may sign in with `email`: its live account, when active.
    public static func signInAccount<State: AccountFoldState>(of email: State.EmailKey, in state: State) -> UUIDBits? {
        guard let uid = liveAccount(of: email, in: state), state.status(of: uid)?.maySignIn == true else { return nil }
        return uid
    }

    /// What a sign-in of `email` may do at `now`: check the password of its live account, or refuse
    /// for the true reason without checking one (no live account, an account that may not sign in,
    /// a lockout). An account that may not sign in is refused before the lockout is asked.
    public static func signInDecision(liveStatus: AccountStatus?, recentFailures: [Timestamp], policy: SignInPolicy,
                                      at now: Timestamp) -> SignInFailure? {
        guard let liveStatus else { return .unknownEmail }
        if let refusal = liveStatus.signInRefusal { return refusal }
        return policy.lockedUntil(recent: recentFailures, at: now) != nil ? .locked : nil
    }

    /// The status of `email`'s live account, nil when it has none.
    public static func liveStatus<State: AccountFoldState>(of email: State.EmailKey, in state: State) -> AccountStatus? {
        liveAccount(of: email, in: state).flatMap { state.status(of: $0) }
    }

    /// When `email` is locked out at `now` under `policy`, the instant the lock ends; else nil: the
    /// policy's rule (`SignInPolicy.lockedUntil`) over any fold state's failures.
    public static func lockedUntil<State: AccountFoldState>(_ email: State.EmailKey, in state: State, policy: SignInPolicy,
                                                             at now: Timestamp) -> Timestamp? {
        guard state.mayHaveFailures(email) else { return nil }
        return policy.lockedUntil(recent: state.recentFailures(of: email), at: now)
    }
}

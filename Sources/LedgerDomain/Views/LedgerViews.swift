// MARK: - LedgerViews

/// Every view, folded together from one pass over the log. Pure: replay, `--as-of`,
/// live reads and tests all run this same code.
public struct LedgerViews: Equatable, Sendable {
    /// Users.
    public var users = UserView()
    /// Sessions.
    public var sessions = SessionView()
    /// Images.
    public var images = ImageView()
    /// Registrations.
    public var registrations = RegistrationView()
    /// Sign-in failures.
    public var signIns = SignInView()
    /// Disables, enables and revoked sessions.
    public var accountChanges = AccountChangeView()
    /// Events applied.
    public var events = 0
    /// The account rules the log breaks, in log order (noted while `ruleBreakViews` are folded).
    public internal(set) var ruleBreaks: [RuleBreak] = []
    /// The views whose state the rule breaks are judged by: the fold's whole state.
    public static let ruleBreakViews: Selection = [.users, .signIns]
    /// The views `apply` keeps up to date (all unless narrowed).
    public private(set) var selection = Selection.all
    /// The last event's seq and hash (kept as bits; `head` spells the hash out).
    private(set) var headSeq = 0
    private(set) var headHash = Digest32.zero

    /// Empty views.
    public init() {}

    /// The head of the events applied.
    public var head: Head {
        get { Head(seq: headSeq, hash: headHash.hex) }
        set { headSeq = newValue.seq; headHash = Digest32(hex: newValue.hash) ?? .zero }
    }

    /// Sets the head (from a checkpoint).
    mutating func restoreHead(seq: Int, hash: Digest32) { headSeq = seq; headHash = hash }

    /// Applies one event, whose line hashed to `hash`, to every view selected. The users and sign-in
    /// views' account state goes through `AccountFold`, once for both.
    public mutating func apply(_ event: ViewEvent, hash: Digest32) {
        if selection == .all {
            accountChanges.apply(event, users: users)
            foldAccounts(event)
            sessions.apply(event)
            images.apply(event)
            registrations.apply(event)
        } else {
            if selection.contains(.accountChanges) { accountChanges.apply(event, users: users) }
            if selection.contains(.users) { foldAccounts(event) }
            if selection.contains(.sessions) { sessions.apply(event) }
            if selection.contains(.images) { images.apply(event) }
            if selection.contains(.registrations) { registrations.apply(event) }
        }
        headSeq = event.seq
        headHash = hash
        events += 1
    }

    /// Calls `hint` with the addresses where `apply` of `event`, a few lines ahead, will look: at
    /// `.slots`, the home slots of its account, email, session and registration in the views'
    /// indexes; at `.rows`, asked for some lines later once those slots are in the cache, the rows
    /// they lead to. The shell asks for them before the fold gets there: the fold's lookups miss
    /// the cache on most events otherwise. Decides nothing and reads none of those addresses.
    public func prefetch(for event: UnsafePointer<ViewEvent>, stage: PrefetchStage = .slots, hint: (UnsafeRawPointer) -> Void) {
        if event.pointee.category == .registration, selection.contains(.registrations) {
            registrations.prefetch(stream: event.pointee.stream, stage, hint)
        }
        if selection.contains(.users) {
            switch event.pointee.fact {
            case .sessionStarted(_, let uid, _), .profileWritten(let uid, _, _, _), .accountDeleted(let uid, _, _): users.prefetch(uid: uid, stage, hint)
            case .accountCreated(let uid, let email, _):
                users.prefetch(uid: uid, stage, hint)
                users.prefetch(email: email, stage, hint)
            case .signInFailed(let email, _): users.prefetch(email: email, stage, hint)
            default: break
            }
        }
        if selection.contains(.sessions) { sessions.prefetch(event.pointee.fact, stage, hint) }
    }

    /// `apply(_:hash:)` of the event at `event` (a scanner's batch, read in place), first calling
    /// `hint` with the addresses the fold of `ahead`, a line a few ahead, will look at
    /// (`prefetch(for:hint:)`). The event is copied once, here, where `self` is already at hand.
    public mutating func apply(at event: UnsafePointer<ViewEvent>, hash: Digest32, prefetching ahead: UnsafePointer<ViewEvent>?,
                               rowsOf near: UnsafePointer<ViewEvent>? = nil, hint: (UnsafeRawPointer) -> Void) {
        if let ahead { prefetch(for: ahead, stage: .slots, hint: hint) }
        if let near { prefetch(for: near, stage: .rows, hint: hint) }
        apply(event.pointee, hash: hash)
    }

    /// The account fold over the users view and, when selected, the sign-in view; the users view's
    /// details; the sign-in view's count of refusals. A rule break is kept while both views are folded.
    private mutating func foldAccounts(_ event: ViewEvent) {
        if case .signInFailed(let email, _) = event.fact, selection.contains(.signIns) { signIns.countRefusal(email) }
        if let broken = AccountFold.evolve(&self, event, policy: signIns.policy), selection.isSuperset(of: Self.ruleBreakViews) {
            ruleBreaks.append(broken)
        }
        users.applyDetails(event)
    }

    /// Keeps only the views in `selection` (and those they read: sign-ins and account changes read users) up to date
    /// from now on, and empties the others, so that a view left behind can never be read as current.
    /// A read that prints some views folds only those; a checkpoint needs every view.
    public mutating func narrow(to selection: Selection) {
        var kept = selection.intersection(self.selection)
        if !kept.isDisjoint(with: [.signIns, .accountChanges]) { kept.insert(.users) }
        if !kept.contains(.users) { users = UserView() }
        if !kept.contains(.sessions) { sessions = SessionView() }
        if !kept.contains(.images) { images = ImageView() }
        if !kept.contains(.registrations) { registrations = RegistrationView() }
        if !kept.contains(.signIns) { signIns = SignInView(policy: signIns.policy) }
        if !kept.contains(.accountChanges) { accountChanges = AccountChangeView() }
        if !kept.isSuperset(of: Self.ruleBreakViews) { ruleBreaks = [] }
        self.selection = kept
    }

    /// Applies one recorded event to every view.
    public mutating func apply(_ event: RecordedEvent) {
        apply(ViewEvent(event), hash: Digest32(hex: event.envelope.hash) ?? .zero)
    }

    /// All invariant violations across the views (empty when sound).
    public func invariantViolations() -> [String] {
        users.invariantViolations() + sessions.invariantViolations() + images.invariantViolations(users: users)
            + registrations.invariantViolations()
    }
}

// MARK: - Selection

extension LedgerViews {
    /// A set of the views, for folding only those a read prints.
    public struct Selection: OptionSet, Hashable, Sendable {
        /// The bits.
        public let rawValue: UInt8
        /// A selection of `rawValue`'s bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Users.
        public static let users = Selection(rawValue: 1 << 0)
        /// Sessions.
        public static let sessions = Selection(rawValue: 1 << 1)
        /// Images.
        public static let images = Selection(rawValue: 1 << 2)
        /// Registrations.
        public static let registrations = Selection(rawValue: 1 << 3)
        /// Sign-in failures (which read users).
        public static let signIns = Selection(rawValue: 1 << 4)
        /// Account changes and revoked sessions (which read users).
        public static let accountChanges = Selection(rawValue: 1 << 5)
        /// Every view.
        public static let all: Selection = [.users, .sessions, .images, .registrations, .signIns, .accountChanges]
    }
}

// MARK: - The account fold's state

/// The views keep the account fold's state in two of them: accounts in the users view, sign-in
/// failures in the sign-in view (when it is selected).
extension LedgerViews: AccountFoldState {
    /// The key of `email`.
    public func emailKey(_ email: String) -> ViewEmail { ViewEmail(email) }
    /// The account `uid`'s status and email.
    public func account(_ uid: UUIDBits) -> AccountFacts<ViewEmail>? { users.account(uid) }
    /// The account `uid`'s status.
    public func status(of uid: UUIDBits) -> AccountStatus? { users.status(of: uid) }
    /// The account last created with `email`.
    public func lastAccount(of email: ViewEmail) -> UUIDBits? { users.lastAccount(of: email) }
    /// Records the creation of `uid` in the users view.
    public mutating func recordCreation(of uid: UUIDBits, email: ViewEmail, status: AccountStatus, by event: ViewEvent) {
        users.recordCreation(of: uid, email: email, status: status, by: event)
    }
    /// Sets the status of `uid` in the users view.
    public mutating func setStatus(_ status: AccountStatus, of uid: UUIDBits) { users.setStatus(status, of: uid) }
    /// The users view keeps no password hash.
    public mutating func recordPassword(of uid: UUIDBits, by event: ViewEvent) {}
    /// Moves `uid` to `email` in the users view.
    public mutating func recordEmailChange(of uid: UUIDBits, to email: ViewEmail, by event: ViewEvent) {
        users.recordEmailChange(of: uid, to: email, by: event)
    }
    /// True when the sign-in view is folded (it keeps the failures).
    public var keepsFailures: Bool { selection.contains(.signIns) }
    /// True unless the sign-in view surely has no failures of `email`.
    public func mayHaveFailures(_ email: ViewEmail) -> Bool { selection.contains(.signIns) && signIns.mayHaveFailures(email) }
    /// `email`'s consecutive wrong passwords in the sign-in view.
    public func recentFailures(of email: ViewEmail) -> [Timestamp] { signIns.recentFailures(of: email) }
    /// Adds a wrong password to the sign-in view.
    public mutating func appendFailure(of email: ViewEmail, at time: Timestamp, by event: ViewEvent) {
        if selection.contains(.signIns) { signIns.appendFailure(of: email, at: time) }
    }
    /// Clears `email`'s failures in the sign-in view.
    public mutating func clearFailures(of email: ViewEmail) { signIns.clearFailures(of: email) }
}

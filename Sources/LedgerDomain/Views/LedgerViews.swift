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
    /// Events applied.
    public var events = 0
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

    /// Applies one event, whose line hashed to `hash`, to every view selected.
    public mutating func apply(_ event: ViewEvent, hash: Digest32) {
        if selection == .all {
            users.apply(event)
            sessions.apply(event)
            images.apply(event)
            registrations.apply(event)
            signIns.apply(event, users: users)
        } else {
            if selection.contains(.users) { users.apply(event) }
            if selection.contains(.sessions) { sessions.apply(event) }
            if selection.contains(.images) { images.apply(event) }
            if selection.contains(.registrations) { registrations.apply(event) }
            if selection.contains(.signIns) { signIns.apply(event, users: users) }
        }
        headSeq = event.seq
        headHash = hash
        events += 1
    }

    /// Keeps only the views in `selection` (and those they read: sign-ins read users) up to date
    /// from now on, and empties the others, so that a view left behind can never be read as current.
    /// A read that prints some views folds only those; a checkpoint needs every view.
    public mutating func narrow(to selection: Selection) {
        var kept = selection.intersection(self.selection)
        if kept.contains(.signIns) { kept.insert(.users) }
        if !kept.contains(.users) { users = UserView() }
        if !kept.contains(.sessions) { sessions = SessionView() }
        if !kept.contains(.images) { images = ImageView() }
        if !kept.contains(.registrations) { registrations = RegistrationView() }
        if !kept.contains(.signIns) { signIns = SignInView(policy: signIns.policy) }
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
        /// Every view.
        public static let all: Selection = [.users, .sessions, .images, .registrations, .signIns]
    }
}

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

    /// Applies one event, whose line hashed to `hash`, to every view.
    public mutating func apply(_ event: ViewEvent, hash: Digest32) {
        users.apply(event)
        sessions.apply(event)
        images.apply(event)
        registrations.apply(event)
        signIns.apply(event, users: users)
        headSeq = event.seq
        headHash = hash
        events += 1
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

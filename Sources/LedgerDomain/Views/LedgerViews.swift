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
    /// The head of the events applied.
    public var head = Head.empty
    /// Events applied.
    public var events = 0

    /// Empty views.
    public init() {}

    /// Applies one event to every view.
    public mutating func apply(_ event: RecordedEvent) {
        users.apply(event)
        sessions.apply(event)
        images.apply(event)
        registrations.apply(event)
        signIns.apply(event)
        head = Head(seq: event.seq, hash: event.envelope.hash)
        events += 1
    }

    /// All invariant violations across the views (empty when sound).
    public func invariantViolations() -> [String] {
        users.invariantViolations() + sessions.invariantViolations() + images.invariantViolations(users: users)
            + registrations.invariantViolations()
    }
}

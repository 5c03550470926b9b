// MARK: - SignInPolicy

/// The lockout rule: 5 consecutive wrong passwords within 15 minutes lock the account for 15 minutes.
public struct SignInPolicy: Equatable, Sendable {
    /// Consecutive failures that lock.
    public var maxFailures = 5
    /// The window they must fall in, and the lock's length (milliseconds).
    public var window: Int64 = 15 * 60 * 1000

    /// The default policy.
    public init() {}
}

// MARK: - SignInView

/// Sign-in failures per email, derived from the log so the lockout holds across processes.
public struct SignInView: Equatable, Sendable {
    /// One email's record.
    public struct Row: Equatable, Sendable {
        /// The email tried.
        public var email: String
        /// Refused sign-ins in total.
        public var failures = 0
        /// Times of consecutive wrong passwords since the last success (at most the policy's count).
        public var recentFailures: [Timestamp] = []
    }

    /// Rows by email.
    public internal(set) var byEmail: [String: Row] = [:]
    /// First-failure order.
    public internal(set) var order: [String] = []
    var emailByUID: [String: String] = [:]
    let policy: SignInPolicy

    /// An empty view with `policy`.
    public init(policy: SignInPolicy = SignInPolicy()) { self.policy = policy }

    /// Applies one event. A session start resets the account's consecutive failures.
    public mutating func apply(_ event: RecordedEvent) {
        switch event.event {
        case .accountCreated(let e):
            emailByUID[e.uid] = e.email
        case .signInFailed(let e):
            if byEmail[e.email] == nil { order.append(e.email); byEmail[e.email] = Row(email: e.email) }
            byEmail[e.email]?.failures += 1
            if e.reason == .wrongPassword {
                byEmail[e.email]?.recentFailures.append(event.at)
                if let count = byEmail[e.email]?.recentFailures.count, count > policy.maxFailures {
                    byEmail[e.email]?.recentFailures.removeFirst(count - policy.maxFailures)
                }
            }
        case .sessionStarted(let e):
            if let email = emailByUID[e.uid] { byEmail[email]?.recentFailures = [] }
        default:
            break
        }
    }

    /// When the account with `email` is locked at `now`, the instant the lock ends; else nil.
    public func lockedUntil(_ email: String, at now: Timestamp) -> Timestamp? {
        guard let recent = byEmail[email]?.recentFailures, recent.count >= policy.maxFailures else { return nil }
        let last = recent[recent.count - 1], first = recent[recent.count - policy.maxFailures]
        guard last.millis - first.millis <= policy.window else { return nil }
        let until = last.adding(milliseconds: policy.window)
        return now < until ? until : nil
    }

    /// Rows in first-failure order.
    public var rows: [Row] { order.compactMap { byEmail[$0] } }
}

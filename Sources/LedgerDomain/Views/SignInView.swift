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

    /// Rows in first-failure order.
    public private(set) var rows: [Row] = []
    /// Position in `rows` by email.
    private var index: [String: Int32] = [:]
    /// Each account's email, so a session start can find the email's row.
    private(set) var emailByUID: [UUIDBits: String] = [:]
    let policy: SignInPolicy

    /// An empty view with `policy`.
    public init(policy: SignInPolicy = SignInPolicy()) { self.policy = policy }

    /// Applies one event. A session start resets the account's consecutive failures.
    public mutating func apply(_ event: ViewEvent) {
        switch event.fact {
        case .accountCreated(let uid, let email, _):
            emailByUID[uid] = email
        case .signInFailed(let email, let reason):
            let at = position(of: email)
            rows[at].failures += 1
            if reason == .wrongPassword {
                rows[at].recentFailures.append(event.at)
                let count = rows[at].recentFailures.count
                if count > policy.maxFailures { rows[at].recentFailures.removeFirst(count - policy.maxFailures) }
            }
        case .sessionStarted(_, let uid, _, _):
            if let email = emailByUID[uid], let at = index[email], !rows[Int(at)].recentFailures.isEmpty {
                rows[Int(at)].recentFailures = []
            }
        default:
            break
        }
    }

    /// Applies one recorded event.
    public mutating func apply(_ event: RecordedEvent) { apply(ViewEvent(event)) }

    /// The row of `email`, added when new.
    private mutating func position(of email: String) -> Int {
        if let at = index[email] { return Int(at) }
        index[email] = Int32(rows.count)
        rows.append(Row(email: email))
        return rows.count - 1
    }

    /// Restores a checkpointed row, or an account's email.
    mutating func restore(_ row: Row) { rows[position(of: row.email)] = row }
    mutating func restore(uid: UUIDBits, email: String) { emailByUID[uid] = email }

    /// The record of `email`, if it ever failed.
    public func row(email: String) -> Row? { index[email].map { rows[Int($0)] } }

    /// When the account with `email` is locked at `now`, the instant the lock ends; else nil.
    public func lockedUntil(_ email: String, at now: Timestamp) -> Timestamp? {
        guard let recent = row(email: email)?.recentFailures, recent.count >= policy.maxFailures else { return nil }
        let last = recent[recent.count - 1], first = recent[recent.count - policy.maxFailures]
        guard last.millis - first.millis <= policy.window else { return nil }
        let until = last.adding(milliseconds: policy.window)
        return now < until ? until : nil
    }
}

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
    private var index = PositionIndex()
    let policy: SignInPolicy

    /// An empty view with `policy`.
    public init(policy: SignInPolicy = SignInPolicy()) { self.policy = policy }

    /// Counts a refused sign-in of `email`, whatever its reason (the lockout's failures are the
    /// account fold's: `appendFailure`).
    mutating func countRefusal(_ email: String) {
        rows[insertedPosition(of: email)].failures += 1
    }

    /// True when `email` has recent failures.
    func mayHaveFailures(_ email: ViewEmail) -> Bool {
        guard let at = position(of: email.email) else { return false }
        return !rows[Int(at)].recentFailures.isEmpty
    }

    /// The times of `email`'s consecutive wrong passwords, oldest first.
    func recentFailures(of email: ViewEmail) -> [Timestamp] { position(of: email.email).map { rows[Int($0)].recentFailures } ?? [] }

    /// Adds a wrong password of `email` at `time`, keeping the policy's count of the latest.
    mutating func appendFailure(of email: ViewEmail, at time: Timestamp) {
        let at = insertedPosition(of: email.email)
        rows[at].recentFailures.append(time)
        let count = rows[at].recentFailures.count
        if count > policy.maxFailures { rows[at].recentFailures.removeFirst(count - policy.maxFailures) }
    }

    /// Forgets `email`'s consecutive wrong passwords.
    mutating func clearFailures(of email: ViewEmail) {
        if let at = position(of: email.email), !rows[Int(at)].recentFailures.isEmpty { rows[Int(at)].recentFailures = [] }
    }

    /// The position of `email`'s row, added when new.
    private mutating func insertedPosition(of email: String) -> Int {
        if let at = position(of: email) { return Int(at) }
        let at = Int32(rows.count)
        rows.append(Row(email: email))
        let all = rows
        index.set(email, to: at) { all[Int($0)].email }
        return Int(at)
    }

    /// The position of `email`'s row, if it has one.
    private func position(of email: String) -> Int32? { index.find(email) { rows[Int($0)].email } }

    /// Restores a checkpointed row.
    mutating func restore(_ row: Row) {
        rows[insertedPosition(of: row.email)] = row
    }

    /// The record of `email`, if it ever failed.
    public func row(email: String) -> Row? { position(of: email).map { rows[Int($0)] } }

    /// When the account with `email` is locked at `now`, the instant the lock ends; else nil: the
    /// policy's rule (`SignInPolicy.lockedUntil`, the one lockout rule) over this view's rows.
    public func lockedUntil(_ email: String, at now: Timestamp) -> Timestamp? {
        row(email: email).flatMap { lockedUntil($0, at: now) }
    }

    /// `lockedUntil` of `row`. Never for an erased email: every erased email reads alike, so its
    /// row gathers the failures of different people, and locks no one.
    public func lockedUntil(_ row: Row, at now: Timestamp) -> Timestamp? {
        ErasedText.isErased(row.email) ? nil : policy.lockedUntil(recent: row.recentFailures, at: now)
    }
}

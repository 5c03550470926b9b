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

    /// One email's record as the view keeps it: its email's bytes in `texts`.
    struct Record: Sendable {
        var email: TextArena.Ref
        var failures = 0
        var recentFailures: [Timestamp] = []
    }

    /// Records in first-failure order.
    private var records = ChunkedArray<Record>()
    /// The records' emails.
    private var texts = TextArena()
    /// Position in `records` by email.
    private var index = PositionIndex()
    let policy: SignInPolicy

    /// An empty view with `policy`.
    public init(policy: SignInPolicy = SignInPolicy()) { self.policy = policy }

    /// Rows in first-failure order.
    public var rows: [Row] { Array(lazyRows) }

    /// Rows in first-failure order, each spelled out as it is reached.
    var lazyRows: LazyMapSequence<ChunkedArray<Record>, Row> {
        let texts = self.texts
        return records.lazy.map { Row(email: texts.text($0.email), failures: $0.failures, recentFailures: $0.recentFailures) }
    }

    /// Calls `body` with each row, in first-failure order, without an array of them all.
    public func forEachRow(_ body: (Row) -> Void) { lazyRows.forEach(body) }

    /// Number of emails with a refused sign-in.
    public var count: Int { records.count }

    /// Counts a refused sign-in of `email`, whatever its reason (the lockout's failures are the
    /// account fold's: `appendFailure`).
    mutating func countRefusal(_ email: String) {
        records[insertedPosition(of: email)].failures += 1
    }

    /// True when `email` has recent failures.
    func mayHaveFailures(_ email: ViewEmail) -> Bool {
        guard let at = position(of: email.email) else { return false }
        return !records[Int(at)].recentFailures.isEmpty
    }

    /// The times of `email`'s consecutive wrong passwords, oldest first.
    func recentFailures(of email: ViewEmail) -> [Timestamp] { position(of: email.email).map { records[Int($0)].recentFailures } ?? [] }

    /// Adds a wrong password of `email` at `time`, keeping the policy's count of the latest.
    mutating func appendFailure(of email: ViewEmail, at time: Timestamp) {
        let at = insertedPosition(of: email.email)
        records[at].recentFailures.append(time)
        let count = records[at].recentFailures.count
        if count > policy.maxFailures { records[at].recentFailures.removeFirst(count - policy.maxFailures) }
    }

    /// Forgets `email`'s consecutive wrong passwords.
    mutating func clearFailures(of email: ViewEmail) {
        if let at = position(of: email.email), !records[Int(at)].recentFailures.isEmpty { records[Int(at)].recentFailures = [] }
    }

    /// The position of `email`'s record, added when new.
    private mutating func insertedPosition(of email: String) -> Int {
        if let at = position(of: email) { return Int(at) }
        let at = Int32(records.count)
        records.append(Record(email: texts.add(email)))
        do {
            // Read through copies that end here, before the records or texts change again.
            let all = records, texts = self.texts
            index.set(email, to: at, where: { texts.holds(all[Int($0)].email, email) })
        }
        return Int(at)
    }

    /// The position of `email`'s record, if it has one (its bytes, as the writers' index compares them).
    private func position(of email: String) -> Int32? { index.find(email, where: { texts.holds(records[Int($0)].email, email) }) }

    /// Restores a checkpointed row.
    mutating func restore(_ row: Row) {
        let at = insertedPosition(of: row.email)
        records[at].failures = row.failures
        records[at].recentFailures = row.recentFailures
    }

    /// The record of `email`, if it ever failed.
    public func row(email: String) -> Row? {
        position(of: email).map { let r = records[Int($0)]; return Row(email: texts.text(r.email), failures: r.failures, recentFailures: r.recentFailures) }
    }

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

extension SignInView {
    /// Views are equal when their policies and rows are (the arenas may lay the same emails out differently).
    public static func == (lhs: SignInView, rhs: SignInView) -> Bool { lhs.policy == rhs.policy && lhs.rows == rhs.rows }
}

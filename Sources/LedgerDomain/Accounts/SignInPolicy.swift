// MARK: - SignInPolicy

/// The lockout rule: 5 consecutive wrong passwords within 15 minutes lock the account for 15 minutes.
public struct SignInPolicy: Equatable, Sendable {
    /// The lockout's number of consecutive failures, stated once: the default policy's, and what the
    /// stores keep per email (`SignInRecord.keptFailures`).
    public static let defaultMaxFailures = 5

    /// Consecutive failures that lock.
    public var maxFailures = SignInPolicy.defaultMaxFailures
    /// The window they must fall in, and the lock's length (milliseconds).
    public var window: Int64 = 15 * 60 * 1000

    /// The default policy.
    public init() {}

    /// When `recent` (an email's consecutive wrong-password times, oldest first) locks it at `now`,
    /// the instant the lock ends; else nil.
    /// Times no log holds (a damaged index) decide nothing rather than overflow.
    public func lockedUntil(recent: [Timestamp], at now: Timestamp) -> Timestamp? {
        guard maxFailures > 0, recent.count >= maxFailures else { return nil }
        let last = recent[recent.count - 1], first = recent[recent.count - maxFailures]
        let (span, spanOverflow) = last.millis.subtractingReportingOverflow(first.millis)
        let (end, endOverflow) = last.millis.addingReportingOverflow(window)
        guard !spanOverflow, !endOverflow, span <= window else { return nil }
        let until = Timestamp(millis: end)
        return now < until ? until : nil
    }
}

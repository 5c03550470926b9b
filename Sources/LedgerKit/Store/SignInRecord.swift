import LedgerDomain

// MARK: - SignInRecord

/// What a sign-in needs to know about one email — its live account's status, that account when it
/// may sign in, and its recent wrong passwords — as a store's index answers it without reading the log (`SignInRecords.signInRecord`).
/// It is exactly what folding `UserView` and `SignInView` over the whole log gives.
public struct SignInRecord: Equatable, Sendable {
    /// An account that may sign in.
    public struct Account: Equatable, Sendable {
        /// Its uid.
        public var uid: String
        /// The yescrypt hash its password line recorded (its `AccountCreated` or last `PasswordChanged`).
        public var passwordHash: String

        /// An account from its parts.
        public init(uid: String, passwordHash: String) { self.uid = uid; self.passwordHash = passwordHash }

        /// The account `uid` signing in with `email`, with the hash `event` holds when it is that
        /// account's password line: its `AccountCreated` or a `PasswordChanged` of that uid (neither
        /// needs to name the email: the account may have moved to it since; the caller's index says
        /// the account is the email's).
        /// Nil for any other line: the index then disagrees with the log.
        public init?(passwordLine event: LedgerEvent, uid: String) {
            guard let line = event.passwordLine, line.uid == uid else { return nil }
            self.init(uid: uid, passwordHash: line.passwordHash)
        }
    }

    /// Wrong-password times a record keeps (the default policy's count): a `SignInPolicy` counting
    /// more must fold the log.
    public static let keptFailures = SignInPolicy.defaultMaxFailures

    /// The status of the email's live account (`AccountFold.liveStatus`), nil when it has none.
    public var liveStatus: AccountStatus?
    /// The email's account when it is live (created, not deleted) and may sign in (`AccountFold.signInAccount`).
    public var account: Account?
    /// The times of the email's consecutive wrong passwords since a session of its account last
    /// started, oldest first: the last `keptFailures` at most.
    public var recentFailures: [Timestamp]

    /// A record from its parts.
    public init(liveStatus: AccountStatus? = nil, account: Account? = nil, recentFailures: [Timestamp] = []) {
        self.liveStatus = liveStatus; self.account = account; self.recentFailures = recentFailures
    }
}

import LedgerDomain

// MARK: - Ledger, reads

extension Ledger {
    /// One user as the users view has them (`ledger users --json`'s row).
    public struct User: Sendable, Equatable {
        /// The account's uid.
        public let uid: String
        /// The email, nil once erased.
        public let email: String?
        /// The display name, nil when none or erased.
        public let userName: String?
        /// `pending`, `active`, `disabled` or `deleted`.
        public let status: String
        /// True once the email was verified.
        public let emailVerified: Bool
        /// When the account was created (RFC 3339), if known.
        public let createdAt: String?
    }

    /// The log's head: its last line's `seq` and hash (`SEQ:HASH`, as `ledger verify` prints it).
    public struct Head: Sendable, Equatable, CustomStringConvertible {
        /// The last line's seq (0 for an empty log).
        public let seq: Int
        /// Its hash, hex.
        public let hash: String
        /// `SEQ:HASH`.
        public var description: String { "\(seq):\(hash)" }

        /// A head from its parts (one recorded earlier, for `verify(expecting:)`).
        public init(seq: Int, hash: String) { self.seq = seq; self.hash = hash }
    }

    /// The users view, from the whole verified log, or as it stood after event `asOf` (a seq).
    public func users(asOfSeq asOf: Int? = nil) async throws(LedgerError) -> [User] {
        try await perform { call in
            guard let log = call.log else { return [] }
            let loaded = try ViewLoader.load(log, asOf: asOf.map { .seq($0) }, now: SystemClock().now(), views: .users)
            Self.finishErasures(log, after: loaded)
            return loaded.views.users.rows.map { row in
                let erased = ErasedText.isErased(row.email)
                return User(uid: row.uid, email: erased ? nil : row.email, userName: erased ? nil : row.userName,
                            status: row.status.rawValue, emailVerified: row.emailVerified, createdAt: row.createdAt?.rfc3339)
            }
        }
    }

    /// The views of `selection` (`.users`, `.sessions`, `.images`, `.registrations`, `.signIns`,
    /// `.accountChanges`, or `.all`: what `ledger users`, `sessions`, `images`, `audit` and `replay`
    /// print), folded from the whole verified log, or as they stood at `asOf` (a seq or a time).
    public func views(_ selection: LedgerViews.Selection = .all, asOf: AsOf? = nil) async throws(LedgerError) -> LedgerViews {
        try await perform { call in
            guard let log = call.log else { return LedgerViews() }
            let loaded = try ViewLoader.load(log, asOf: asOf, now: SystemClock().now(), views: selection)
            Self.finishErasures(log, after: loaded)
            return loaded.views
        }
    }

    /// What a start does after a read that met erasures whose keys or caches a restored backup
    /// brought back (`LogSource.finishErasures`); the read's answer stands whether or not it can
    /// (a folder this process cannot write: `recover()` then reports why).
    static func finishErasures(_ log: LogSource, after loaded: LoadedViews) {
        _ = try? log.finishErasures(lastErasureSeq: loaded.lastErasureSeq, recorded: loaded.recordedErasures)
    }

    /// The head of the verified log.
    public func head() async throws(LedgerError) -> Head {
        try await perform { call in
            let head = try call.store.head()
            return Head(seq: head.seq, hash: head.hash)
        }
    }
}

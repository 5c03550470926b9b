import LedgerDomain

// MARK: - StoreIndexFile: the account fold's state

/// The slots that keep `AccountFold`'s state, so a writer decides an email's live account and a
/// sign-in reads its account and recent failures without folding the log. Their layout:
/// - `email`, by email: +24 the uid of the last account created with it, +40 the seq;
/// - `uid`, by uid: +24 the email key it was last created with, +40 the seq;
/// - `account`, by uid: +4 its `AccountStatus` (`statusValues` order), +24 the offset of the line
///   of its last `AccountCreated`, +32 the first 8 bytes of that line's hash, +40 the seq;
/// - `failures`, by email: +4 the consecutive wrong passwords, +24 and +32 the times of the last
///   two, +40 the seq; `olderFailures`, by email: +24, +32 and +40 the times of the three before.
///
/// Every slot keeps the seq of the last event applied to it, so applying an event twice changes
/// nothing. The two failure slots change together under the header's untrusted mark (see `apply`),
/// so the second needs no seq of its own.
extension StoreIndexFile {
    /// Wrong-password times kept per email; a lockout policy that counts more folds the log instead.
    static let keptFailures = SignInRecord.keptFailures

    /// The statuses in the order of their stored values.
    static let statusValues = AccountStatus.allCases

    /// What the table says about one email.
    struct SignInEntry: Equatable {
        /// The account that may sign in with the email (`AccountFold.signInAccount`).
        struct Account: Equatable {
            /// Its uid's key.
            var uid: UUIDBits
            /// Where the line of its `AccountCreated` starts.
            var line: Int
            /// The first 8 bytes of that line's hash, as verified when it was folded.
            var lineHash: UInt64
        }

        /// The account that may sign in with the email, if any.
        var account: Account?
        /// True when the email's last account has no readable account slot (a damaged table).
        var accountSlotMissing = false
        /// The times of its consecutive wrong passwords, oldest first, `keptFailures` at most.
        var recentFailures: [Timestamp] = []
    }

    // MARK: - Applying

    /// Folds `event` into the account slots through `AccountFold` (called by `apply` after the
    /// stream slot); false when a slot could not be had (a damaged table).
    func applyAccounts(_ event: ViewEvent, hash: Digest32, offset: Int, seq: Int64) -> Bool {
        var state = IndexAccounts(table: self, seq: seq, offset: offset, lineHash: hash.a)
        AccountFold.evolve(&state, event, policy: SignInPolicy())
        return !state.failed
    }

    // MARK: - Reading

    /// What the table says about `email` for a sign-in.
    func signIn(email: String) -> SignInEntry {
        let key = Self.emailKey(email), state = IndexAccounts(table: self)
        var entry = SignInEntry()
        if let last = state.lastAccount(of: key) {
            if state.account(last) == nil {
                entry.accountSlotMissing = true
            } else if let uid = AccountFold.signInAccount(of: key, in: state), let slot = find(.account, uid, inserting: false) {
                entry.account = SignInEntry.Account(uid: uid, line: Int(load(Int64.self, at: slot + 24)),
                                                    lineHash: load(UInt64.self, at: slot + 32))
            }
        }
        entry.recentFailures = state.recentFailures(of: key)
        return entry
    }
}

// MARK: - IndexAccounts

/// `AccountFoldState` over the table's slots, for one event (`seq`, whose line starts at `offset`)
/// or for reads. A slot that already reflects `seq` is left alone.
struct IndexAccounts: AccountFoldState {
    let table: StoreIndexFile
    var seq: Int64 = .max
    var offset = 0
    /// The first 8 bytes of the event's line's hash.
    var lineHash: UInt64 = 0
    /// Set when a slot could not be had (a damaged table).
    private(set) var failed = false

    init(table: StoreIndexFile, seq: Int64 = .max, offset: Int = 0, lineHash: UInt64 = 0) {
        self.table = table; self.seq = seq; self.offset = offset; self.lineHash = lineHash
    }

    func emailKey(_ email: String) -> UUIDBits { StoreIndexFile.emailKey(email) }

    func account(_ uid: UUIDBits) -> AccountFacts<UUIDBits>? {
        guard let uidSlot = table.find(.uid, uid, inserting: false), let slot = table.find(.account, uid, inserting: false) else {
            return nil
        }
        let value = Int(table.load(UInt32.self, at: slot + 4))
        guard value < StoreIndexFile.statusValues.count else { return nil }
        return AccountFacts(status: StoreIndexFile.statusValues[value], email: table.loadKey(at: uidSlot + 24))
    }

    func lastAccount(of email: UUIDBits) -> UUIDBits? {
        table.find(.email, email, inserting: false).map { table.loadKey(at: $0 + 24) }
    }

    mutating func recordCreation(of uid: UUIDBits, email: UUIDBits, status: AccountStatus, by event: ViewEvent) {
        if let slot = writable(.email, email) {
            table.storeKey(uid, at: slot + 24)
            table.store(seq, at: slot + 40)
        }
        if let slot = writable(.uid, uid) {
            table.storeKey(email, at: slot + 24)
            table.store(seq, at: slot + 40)
        }
        if let slot = writable(.account, uid) {
            table.store(Self.value(status), at: slot + 4)
            table.store(Int64(offset), at: slot + 24)
            table.store(lineHash, at: slot + 32)
            table.store(seq, at: slot + 40)
        }
    }

    mutating func setStatus(_ status: AccountStatus, of uid: UUIDBits) {
        guard let slot = writable(.account, uid, inserting: false) else { return }
        table.store(Self.value(status), at: slot + 4)
        table.store(seq, at: slot + 40)
    }

    func mayHaveFailures(_ email: UUIDBits) -> Bool {
        table.find(.failures, email, inserting: false).map { table.load(UInt32.self, at: $0 + 4) > 0 } ?? false
    }

    func recentFailures(of email: UUIDBits) -> [Timestamp] {
        guard let slot = table.find(.failures, email, inserting: false),
              let older = table.find(.olderFailures, email, inserting: false) else { return [] }
        let count = Int(table.load(UInt32.self, at: slot + 4))
        let newestFirst = [slot + 24, slot + 32, older + 24, older + 32, older + 40].prefix(min(count, StoreIndexFile.keptFailures))
        return newestFirst.reversed().map { Timestamp(millis: table.load(Int64.self, at: $0)) }
    }

    mutating func appendFailure(of email: UUIDBits, at time: Timestamp, by event: ViewEvent) {
        guard let slot = writable(.failures, email) else { return }
        guard let older = table.find(.olderFailures, email, inserting: true) else {
            failed = true
            return
        }
        // Shift the five times by one, newest in front.
        table.store(table.load(Int64.self, at: older + 32), at: older + 40)
        table.store(table.load(Int64.self, at: older + 24), at: older + 32)
        table.store(table.load(Int64.self, at: slot + 32), at: older + 24)
        table.store(table.load(Int64.self, at: slot + 24), at: slot + 32)
        table.store(time.millis, at: slot + 24)
        let count = table.load(UInt32.self, at: slot + 4)
        table.store(count == .max ? count : count + 1, at: slot + 4)
        table.store(seq, at: slot + 40)
    }

    mutating func clearFailures(of email: UUIDBits) {
        guard let slot = writable(.failures, email, inserting: false) else { return }
        table.store(UInt32(0), at: slot + 4)
        table.store(seq, at: slot + 40)
    }

    /// The slot of `(tag, key)` when this event has not been applied to it yet; nil otherwise (or,
    /// setting `failed`, when an inserted slot could not be had).
    private mutating func writable(_ tag: StoreIndexFile.Tag, _ key: UUIDBits, inserting: Bool = true) -> Int? {
        guard let slot = table.find(tag, key, inserting: inserting) else {
            if inserting { failed = true }
            return nil
        }
        return table.load(Int64.self, at: slot + 40) < seq ? slot : nil
    }

    private static func value(_ status: AccountStatus) -> UInt32 { UInt32(StoreIndexFile.statusValues.firstIndex(of: status)!) }
}

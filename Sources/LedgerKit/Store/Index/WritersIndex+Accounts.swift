import LedgerDomain

// MARK: - WritersIndex: the account fold's state

/// The slots that keep `AccountFold`'s state (`email`, `uid`, `account`, `failures` and
/// `olderFailures`; their layouts are in `WritersIndex+Layout`), so a writer decides an email's
/// live account and a sign-in reads its account and recent failures without folding the log.
///
/// Every slot keeps the seq of the last event applied to it, so applying an event twice changes
/// nothing. The two failure slots change together under the header's untrusted mark (see `apply`),
/// so the second needs no seq of its own.
extension WritersIndex {
    /// The statuses in the order of their stored values.
    static let statusValues = AccountStatus.allCases

    /// What the table says about one email.
    struct SignInEntry: Equatable {
        /// The account that may sign in with the email (`AccountFold.signInAccount`).
        struct Account: Equatable {
            /// Its uid's key.
            var uid: UUIDBits
            /// Where the line holding its password hash starts (its `AccountCreated` or last `PasswordChanged`).
            var line: Int
            /// The first 8 bytes of that line's hash, as verified when it was folded.
            var lineHash: UInt64
        }

        /// The status of the email's live account, if any.
        var liveStatus: AccountStatus?
        /// The account that may sign in with the email, if any.
        var account: Account?
        /// True when the email's last account has no readable account slot (a damaged table).
        var accountSlotMissing = false
        /// The times of its consecutive wrong passwords, oldest first, `SignInRecord.keptFailures` at most.
        var recentFailures: [Timestamp] = []
    }

    // MARK: - Applying

    /// Folds `event` into the account slots through `AccountFold` (called by `apply` after the
    /// stream slot); false when a slot could not be had (a damaged table).
    func applyAccounts(_ event: ViewEvent, hash: Digest32, offset: Int, seq: Int64) -> Bool {
        var state = IndexAccounts(table: self, seq: seq, offset: offset, lineHash: hash.a)
        AccountFold.evolve(&state, event)
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
            } else {
                entry.liveStatus = AccountFold.liveStatus(of: key, in: state)
            }
            if !entry.accountSlotMissing, let uid = AccountFold.signInAccount(of: key, in: state), let slot = find(.account, uid, inserting: false) {
                entry.account = SignInEntry.Account(uid: uid, line: Int(self[slot, AccountSlot.passwordLine]),
                                                    lineHash: self[slot, AccountSlot.passwordLineHash])
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
    private typealias Slot = WritersIndex.Slot
    private typealias EmailSlot = WritersIndex.EmailSlot
    private typealias UIDSlot = WritersIndex.UIDSlot
    private typealias AccountSlot = WritersIndex.AccountSlot
    private typealias FailuresSlot = WritersIndex.FailuresSlot
    private typealias OlderFailuresSlot = WritersIndex.OlderFailuresSlot

    let table: WritersIndex
    var seq: Int64 = .max
    var offset = 0
    /// The first 8 bytes of the event's line's hash.
    var lineHash: UInt64 = 0
    /// Set when a slot could not be had (a damaged table).
    private(set) var failed = false

    init(table: WritersIndex, seq: Int64 = .max, offset: Int = 0, lineHash: UInt64 = 0) {
        self.table = table; self.seq = seq; self.offset = offset; self.lineHash = lineHash
    }

    func emailKey(_ email: String) -> UUIDBits { WritersIndex.emailKey(email) }

    func account(_ uid: UUIDBits) -> AccountFacts<UUIDBits>? {
        guard let uidSlot = table.find(.uid, uid, inserting: false), let slot = table.find(.account, uid, inserting: false) else {
            return nil
        }
        let value = Int(table[slot, AccountSlot.status])
        guard value < WritersIndex.statusValues.count else { return nil }
        return AccountFacts(status: WritersIndex.statusValues[value], email: table[uidSlot, UIDSlot.email])
    }

    func lastAccount(of email: UUIDBits) -> UUIDBits? {
        table.find(.email, email, inserting: false).map { table[$0, EmailSlot.lastAccount] }
    }

    mutating func recordCreation(of uid: UUIDBits, email: UUIDBits, status: AccountStatus, by event: ViewEvent) {
        if let slot = writable(.email, email) {
            table[slot, EmailSlot.lastAccount] = uid
            table[slot, Slot.seq] = seq
        }
        if let slot = writable(.uid, uid) {
            table[slot, UIDSlot.email] = email
            table[slot, Slot.seq] = seq
        }
        if let slot = writable(.account, uid) {
            table[slot, AccountSlot.status] = Self.value(status)
            table[slot, AccountSlot.passwordLine] = Int64(offset)
            table[slot, AccountSlot.passwordLineHash] = lineHash
            table[slot, Slot.seq] = seq
        }
    }

    mutating func setStatus(_ status: AccountStatus, of uid: UUIDBits) {
        guard let slot = writable(.account, uid, inserting: false) else { return }
        table[slot, AccountSlot.status] = Self.value(status)
        table[slot, Slot.seq] = seq
    }

    mutating func recordPassword(of uid: UUIDBits, by event: ViewEvent) {
        guard let slot = writable(.account, uid, inserting: false) else { return }
        table[slot, AccountSlot.passwordLine] = Int64(offset)
        table[slot, AccountSlot.passwordLineHash] = lineHash
        table[slot, Slot.seq] = seq
    }

    mutating func recordEmailChange(of uid: UUIDBits, to email: UUIDBits, by event: ViewEvent) {
        if let slot = writable(.email, email) {
            table[slot, EmailSlot.lastAccount] = uid
            table[slot, Slot.seq] = seq
        }
        if let slot = writable(.uid, uid, inserting: false) {
            table[slot, UIDSlot.email] = email
            table[slot, Slot.seq] = seq
        }
    }

    func mayHaveFailures(_ email: UUIDBits) -> Bool {
        table.find(.failures, email, inserting: false).map { table[$0, FailuresSlot.count] > 0 } ?? false
    }

    func recentFailures(of email: UUIDBits) -> [Timestamp] {
        guard let slot = table.find(.failures, email, inserting: false),
              let older = table.find(.olderFailures, email, inserting: false) else { return [] }
        let count = Int(table[slot, FailuresSlot.count])
        let newestFirst = [table[slot, FailuresSlot.newest], table[slot, FailuresSlot.second], table[older, OlderFailuresSlot.third],
                           table[older, OlderFailuresSlot.fourth], table[older, OlderFailuresSlot.fifth]]
        return newestFirst.prefix(min(count, SignInRecord.keptFailures)).reversed().map { Timestamp(millis: $0) }
    }

    mutating func appendFailure(of email: UUIDBits, at time: Timestamp, by event: ViewEvent) {
        guard let slot = writable(.failures, email) else { return }
        guard let older = table.find(.olderFailures, email, inserting: true) else {
            failed = true
            return
        }
        // Shift the five times by one, newest in front.
        table[older, OlderFailuresSlot.fifth] = table[older, OlderFailuresSlot.fourth]
        table[older, OlderFailuresSlot.fourth] = table[older, OlderFailuresSlot.third]
        table[older, OlderFailuresSlot.third] = table[slot, FailuresSlot.second]
        table[slot, FailuresSlot.second] = table[slot, FailuresSlot.newest]
        table[slot, FailuresSlot.newest] = time.millis
        let count = table[slot, FailuresSlot.count]
        table[slot, FailuresSlot.count] = count == .max ? count : count + 1
        table[slot, Slot.seq] = seq
    }

    mutating func clearFailures(of email: UUIDBits) {
        guard let slot = writable(.failures, email, inserting: false) else { return }
        table[slot, FailuresSlot.count] = 0
        table[slot, Slot.seq] = seq
    }

    /// The slot of `(tag, key)` when this event has not been applied to it yet; nil otherwise (or,
    /// setting `failed`, when an inserted slot could not be had).
    private mutating func writable(_ tag: WritersIndex.Tag, _ key: UUIDBits, inserting: Bool = true) -> Int? {
        guard let slot = table.find(tag, key, inserting: inserting) else {
            if inserting { failed = true }
            return nil
        }
        return table[slot, Slot.seq] < seq ? slot : nil
    }

    private static func value(_ status: AccountStatus) -> UInt32 { UInt32(WritersIndex.statusValues.firstIndex(of: status)!) }
}

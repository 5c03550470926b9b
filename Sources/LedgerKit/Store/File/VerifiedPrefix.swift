import LedgerDomain

// MARK: - VerifiedPrefix

/// What a file store knows about the verified prefix of its log. Stream versions and the account
/// fold's state live in the shared `WritersIndex` when there is one (it covers the whole log), else
/// in memory (then the process has read the whole log once).
struct VerifiedPrefix {
    /// Bytes of the log that verified (always a line boundary).
    var verifiedSize = 0
    /// Where the last verified line starts.
    var lineStart = 0
    /// Chain state after the verified prefix.
    var checker = ChainChecker()
    /// Events per stream, when there is no index file.
    var streamVersions: [String: Int] = [:]
    /// The account fold's state, when there is no index file.
    var accounts = AccountTable()
    /// The latest `at`, so appended times never go backwards.
    var lastAt = Timestamp(millis: 0)
    /// The shared index file, when in use.
    var table: WritersIndex?
    /// Set when the index file could not take an event (it could not grow): the caller must rebuild
    /// this index from the whole log without it.
    var lostTable = false
    /// Set when a borrowed table was let go in the middle of a lock hold (`letGoOfBorrowedTable`):
    /// the rest of the hold goes on without it, and the prefix is dropped with the lock.
    private(set) var letGoOfBorrowed = false

    /// An index at the start of the log, over `table` (emptied) when given.
    init(table: WritersIndex? = nil) { self.table = table }

    /// An index continuing after what `table` covers.
    init(table: WritersIndex, coverage: WritersIndex.Coverage) {
        self.table = table
        verifiedSize = coverage.offset
        lineStart = coverage.lineStart
        checker = ChainChecker(continuingAfter: coverage.head)
        lastAt = coverage.lastAt
    }

    /// Lets a borrowed table go untouched (its file's lease was broken: the file may be cut under
    /// the mapping); what the rest of the lock hold records goes to memory, and is dropped with it.
    mutating func letGoOfBorrowedTable() {
        table = nil
        letGoOfBorrowed = true
    }

    /// Records one verified event whose line spans `[offset, offset + length)`.
    mutating func record(_ event: RecordedEvent, offset: Int, length: Int) {
        record(ViewEvent(event), hash: Digest32(hex: event.envelope.hash) ?? .zero, offset: offset, length: length)
    }

    /// Records one verified event as the views fold it (a line read in place), its line's `hash`,
    /// spanning `[offset, offset + length)`.
    mutating func record(_ event: ViewEvent, hash: Digest32, offset: Int, length: Int) {
        if let table, !lostTable {
            if !table.apply(event, hash: hash, offset: offset) { lostTable = true }
        } else {
            streamVersions[event.category.stream(event.stream.uuidString), default: 0] += 1
            AccountFold.evolve(&accounts, event)
        }
        lastAt = max(lastAt, event.at)
        lineStart = offset
        verifiedSize = offset + length
    }

    /// The number of events in `stream`.
    func version(of stream: String) -> Int {
        if let table { return table.version(of: stream) }
        return streamVersions[stream, default: 0]
    }

    /// True when a live account holds `email`, from the index file's slots or the fold kept in memory.
    func holdsLiveAccount(email: String) -> Bool {
        if let table, !lostTable { return table.accounts.holdsLiveAccount(email: email) }
        return accounts.holdsLiveAccount(email: email)
    }

    /// The live account that holds `email` (`AccountFold.liveAccount`), from the index file's slots or the fold kept in memory.
    func liveAccount(email: String) -> UUIDBits? {
        if let table, !lostTable { return AccountFold.liveAccount(of: table.accounts.emailKey(email), in: table.accounts) }
        return AccountFold.liveAccount(of: accounts.emailKey(email), in: accounts)
    }

    /// True when the log holds the creation of account `uid`, from the index file's slots or the fold kept in memory.
    func knowsAccount(_ uid: UUIDBits) -> Bool {
        if let table, !lostTable { return table.accounts.account(uid) != nil }
        return accounts.account(uid) != nil
    }

    /// Where `stream`'s lines are, when the index file is in use (else nil).
    func lines(of stream: String) -> WritersIndex.StreamLines? {
        guard let table, !lostTable else { return nil }
        return table.lines(of: stream)
    }

    /// What the index file says about `email` for a sign-in, when it is in use (else nil).
    func signIn(email: String) -> WritersIndex.SignInEntry? {
        guard let table, !lostTable else { return nil }
        return table.signIn(email: email)
    }

    /// What the index file should record as covered now.
    var coverage: WritersIndex.Coverage {
        WritersIndex.Coverage(lineStart: lineStart, offset: verifiedSize, head: checker.head, lastAt: lastAt)
    }
}

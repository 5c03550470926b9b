import LedgerDomain

// MARK: - PostgresEventStore: the account-state tables

/// The account-state tables are a cache of the log: every append folds its events into them in its
/// own transaction, and whatever inserts lines without doing so (an older ledger, an import, a hand)
/// leaves them behind the head, which the next append, sign-in or `ledger init` notices — their
/// row names the seq and hash of the last line folded — and makes good under the append lock:
/// the missing lines are folded (verified as a chain), or, when the row names no line of this log,
/// the tables are emptied and the whole log is folded again. A database from before the tables
/// existed gets them the same way.
extension PostgresEventStore {
    /// Where the account state stands against the log.
    struct AccountMark {
        /// The log's head.
        var head: Head
        /// The time of the head line.
        var lastAt: Timestamp?
        /// The last seq folded into the account state; nil when it reflects no prefix of this log
        /// (no row, a hash that is not this log's line, or beyond the head).
        var folded: Int?
    }

    /// The statement that reads the head and the account state's mark (one snapshot), for `accountMark(from:)`.
    static let accountMarkQuery = """
        SELECT (SELECT line FROM ledger_events ORDER BY seq DESC LIMIT 1),
               (SELECT seq FROM ledger_account_state), (SELECT hash FROM ledger_account_state),
               (SELECT line FROM ledger_events WHERE seq = (SELECT seq FROM ledger_account_state))
        """

    /// The head and the account state's mark, in one statement (one snapshot).
    static func accountMark(_ connection: PostgresConnection) throws -> AccountMark {
        try accountMark(from: try connection.execute(accountMarkQuery), rows: lines(connection))
    }

    /// The mark that `accountMarkQuery` returned; `rows` reads the store's lines between two seqs
    /// (to name a batch the head leaves open, `checkedHead`).
    static func accountMark(from result: PostgresResult, rows: HeadRows? = nil) throws -> AccountMark {
        var mark = AccountMark(head: .empty, lastAt: nil, folded: nil)
        if !result.isNull(0, 0) {
            // The line the next one chains onto must hash to its own hash: a head edited in place
            // (its `hash` member kept) is damage, not something to append after.
            let envelope = try result.bytes(0, 0) { try checkedHead($0, rows: rows) }
            mark.head = Head(seq: envelope.seq, hash: envelope.hash)
            mark.lastAt = envelope.at
        }
        // The hash of the line the mark names, from the line itself: the row's `hash` column is a
        // copy no check reads, so one left as it was beside a rewritten line must not vouch for it.
        let markSeq = result.int(0, 1)
        let found = result.isNull(0, 3) ? nil : try result.bytes(0, 3) { line in
            do {
                return try decodeEnvelope(line).hash
            } catch let error as StoreError {
                let problem = LogProblem(line: markSeq ?? 0, kind: error.problem?.kind ?? .invalidJSON,
                                         message: "the line the account tables' mark names is not a ledger line (\(error.problem?.message ?? error.message))")
                throw StoreError(.damaged, "the PostgreSQL log is damaged at \(problem)", problem: problem)
            }
        }
        // Only a hash as ledger writes it (64 lowercase hex digits) is a record of a line; any other
        // mark names none, and the tables are folded again.
        let recorded = result.string(0, 2).flatMap(HistoryRewrite.canonicalHash)
        if let folded = markSeq, folded <= mark.head.seq, folded == 0 || (recorded != nil && recorded == found) {
            mark.folded = folded
        }
        // The tables recorded another hash for a line the log still holds: a rewritten history, not
        // a stale cache (that would name a line past the head, after a restore from an older backup).
        if let seq = markSeq, let recorded,
           let rewrite = HistoryRewrite.evidence(cache: "the account-state tables (ledger_account_state)",
                                                 recorded: Head(seq: seq, hash: recorded), found: found) {
            throw StoreError(.historyRewritten, rewrite.message)
        }
        return mark
    }

    /// The operator's way back after a legitimate restore (`ledger recover --accept-history`): forgets
    /// the account-state tables' mark, the views checkpoint and the Merkle tree's state, under the append lock, so the next
    /// append folds the tables again from the log as it now is. Returns what it discarded.
    public func discardCaches() throws -> [String] {
        let connection = try connection()
        do {
            return try connection.transaction {
                try connection.execute("SELECT pg_advisory_xact_lock($1)", [PostgresSchema.appendLockKey])
                var discarded: [String] = []
                for table in ["ledger_account_state", "ledger_checkpoints", "ledger_tree"] {
                    guard try connection.execute("SELECT to_regclass('\(table)') IS NOT NULL").string(0, 0) == "t" else { continue }
                    try connection.execute("DELETE FROM \(table)")
                    discarded.append(table)
                }
                return discarded
            }
        } catch {
            throw storeError(error, during: "discarding the caches")
        }
    }

    /// Brings `accounts` (and its tables) from `mark` up to the head, inside the caller's transaction
    /// and under the append lock: the lines after the folded seq, a page at a time (each page's rows
    /// loaded in one query, folded, flushed and forgotten). Does not record the new mark: the caller's
    /// `flush(through:)` does, with the lines it adds. `opener` opens the lines' personal members.
    static func catchUp(_ accounts: PostgresAccounts, from mark: AccountMark, _ connection: PostgresConnection,
                        opener: any PersonalDataOpener) throws {
        // An erasure met after its subject's members were opened to text (a `ledger_keys` row
        // restored from a backup taken before it; or tables folded before it, when they are caught
        // up from their mark): the tables are folded again from the first line, the log's erasures winning.
        // Each pass from the first line meets every erasure of the log, so the one after it opens
        // no erased subject: at most three passes (the tables' tail, the whole log, once more).
        var mark = mark, erased: Set<SubjectID> = [], pass: any PersonalDataOpener = opener
        while true {
            let watch = OpenedSubjects(pass)
            var foldAgain = false
            try catchUp(accounts, from: mark, connection, opener: watch) { subject in
                erased.insert(subject)
                if watch.wasOpened(subject) || mark.folded != nil { foldAgain = true }
            }
            guard foldAgain else { return }
            mark = AccountMark(head: mark.head, lastAt: mark.lastAt, folded: nil)
            pass = LogErasuresOpener(base: opener, erased: erased)
        }
    }

    /// `catchUp`, telling `erasure` of each erasure event it folds.
    private static func catchUp(_ accounts: PostgresAccounts, from mark: AccountMark, _ connection: PostgresConnection,
                                opener: any PersonalDataOpener, erasure: (SubjectID) -> Void) throws {
        var from = (mark.folded ?? 0) + 1
        if mark.folded == nil {
            // Tables that no longer name a line of this log are folded again, unless the views
            // checkpoint remembers another history for a line it holds: that is evidence, as a mark's would be.
            if let rewrite = try checkpointRewrite(connection) { throw StoreError(.historyRewritten, rewrite.message) }
            try connection.execute("TRUNCATE " + PostgresSchema.accountTables.joined(separator: ", "))
            accounts.forget()
            from = 1
        }
        guard from <= mark.head.seq else { return }
        var page: [ViewEvent] = [], failure: (any Error)?
        func foldPage() throws {
            try accounts.apply(page)
            try accounts.flush(through: nil)
            accounts.forget()
            page.removeAll(keepingCapacity: true)
        }
        try forEachEvent(connection, from: from, through: mark.head.seq, opener: opener) { event in
            if let subject = event.event.erasedSubject { erasure(subject) }
            page.append(ViewEvent(event))
            guard page.count == pageSize else { return true }
            do { try foldPage() } catch { failure = error; return false }
            return true
        }
        if let failure { throw failure }
        try foldPage()
    }

    /// Inside a transaction holding the append lock: creates the account-state tables when any is
    /// missing (emptying the others, so they are folded again), folds what they lack, and records
    /// the head. Returns the mark it found. `opener` opens the lines' personal members.
    @discardableResult
    static func bringAccountsUpToDate(_ connection: PostgresConnection, opener: any PersonalDataOpener) throws -> AccountMark {
        if try lacksAccountTables(connection) {
            for statement in PostgresSchema.accountStatements { try connection.execute(statement) }
            try connection.execute("TRUNCATE " + PostgresSchema.accountTables.joined(separator: ", "))
        }
        let mark = try accountMark(connection)
        guard mark.folded != mark.head.seq else { return mark }
        let accounts = PostgresAccounts(connection: connection)
        try catchUp(accounts, from: mark, connection, opener: opener)
        try accounts.flush(through: mark.head)
        return mark
    }

    /// True when the events table exists and an account-state table does not (a database from
    /// before them).
    static func lacksAccountTables(_ connection: PostgresConnection) throws -> Bool {
        let names = ([PostgresSchema.eventsTable] + PostgresSchema.accountTables).map { "to_regclass('\($0)') IS NOT NULL" }
        let result = try connection.execute("SELECT " + names.joined(separator: ", "))
        let present = (0...PostgresSchema.accountTables.count).map { result.string(0, $0) == "t" }
        return present[0] && present.dropFirst().contains(false)
    }

    /// True when `error` is the server's "no such table".
    static func isMissingTable(_ error: any Error) -> Bool { (error as? PostgresError)?.sqlState == "42P01" }

    /// True when `error` is the server's "no such column" for `password_seq`: a store of schema 2,
    /// whose column still has its first name (`PostgresSchema.passwordSeqRename` renames it).
    static func isOldPasswordSeqColumn(_ error: any Error) -> Bool {
        guard let error = error as? PostgresError else { return false }
        return error.sqlState == "42703" && error.message.contains("password_seq")
    }

    /// Brings the account-state tables up to the head in a transaction of its own, under the append
    /// lock (creating them in a database from before them). What `ledger init` and a sign-in that
    /// finds them behind run.
    func catchUpAccounts() throws {
        let connection = try connection()
        do {
            try Self.droppingLegacyStatusCheck(connection) {
                try connection.transaction {
                    try connection.execute("SELECT pg_advisory_xact_lock($1)", [PostgresSchema.appendLockKey])
                    try Self.bringAccountsUpToDate(connection, opener: keyRing)
                }
            }
        } catch {
            throw storeError(error, during: "bringing the account-state tables up to date")
        }
    }

    // MARK: - The status constraint of older databases

    /// True when `error` is a row refused by `PostgresSchema.legacyStatusCheck`.
    static func isLegacyStatusCheck(_ error: any Error) -> Bool {
        guard let error = error as? PostgresError else { return false }
        return error.sqlState == "23514" && error.constraint == PostgresSchema.legacyStatusCheck
    }

    /// Runs `body` (a whole transaction, rolled back when it throws); when `PostgresSchema.legacyStatusCheck` refused
    /// a row of it, drops the constraint and runs `body` once more.
    static func droppingLegacyStatusCheck<T>(_ connection: PostgresConnection, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch where isLegacyStatusCheck(error) {
            try dropLegacyStatusCheck(connection)
            return try body()
        }
    }

    /// Drops `PostgresSchema.legacyStatusCheck` in a transaction of its own, under the append lock.
    static func dropLegacyStatusCheck(_ connection: PostgresConnection) throws {
        try connection.transaction {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [PostgresSchema.appendLockKey])
            try connection.execute(PostgresSchema.dropLegacyStatusCheck)
        }
    }
}

import LedgerDomain

// MARK: - PostgresEventStore sign-in lookups

/// What a sign-in needs, asked of the server in one read-only snapshot through the partial indexes
/// of `PostgresSchema` instead of folding the whole table; every line it uses is verified alone, and
/// the account's line also by the next row's link to it (`checkLink`).
/// The questions follow `UserView` and `SignInView`:
/// - the email's account is the last `AccountCreated` with it; it may sign in when a
///   `ProfileWritten` and no `AccountDeleted` of its uid came after (the uid created again since,
///   with another email, is the one case that folds the log instead);
/// - a `SessionStarted` clears the failures of the email its uid was last created with before it;
/// - the recent failures are the email's last five `wrong-password` refusals after that.
extension PostgresEventStore {
    /// What a sign-in needs about `email`; nil when only folding the log can tell (see above).
    public func signInRecord(email: String) throws -> SignInRecord? {
        let connection = try connection()
        do {
            return try connection.transaction {
                try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                return try Self.signInRecord(email: email, connection)
            }
        } catch {
            throw storeError(error, during: "a sign-in lookup")
        }
    }

    private static func signInRecord(email: String, _ connection: PostgresConnection) throws -> SignInRecord? {
        var record = SignInRecord()
        let created = try connection.execute("""
            SELECT line FROM ledger_events WHERE type = 'AccountCreated' AND data->>'email' = $1 ORDER BY seq DESC LIMIT 1
            """, [email])
        if created.count == 1 {
            let event = try created.bytes(0, 0) { try verifyAlone($0) }
            guard case .accountCreated(let account) = event.event, account.email == email else { return nil }
            try checkLink(to: event, connection)
            let after = try connection.execute("""
                SELECT
                    EXISTS (SELECT 1 FROM ledger_events WHERE type = 'AccountCreated' AND data->>'uid' = $1 AND seq > $2),
                    EXISTS (SELECT 1 FROM ledger_events WHERE type = 'AccountDeleted' AND data->>'uid' = $1 AND seq > $2),
                    EXISTS (SELECT 1 FROM ledger_events WHERE type = 'ProfileWritten' AND data->>'uid' = $1 AND seq > $2)
                """, [account.uid, String(event.seq)])
            guard after.string(0, 0) == "f" else { return nil }  // created again since: fold
            if after.string(0, 1) == "f" && after.string(0, 2) == "t" {
                record.account = SignInRecord.Account(uid: account.uid, passwordHash: account.passwordHash)
            }
        }
        // The last session start that cleared this email's failures (0: none).
        let reset = try connection.execute("""
            SELECT coalesce(max(s.seq), 0) FROM ledger_events s
            WHERE s.type = 'SessionStarted'
              AND s.data->>'uid' IN (SELECT data->>'uid' FROM ledger_events WHERE type = 'AccountCreated' AND data->>'email' = $1)
              AND (SELECT a.data->>'email' FROM ledger_events a
                   WHERE a.type = 'AccountCreated' AND a.data->>'uid' = s.data->>'uid' AND a.seq < s.seq
                   ORDER BY a.seq DESC LIMIT 1) = $1
            """, [email]).int(0, 0) ?? 0
        let failures = try connection.execute("""
            SELECT line FROM ledger_events
            WHERE type = 'SignInFailed' AND data->>'email' = $1 AND data->>'reason' = 'wrong-password' AND seq > $2
            ORDER BY seq DESC LIMIT \(SignInRecord.keptFailures)
            """, [email, String(reset)])
        record.recentFailures = try (0..<failures.count).reversed().map { row in
            try failures.bytes(row, 0) { try verifyAlone($0) }.at
        }
        return record
    }

    /// Throws `.damaged` unless the row after `event`'s (by seq), when there is one, continues the
    /// chain from it: a row edited and given its own hash again still checks alone, only the next
    /// row's `prev` shows the edit.
    private static func checkLink(to event: RecordedEvent, _ connection: PostgresConnection) throws {
        let next = try connection.execute("SELECT line FROM ledger_events WHERE seq = $1", [String(event.seq + 1)])
        guard next.count == 1 else { return }
        var checker = ChainChecker(continuingAfter: Head(seq: event.seq, hash: event.envelope.hash))
        switch next.bytes(0, 0, { LogScanner.decode($0, offset: 0, terminated: true, checker: &checker) }) {
        case .event: return
        case .problem(let problem, _, _), .tornTail(let problem, _, _):
            throw StoreError(.damaged, "the PostgreSQL log is damaged at \(problem)", problem: problem)
        }
    }
}

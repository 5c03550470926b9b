import LedgerDomain

// MARK: - PostgresEventStore sign-in lookups

/// What a sign-in needs, read in one statement (one snapshot) of primary-key lookups: the
/// account-state mark and head, the email's row, its last account's row, that account's
/// `AccountCreated` line and the line after it, and the email's failures. `AccountFold` decides
/// from those rows which account may sign in. The password hash is taken only from a line whose
/// own hash holds and which the next line's `prev` links to (or which is the head); a line that
/// does not link is damage, refused.
extension PostgresEventStore {
    /// What a sign-in needs about `email`; nil — fold the log instead — when the account-state
    /// tables disagree with the log or stay behind it. Tables behind the head (lines inserted
    /// without them) are brought up to it first, under the append lock.
    public func signInRecord(email: String) throws -> SignInRecord? {
        do {
            for attempt in 0..<2 {
                let connection = try connection()
                switch try Self.signInRead(email: email, connection) {
                case .answer(let record): return record
                case .fold: return nil
                case .behind: if attempt == 0 { try catchUpAccounts() }
                }
            }
            return nil  // still behind: something keeps inserting lines without the tables
        } catch let error as StoreError {
            throw error
        } catch {
            throw storeError(error, during: "a sign-in lookup")
        }
    }

    /// What one read of the tables gives.
    private enum SignInRead {
        case answer(SignInRecord)
        case fold
        case behind
    }

    private static func signInRead(email: String, _ connection: PostgresConnection) throws -> SignInRead {
        let result: PostgresResult
        do {
            result = try connection.execute("""
                SELECT st.seq, hd.line, em.last_uid, ac.status, ac.email, ac.created_seq, f.times, c.line, n.line
                FROM (SELECT 1) AS one
                LEFT JOIN LATERAL (SELECT s.seq FROM ledger_account_state s LEFT JOIN ledger_events e ON e.seq = s.seq
                                   WHERE s.seq = 0 OR s.hash = e.hash) st ON true
                LEFT JOIN LATERAL (SELECT line FROM ledger_events ORDER BY seq DESC LIMIT 1) hd ON true
                LEFT JOIN ledger_account_emails em ON em.email = $1
                LEFT JOIN ledger_accounts ac ON ac.uid = em.last_uid
                LEFT JOIN ledger_signin_failures f ON f.email = $1
                LEFT JOIN ledger_events c ON c.seq = ac.created_seq
                LEFT JOIN ledger_events n ON n.seq = ac.created_seq + 1
                """, [email])
        } catch where isMissingTable(error) {
            guard try lacksAccountTables(connection) else { throw error }
            return .behind
        }
        // The tables answer only when they reflect exactly the head this snapshot sees.
        var head = Head.empty, lastAt = Timestamp(millis: 0)
        if !result.isNull(0, 1) {
            let envelope = try result.bytes(0, 1) { line in try decodeEnvelope(line) }
            head = Head(seq: envelope.seq, hash: envelope.hash)
            lastAt = envelope.at
        }
        guard let folded = result.int(0, 0), folded == head.seq else { return .behind }

        let accounts = PostgresAccounts(connection: connection)
        let lastAccount = result.string(0, 2).flatMap(UUIDBits.init(uuid:))
        let account = PostgresAccounts.account(result, 0, status: 3)
        if !result.isNull(0, 2) && (lastAccount == nil || account == nil) { return .fold }  // a row missing or unreadable
        let failures = PostgresAccounts.times(result.string(0, 6))
        // Times the log cannot hold (a damaged row) would overflow the lockout arithmetic: fold instead.
        guard failures.allSatisfy({ $0.millis >= 0 && $0 <= lastAt }) else { return .fold }
        accounts.remember(email: email, lastAccount: lastAccount, account: account, failures: failures)

        var record = SignInRecord(recentFailures: accounts.recentFailures(of: email))
        guard let uid = AccountFold.signInAccount(of: accounts.emailKey(email), in: accounts), let account else {
            try accounts.check()
            return .answer(record)
        }
        guard !result.isNull(0, 7) else { return .fold }
        let created = try result.bytes(0, 7) { try verifyAlone($0) }
        guard case .accountCreated(let event) = created.event, created.seq == account.created,
              event.uid == uid.uuidString, event.email == email else { return .fold }
        try checkLink(of: created, next: result.isNull(0, 8) ? nil : try result.bytes(0, 8) { try verifyAlone($0) }, head: head)
        record.account = SignInRecord.Account(uid: event.uid, passwordHash: event.passwordHash)
        return .answer(record)
    }

    /// Throws `StoreError(.damaged)` unless `next`, the line after `line`, links to it (its `prev`
    /// is `line`'s hash), or `line` is the head.
    static func checkLink(of line: RecordedEvent, next: RecordedEvent?, head: Head) throws {
        if let next, next.seq == line.seq + 1, next.envelope.prev == line.envelope.hash { return }
        if next == nil, line.seq == head.seq, line.envelope.hash == head.hash { return }
        let problem = LogProblem(line: line.seq + 1, kind: .brokenChain,
                                 message: "line \(line.seq + 1) does not link to line \(line.seq), the AccountCreated holding an account's password hash")
        throw StoreError(.damaged, "the PostgreSQL log is damaged: line \(line.seq + 1) does not link to line \(line.seq), "
                         + "the AccountCreated holding the password hash; refusing to sign in with it — export the log and run `ledger verify`",
                         problem: problem)
    }
}
